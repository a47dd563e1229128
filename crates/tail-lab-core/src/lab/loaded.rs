//! Hedging on loaded replicas: a discrete-event simulation (seed 000/001 §3, seed 003 §6–8).
//!
//! `replicas` FIFO single servers (default 10) serve an open-loop Poisson stream of requests at
//! utilisation `load` (offered work over capacity, before duplicates). Each request goes to a
//! uniformly random replica. Depending on the [`LoadedPolicy`] a backup goes to a *different*
//! random replica — after a delay (`Hedge`) or at once (`Duplicate`) — and queues there like any
//! other request.
//!
//! **Cancellation modelled.** When either copy completes, the request is answered and the other
//! copy is cancelled:
//! - waiting in a queue: removed, it costs nothing;
//! - in service in the ordinary (body) mode: the server is freed at once, and the copy cost its
//!   service time so far;
//! - in service in the slow mode: nothing happens until the hiccup ends. The slow mode is the
//!   *replica's* one-second hiccup, which blocks everyone queued behind it, and a cancel message
//!   cannot interrupt it; the copy costs its whole slow service time.
//!
//! With [`Cancellation::Never`] both copies always run to completion: the adverse case of
//! seed 003 §6, where a fraction `h` of duplicated work turns utilisation `ρ` into `(1 + h)ρ`.
//!
//! Outputs per run: p50/p99/p99.9 of request latency (arrival to first answer), extra requests
//! (fraction of requests that sent a backup), extra work (service time the backups consumed,
//! over the primaries' full service time) and capacity cost (server time actually consumed
//! minus the primaries' full service time, per unit of capacity: the utilisation the policy
//! costs on top of the offered load). A run past the stability boundary is reported as
//! unstable, with no latency numbers.
//!
//! Warm-up: the first tenth of the requests (by arrival) are simulated but not measured.
//! Randomness is addressed per request (arrival gap, replica choices, both copies' service
//! times), so two policies at the same load and seed see the same arrivals and the same work.

use crate::sampling::address::{RequestKey, Stream};
use crate::error::{ParamError, check_count, check_open, check_range};
use crate::lab::hedge_idle::Percentiles;
use crate::sampling::histogram::Histogram;
use crate::lab::service::{ServiceModel, ServiceSampler};
use crate::sampling::histogram::shared_bins;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// When a backup is sent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadedPolicy {
    /// No backups.
    None,
    /// A backup once the request has been outstanding `delay_ms` (ms, > 0) without an answer.
    Hedge {
        /// The delay (ms).
        delay_ms: f64,
    },
    /// A backup at arrival, for every request (a hedge with delay 0).
    Duplicate,
}

impl LoadedPolicy {
    /// The stable machine name (`"none"`, `"hedge"`, `"duplicate"`).
    pub fn name(&self) -> &'static str {
        match self {
            LoadedPolicy::None => "none",
            LoadedPolicy::Hedge { .. } => "hedge",
            LoadedPolicy::Duplicate => "duplicate",
        }
    }

    /// The policy called `name` (`"none"`, `"hedge"`, `"duplicate"`); `hedge` waits the idle
    /// p95 calibrated under `seed` ([`calibrated_hedge_delay`]).
    pub fn from_name(name: &str, seed: u64) -> Result<Self, ParamError> {
        match name {
            "none" => Ok(LoadedPolicy::None),
            "hedge" => Ok(LoadedPolicy::Hedge {
                delay_ms: calibrated_hedge_delay(seed),
            }),
            "duplicate" => Ok(LoadedPolicy::Duplicate),
            other => Err(ParamError::UnknownName {
                param: "policy",
                got: other.to_string(),
                expected: "\"none\", \"hedge\", \"duplicate\"",
            }),
        }
    }

    fn delay_ms(&self) -> Option<f64> {
        match *self {
            LoadedPolicy::None => None,
            LoadedPolicy::Hedge { delay_ms } => Some(delay_ms),
            LoadedPolicy::Duplicate => Some(0.0),
        }
    }
}

/// What happens to the losing copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cancellation {
    /// Cancelled when the other copy answers (see the module doc for what that frees).
    OnFirstAnswer,
    /// Only a copy still waiting in a queue is removed; a copy already in service runs to
    /// completion (the server cannot be interrupted, seed 003 §7).
    QueuedOnly,
    /// Never cancelled: both copies run to completion.
    Never,
}

/// The service-time distribution of a loaded run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadedService {
    /// The Lab's lognormal body with a rare one-second hiccup.
    Lab(ServiceModel),
    /// Exponential service with this mean (ms): the M/M/1 reference.
    Exponential {
        /// Mean service time (ms).
        mean_ms: f64,
    },
}

impl LoadedService {
    fn mean_ms(&self) -> f64 {
        match self {
            LoadedService::Lab(m) => m.mean_ms(),
            LoadedService::Exponential { mean_ms } => *mean_ms,
        }
    }
}

/// One loaded-replica run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadedConfig {
    replicas: u32,
    load: f64,
    policy: LoadedPolicy,
    cancellation: Cancellation,
    service: LoadedService,
    requests: u64,
    seed: u64,
}

/// The outcome of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadedResult {
    /// Offered utilisation (0..), before duplicates.
    pub load: f64,
    /// The policy's name.
    pub policy: &'static str,
    /// False when the run is past its stability boundary: then `latency` is `None`.
    pub stable: bool,
    /// Request latency percentiles (ms), measured after warm-up; `None` when unstable.
    pub latency: Option<Percentiles>,
    /// Mean request latency (ms) after warm-up; `None` when unstable.
    pub mean_ms: Option<f64>,
    /// Mean time a single copy spent in its replica (ms, queueing plus service), over copies
    /// that ran to completion; `None` when unstable.
    pub copy_sojourn_ms: Option<f64>,
    /// Fraction (0..1) of requests that sent a backup.
    pub extra_requests: f64,
    /// Backup service time over the primaries' full service time (fraction).
    pub extra_work: f64,
    /// Server time consumed beyond the primaries' full service time, per unit of capacity
    /// (utilisation, 0..).
    pub capacity_cost: f64,
}

impl LoadedConfig {
    /// A run of `requests` (1000..=10^8) requests at utilisation `load` (in (0, 2]; ≥ 1 is a valid
    /// question whose answer is "unstable") over `replicas` (2..=1000) replicas.
    pub fn new(
        replicas: u32,
        load: f64,
        policy: LoadedPolicy,
        requests: u64,
        seed: u64,
    ) -> Result<Self, ParamError> {
        check_count(
            "replicas",
            u64::from(replicas),
            2,
            1000,
            "an integer in 2..=1000 (hedging needs a second replica)",
        )?;
        check_open("load", load, 0.0, 2.000_000_1, "a utilisation in (0, 2]")?;
        check_count(
            "requests",
            requests,
            1000,
            100_000_000,
            "an integer in 1000..=100000000",
        )?;
        if let LoadedPolicy::Hedge { delay_ms } = policy {
            check_range("delay_ms", delay_ms, 0.0, 1e9, "a delay in ms in 0..=1e9")?;
        }
        Ok(LoadedConfig {
            replicas,
            load,
            policy,
            cancellation: Cancellation::OnFirstAnswer,
            service: LoadedService::Lab(ServiceModel::default()),
            requests,
            seed,
        })
    }

    /// Uses another service distribution.
    pub fn with_service(mut self, service: LoadedService) -> Result<Self, ParamError> {
        if let LoadedService::Exponential { mean_ms } = service {
            check_range("mean_ms", mean_ms, 1e-6, 1e9, "a mean in ms in 1e-6..=1e9")?;
        }
        self.service = service;
        Ok(self)
    }

    /// Uses another cancellation rule.
    pub fn with_cancellation(mut self, cancellation: Cancellation) -> Self {
        self.cancellation = cancellation;
        self
    }

    /// Simulates the run.
    pub fn run(&self) -> LoadedResult {
        Simulation::new(self).run()
    }
}

/// The idle-replica p95 of the Lab's service time, calibrated on its own stream under `seed`
/// (2^18 draws): the delay of the `hedge` policy.
pub fn calibrated_hedge_delay(seed: u64) -> f64 {
    ServiceSampler::new(ServiceModel::default()).calibrated_quantile(
        seed,
        Stream::LoadedCalibration,
        0.95,
        1 << 18,
    )
}

// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq)]
enum Event {
    Arrival(u64),
    HedgeTimer(u64),
    Completion { replica: u32, copy: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Scheduled {
    time: f64,
    seq: u64,
    event: Event,
}

impl Eq for Scheduled {}
impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> Ordering {
        // Min-heap on (time, seq).
        other
            .time
            .total_cmp(&self.time)
            .then(other.seq.cmp(&self.seq))
    }
}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CopyState {
    Waiting,
    InService,
    Done,
    Cancelled,
}

#[derive(Debug, Clone, Copy)]
struct Copy {
    request: u64,
    service_ms: f64,
    slow: bool,
    enqueued_at: f64,
    started_at: f64,
    state: CopyState,
    backup: bool,
    replica: u32,
}

#[derive(Debug, Clone, Default)]
struct Replica {
    queue: VecDeque<u64>,
    serving: Option<u64>,
}

#[derive(Debug, Clone, Copy)]
struct Request {
    arrival: f64,
    answered: bool,
    copies: [Option<u64>; 2],
    backup_replica: u32,
}

struct Simulation<'a> {
    config: &'a LoadedConfig,
    sampler: Option<ServiceSampler>,
    heap: BinaryHeap<Scheduled>,
    seq: u64,
    replicas: Vec<Replica>,
    copies: Vec<Copy>,
    requests: Vec<Request>,
    arrival_rate: f64,
    latency: Histogram,
    latency_sum: f64,
    measured: u64,
    warmup: u64,
    block_sums: [f64; 4],
    block_counts: [u64; 4],
    sojourn_sum: f64,
    sojourn_count: u64,
    backups: u64,
    backup_work: f64,
    primary_work: f64,
    consumed_work: f64,
    last_arrival: f64,
}

impl<'a> Simulation<'a> {
    fn new(config: &'a LoadedConfig) -> Self {
        let mean = config.service.mean_ms();
        Simulation {
            config,
            sampler: match config.service {
                LoadedService::Lab(m) => Some(ServiceSampler::new(m)),
                LoadedService::Exponential { .. } => None,
            },
            heap: BinaryHeap::new(),
            seq: 0,
            replicas: vec![Replica::default(); config.replicas as usize],
            copies: Vec::with_capacity(config.requests as usize * 2),
            requests: Vec::with_capacity(config.requests as usize),
            arrival_rate: config.load * f64::from(config.replicas) / mean,
            latency: Histogram::new(),
            latency_sum: 0.0,
            measured: 0,
            warmup: config.requests / 10,
            block_sums: [0.0; 4],
            block_counts: [0; 4],
            sojourn_sum: 0.0,
            sojourn_count: 0,
            backups: 0,
            backup_work: 0.0,
            primary_work: 0.0,
            consumed_work: 0.0,
            last_arrival: 0.0,
        }
    }

    fn schedule(&mut self, time: f64, event: Event) {
        self.seq += 1;
        self.heap.push(Scheduled {
            time,
            seq: self.seq,
            event,
        });
    }

    fn key(&self, k: u64) -> RequestKey {
        RequestKey::new(self.config.seed, Stream::LoadedReplicas, k)
    }

    /// Service time of copy `attempt` of request `k`, and whether it is a hiccup.
    fn service(&self, k: u64, attempt: u32) -> (f64, bool) {
        let stream = self.key(k).sample(0, attempt);
        match (&self.sampler, self.config.service) {
            (Some(s), _) => {
                let d = s.sample(stream);
                (d.ms, d.slow)
            }
            (None, LoadedService::Exponential { mean_ms }) => {
                let mut stream = stream;
                (-mean_ms * libm::log(stream.next_open_unit()), false)
            }
            (None, LoadedService::Lab(_)) => unreachable!("Lab service always has a sampler"),
        }
    }

    fn uniform_below(bits: u64, n: u32) -> u32 {
        ((u128::from(bits) * u128::from(n)) >> 64) as u32
    }

    fn run(mut self) -> LoadedResult {
        let stable_by_theory = self.theory_stable();
        if self.config.load > 0.0 {
            self.schedule(self.gap(0), Event::Arrival(0));
        }
        while let Some(Scheduled { time, event, .. }) = self.heap.pop() {
            match event {
                Event::Arrival(k) => self.arrive(time, k),
                Event::HedgeTimer(k) => self.hedge(time, k),
                Event::Completion { replica, copy } => self.complete(time, replica, copy),
            }
        }
        self.result(stable_by_theory)
    }

    /// Stability known in closed form: no backups → ρ < 1; backups never cancelled → every
    /// request duplicated doubles the work, (1 + h)ρ < 1 with h = 1. Delayed hedges without
    /// cancellation and anything with cancellation are judged from the run itself.
    fn theory_stable(&self) -> Option<bool> {
        let rho = self.config.load;
        match (self.config.policy, self.config.cancellation) {
            (LoadedPolicy::None, _) => Some(rho < 1.0),
            (LoadedPolicy::Duplicate, Cancellation::Never) => {
                Some(crate::theory::duplication_stable(rho, 1.0))
            }
            _ if rho >= 1.0 => Some(false),
            _ => None,
        }
    }

    fn gap(&self, k: u64) -> f64 {
        let mut s = self.key(k).sample(2, 0);
        -libm::log(s.next_open_unit()) / self.arrival_rate
    }

    fn arrive(&mut self, now: f64, k: u64) {
        self.last_arrival = now;
        let mut choice = self.key(k).sample(1, 0);
        let n = self.config.replicas;
        let primary = Self::uniform_below(choice.next_bits(), n);
        let backup_replica = (primary + 1 + Self::uniform_below(choice.next_bits(), n - 1)) % n;
        self.requests.push(Request {
            arrival: now,
            answered: false,
            copies: [None, None],
            backup_replica,
        });
        let (service, _) = self.service(k, 0);
        self.primary_work += service;
        self.enqueue(now, k, primary, false);
        match self.config.policy.delay_ms() {
            Some(d) if d <= 0.0 => self.hedge(now, k),
            Some(d) => self.schedule(now + d, Event::HedgeTimer(k)),
            None => {}
        }
        if k + 1 < self.config.requests {
            let next = now + self.gap(k + 1);
            self.schedule(next, Event::Arrival(k + 1));
        }
    }

    fn hedge(&mut self, now: f64, k: u64) {
        let r = self.requests[k as usize];
        if r.answered || r.copies[1].is_some() {
            return;
        }
        self.backups += 1;
        self.enqueue(now, k, r.backup_replica, true);
    }

    fn enqueue(&mut self, now: f64, k: u64, replica: u32, backup: bool) {
        let (service_ms, slow) = self.service(k, u32::from(backup));
        let id = self.copies.len() as u64;
        self.copies.push(Copy {
            request: k,
            service_ms,
            slow,
            enqueued_at: now,
            started_at: 0.0,
            state: CopyState::Waiting,
            backup,
            replica,
        });
        self.requests[k as usize].copies[usize::from(backup)] = Some(id);
        self.replicas[replica as usize].queue.push_back(id);
        if self.replicas[replica as usize].serving.is_none() {
            self.start_next(now, replica);
        }
    }

    /// Starts the next live copy at the head of `replica`'s queue (cancelled ones are skipped).
    fn start_next(&mut self, now: f64, replica: u32) {
        while let Some(id) = self.replicas[replica as usize].queue.pop_front() {
            let c = &mut self.copies[id as usize];
            if c.state == CopyState::Waiting {
                c.state = CopyState::InService;
                c.started_at = now;
                let done = now + c.service_ms;
                self.replicas[replica as usize].serving = Some(id);
                self.schedule(done, Event::Completion { replica, copy: id });
                return;
            }
        }
        self.replicas[replica as usize].serving = None;
    }

    fn account(&mut self, copy: &Copy, worked: f64) {
        self.consumed_work += worked;
        if copy.backup {
            self.backup_work += worked;
        }
    }

    fn complete(&mut self, now: f64, replica: u32, id: u64) {
        // A completion event for a copy that was cancelled and freed its server is stale.
        if self.replicas[replica as usize].serving != Some(id) {
            return;
        }
        let copy = self.copies[id as usize];
        match copy.state {
            CopyState::InService => {
                self.copies[id as usize].state = CopyState::Done;
                self.account(&copy, copy.service_ms);
                self.sojourn_sum += now - copy.enqueued_at;
                self.sojourn_count += 1;
                self.answer(now, copy.request);
            }
            CopyState::Cancelled => {
                // A hiccup that could not be interrupted has ended.
                self.account(&copy, copy.service_ms);
            }
            CopyState::Waiting | CopyState::Done => {}
        }
        self.start_next(now, replica);
    }

    fn answer(&mut self, now: f64, k: u64) {
        let r = &mut self.requests[k as usize];
        if r.answered {
            return;
        }
        r.answered = true;
        let (arrival, copies) = (r.arrival, r.copies);
        let latency = now - arrival;
        if k >= self.warmup {
            self.latency.record(shared_bins(), latency);
            self.latency_sum += latency;
            self.measured += 1;
            let span = (self.config.requests - self.warmup).max(1);
            let block = (((k - self.warmup) * 4) / span).min(3) as usize;
            self.block_sums[block] += latency;
            self.block_counts[block] += 1;
        }
        if self.config.cancellation == Cancellation::Never {
            return;
        }
        for id in copies.into_iter().flatten() {
            let c = self.copies[id as usize];
            match c.state {
                CopyState::Waiting => self.copies[id as usize].state = CopyState::Cancelled,
                CopyState::InService if self.config.cancellation == Cancellation::QueuedOnly => {}
                CopyState::InService => {
                    self.copies[id as usize].state = CopyState::Cancelled;
                    if !c.slow {
                        // Freed at once: it cost its service so far.
                        self.account(&c, now - c.started_at);
                        self.start_next(now, c.replica);
                    }
                }
                CopyState::Done | CopyState::Cancelled => {}
            }
        }
    }

    fn result(self, stable_by_theory: Option<bool>) -> LoadedResult {
        let capacity = f64::from(self.config.replicas) * self.last_arrival.max(f64::MIN_POSITIVE);
        // Empirical instability: the mean latency keeps climbing from block to block and the
        // last quarter waits at least twice as long as the first. A stable queue's block means
        // fluctuate; an unstable one's grow without bound.
        let means: Vec<f64> = self
            .block_sums
            .iter()
            .zip(self.block_counts)
            .map(|(s, c)| s / c.max(1) as f64)
            .collect();
        let drifting = means.windows(2).all(|w| w[1] > w[0]) && means[3] > 2.0 * means[0];
        let stable = stable_by_theory.unwrap_or(!drifting) && self.measured > 0;
        LoadedResult {
            load: self.config.load,
            policy: self.config.policy.name(),
            stable,
            latency: stable.then(|| Percentiles::of(&self.latency)),
            mean_ms: stable.then(|| self.latency_sum / self.measured as f64),
            copy_sojourn_ms: stable.then(|| self.sojourn_sum / self.sojourn_count.max(1) as f64),
            extra_requests: self.backups as f64 / self.config.requests as f64,
            extra_work: self.backup_work / self.primary_work,
            capacity_cost: (self.consumed_work - self.primary_work) / capacity,
        }
    }
}

/// The standard sweep: loads 0.1..=0.9, policies none, hedge (idle p95), duplicate.
pub fn sweep(requests: u64, seed: u64) -> Result<Vec<LoadedResult>, ParamError> {
    let policies = ["none", "hedge", "duplicate"]
        .map(|name| LoadedPolicy::from_name(name, seed))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(27);
    for i in 1..=9 {
        let load = f64::from(i) / 10.0;
        for &policy in &policies {
            out.push(LoadedConfig::new(10, load, policy, requests, seed)?.run());
        }
    }
    Ok(out)
}

/// An exponential service distribution with the given mean, for the M/M/1 reference.
pub fn exponential(mean_ms: f64) -> LoadedService {
    LoadedService::Exponential { mean_ms }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters_are_rejected_by_name() {
        let p = LoadedPolicy::None;
        assert_eq!(
            LoadedConfig::new(1, 0.5, p, 10_000, 1).unwrap_err().param(),
            "replicas"
        );
        assert_eq!(
            LoadedConfig::new(10, -0.1, p, 10_000, 1)
                .unwrap_err()
                .param(),
            "load"
        );
        assert_eq!(
            LoadedConfig::new(10, f64::NAN, p, 10_000, 1)
                .unwrap_err()
                .param(),
            "load"
        );
        assert_eq!(
            LoadedConfig::new(10, 0.5, p, 10, 1).unwrap_err().param(),
            "requests"
        );
        let bad = LoadedPolicy::Hedge { delay_ms: -1.0 };
        assert_eq!(
            LoadedConfig::new(10, 0.5, bad, 10_000, 1)
                .unwrap_err()
                .param(),
            "delay_ms"
        );
    }

    #[test]
    fn policies_by_name() {
        assert_eq!(
            LoadedPolicy::from_name("none", 1).unwrap(),
            LoadedPolicy::None
        );
        assert_eq!(
            LoadedPolicy::from_name("duplicate", 1).unwrap(),
            LoadedPolicy::Duplicate
        );
        assert_eq!(
            LoadedPolicy::from_name("hedge", 4).unwrap(),
            LoadedPolicy::Hedge {
                delay_ms: calibrated_hedge_delay(4)
            }
        );
        assert_eq!(
            LoadedPolicy::from_name("tied", 1).unwrap_err().param(),
            "policy"
        );
    }

    #[test]
    fn past_the_boundary_is_unstable_not_a_number() {
        let r = LoadedConfig::new(10, 1.0, LoadedPolicy::None, 5_000, 1)
            .unwrap()
            .run();
        assert!(!r.stable && r.latency.is_none() && r.mean_ms.is_none());
        let r = LoadedConfig::new(10, 0.6, LoadedPolicy::Duplicate, 5_000, 1)
            .unwrap()
            .with_cancellation(Cancellation::Never)
            .run();
        assert!(!r.stable && r.latency.is_none());
    }

    #[test]
    fn no_backups_cost_nothing_and_duplicates_go_elsewhere() {
        let r = LoadedConfig::new(10, 0.5, LoadedPolicy::None, 20_000, 3)
            .unwrap()
            .run();
        assert_eq!(r.extra_requests, 0.0);
        assert_eq!(r.extra_work, 0.0);
        assert!(r.capacity_cost.abs() < 1e-9);
        let d = LoadedConfig::new(10, 0.2, LoadedPolicy::Duplicate, 20_000, 3)
            .unwrap()
            .run();
        assert_eq!(d.extra_requests, 1.0);
        assert!(d.capacity_cost > 0.0);
        // Duplicating at low load beats waiting on one replica.
        let none = LoadedConfig::new(10, 0.2, LoadedPolicy::None, 20_000, 3)
            .unwrap()
            .run();
        assert!(d.latency.unwrap().p99 < none.latency.unwrap().p99);
    }
}
