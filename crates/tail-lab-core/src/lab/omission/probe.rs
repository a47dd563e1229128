//! Coordinated omission on the Lab's own replicas: a client that measures one loaded replica.
//!
//! The replica is the busy-replicas section's, with no backups: a FIFO server at utilisation
//! `load` under Poisson arrivals, so an M/G/1 queue. A request arriving at time `t` answers
//! after the work already queued, `V(t)`, plus its own. A measuring client probes it every
//! `interval_ms`, at a rate too small to load it (its own work is not added), open loop (every
//! probe on schedule: by Poisson arrivals seeing time averages its latencies have the law every
//! request meets, whose mean is Pollaczek–Khinchine's) or closed loop (the next probe waits for
//! the last answer, so the long queues get fewer probes). The closed loop's tail reads low.

use super::measure::Measurement;
use super::{STALL_STREAM, STREAM};
use crate::error::{CountRange, Ends, NumberRange, ParamError};
use crate::lab::loaded::MIN_LOAD;
use crate::lab::loaded::theory::no_backup_mean_ms;
use crate::lab::service::{ServiceModel, ServiceSampler};
use crate::sampling::address::SampleStream;
use std::rc::Rc;

/// Probes one run may make.
pub const PROBES: CountRange = crate::count_range!(1000, 2000000);
/// Arrivals one probe run may simulate.
pub const MAX_ARRIVALS: f64 = 2e7;
/// The highest load accepted: the queue must be stable to have a truth to read (below the
/// loaded model's own ceiling).
pub const MAX_PROBE_LOAD: f64 = 0.95;
/// The probed replica's utilisations accepted.
pub const PROBE_LOAD: NumberRange = NumberRange::new(
    MIN_LOAD,
    MAX_PROBE_LOAD,
    Ends::Closed,
    "a utilisation in [0.001, 0.95]",
);

/// A probe run's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeParams {
    /// The replica's utilisation, in [0.001, 0.95].
    pub load: f64,
    /// How often the client means to probe (ms, in (0, 1e9]).
    pub interval_ms: f64,
    /// Probes made (the first tenth warm the queue up and are not recorded).
    pub probes: u64,
    /// The replica's service model.
    pub service: ServiceModel,
}

impl Default for ProbeParams {
    /// The section's default: load 0.5, a probe every 100 ms, 200,000 probes, the Lab's model.
    fn default() -> Self {
        ProbeParams {
            load: 0.5,
            interval_ms: 100.0,
            probes: 200_000,
            service: ServiceModel::default(),
        }
    }
}

/// What the two clients read.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeResult {
    /// The parameters.
    pub params: ProbeParams,
    /// Open loop: the truth.
    pub open: Measurement,
    /// Closed loop, latency from the actual probe.
    pub raw: Measurement,
    /// The closed loop's samples with HdrHistogram's expected-interval fills.
    pub corrected: Measurement,
    /// Pollaczek–Khinchine's mean latency at this load (ms).
    pub theory_mean_ms: f64,
}

/// The replica's queued work over time, read at nondecreasing times.
struct Workload {
    seed: u64,
    rate: f64,
    sampler: Rc<ServiceSampler>,
    /// The next arrival's number and time.
    next: u64,
    next_at: f64,
    /// Work queued just after the last arrival, and when that was.
    v: f64,
    v_at: f64,
}

impl Workload {
    fn new(seed: u64, rate: f64, sampler: Rc<ServiceSampler>) -> Self {
        let mut w = Workload {
            seed,
            rate,
            sampler,
            next: 0,
            next_at: 0.0,
            v: 0.0,
            v_at: 0.0,
        };
        w.next_at = w.gap(0);
        w
    }

    fn gap(&self, i: u64) -> f64 {
        -libm::log(SampleStream::at(self.seed, STALL_STREAM, i, 1, 0).next_open_unit()) / self.rate
    }

    /// The work queued at time `t` (ms), arrivals up to `t` included.
    fn at(&mut self, t: f64) -> f64 {
        while self.next_at <= t {
            let s = self
                .sampler
                .sample(SampleStream::at(self.seed, STREAM, self.next, 1, 0))
                .ms;
            self.v = (self.v - (self.next_at - self.v_at)).max(0.0) + s;
            self.v_at = self.next_at;
            self.next += 1;
            self.next_at += self.gap(self.next);
        }
        (self.v - (t - self.v_at)).max(0.0)
    }
}

impl ProbeParams {
    /// The replica's arrivals over the run, on average: `probes × probeMs × load / mean`.
    pub fn arrivals(&self) -> f64 {
        self.probes as f64 * self.interval_ms * self.load / self.service.mean_ms()
    }

    /// Checks every field, naming the first bad one.
    pub fn check(&self) -> Result<(), ParamError> {
        let p = self;
        PROBE_LOAD.check("probeLoad", p.load)?;
        super::positive_ms("probeMs", p.interval_ms)?;
        PROBES.check("probes", p.probes)?;
        if self.arrivals() > MAX_ARRIVALS {
            return Err(ParamError::Conflict {
                param: "probeMs",
                reason: format!(
                    "× probes spans {} arrivals at the replica; at most {MAX_ARRIVALS} are simulated: probe more often or fewer times",
                    crate::error::readable(libm::ceil(self.arrivals()))
                ),
            });
        }
        Ok(())
    }
}

/// Runs both clients against the same replica, under `seed`.
pub fn simulate_probe(params: ProbeParams, seed: u64) -> Result<ProbeResult, ParamError> {
    params.check()?;
    let p = &params;
    let sampler = ServiceSampler::shared(p.service.clone());
    let rate = p.load / p.service.mean_ms();
    let probe_work = |k: u64| sampler.sample(SampleStream::at(seed, STREAM, k, 2, 0)).ms;
    let warm = p.probes / 10;

    let mut open = Measurement::default();
    let mut queue = Workload::new(seed, rate, Rc::clone(&sampler));
    for k in 0..p.probes {
        let at = k as f64 * p.interval_ms;
        let latency = queue.at(at) + probe_work(k);
        if k >= warm {
            open.record(latency);
        }
    }

    let (mut raw, mut corrected) = (Measurement::default(), Measurement::default());
    let mut queue = Workload::new(seed, rate, Rc::clone(&sampler));
    let end = p.probes as f64 * p.interval_ms;
    let warm_until = warm as f64 * p.interval_ms;
    let (mut at, mut k) = (0.0f64, 0u64);
    while at < end {
        let latency = queue.at(at) + probe_work(k);
        if at >= warm_until {
            raw.record(latency);
            corrected.record_with_expected_interval(latency, p.interval_ms);
        }
        at = (at + p.interval_ms).max(at + latency);
        k += 1;
    }
    let theory_mean_ms =
        no_backup_mean_ms(&p.service, p.load)?.expect("a load below 0.95 is stable");
    Ok(ProbeResult {
        params,
        open,
        raw,
        corrected,
        theory_mean_ms,
    })
}
