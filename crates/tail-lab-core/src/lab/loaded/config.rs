//! A loaded run's parameters ([`LoadedConfig`], [`LoadedService`]), its outcome
//! ([`LoadedResult`], [`Unstable`]), its streams and the standard sweep.

use super::engine::{Simulation, no_backup_p95};
use super::policy::{Cancellation, DelayBasis, HedgeDelay, LoadedPolicy};
use crate::error::{CountRange, ParamError, check_range};
use crate::lab::hedge_idle::Percentiles;
use crate::lab::replicas::{Answers, draws};
use crate::lab::service::{ServiceModel, ServiceSampler};
use crate::sampling::address::{RequestKey, Stream};
use crate::sampling::batch::RunIntervals;
use crate::sampling::histogram::{BIN_COUNT, shared_bins};
use std::cell::RefCell;
use std::rc::Rc;

/// The random stream of the loaded-replica simulation (id 6).
pub const STREAM: Stream = Stream::new(6);
/// The random stream that calibrates a loaded-replica hedge delay on idle service (id 7).
pub const CALIBRATION_STREAM: Stream = Stream::new(7);
/// The random stream of the no-backup run whose latency p95 sets a hedge delay "at the same
/// load": the same model as [`STREAM`] on other draws (id 9).
pub const DELAY_CALIBRATION_STREAM: Stream = Stream::new(9);

/// Quantile level of no-backup latency a calibrated hedge waits for (Dean and Barroso's p95).
pub const HEDGE_QUANTILE: f64 = 0.95;

// The bounds of a run, each one literal for the constant and its error text. The shortest
// exponential mean, 0.2 ms, has a median of 0.139 ms: at least the service models' 0.125 ms
// (`service::MIN_SERVICE_P50_MS`), so a median is never read from under the shared histogram's
// first edge (0.0625 ms), even for the faster of two copies (median 0.069 ms). A mean of 1e-6
// once ran, and read p50 0.0631 ms, the first bin, for a true 7e-7 ms (issue 32 item 6).
macro_rules! min_mean_ms {
    () => {
        0.2
    };
}
macro_rules! max_mean_ms {
    () => {
        1e9
    };
}
macro_rules! min_load {
    () => {
        0.001
    };
}
macro_rules! max_load {
    () => {
        2
    };
}

/// Replicas a run may have: hedging needs a second one.
pub const REPLICAS: CountRange = crate::count_range!(2, 1000, " (hedging needs a second replica)");
/// Requests a run may simulate.
pub const REQUESTS: CountRange = crate::count_range!(1000, 100000000);
/// Requests one call of a binding may simulate. Memory follows the requests in flight (a few
/// hundred in a stable run), but past the stability boundary most of the run is in flight at
/// the end: about 200 bytes each, so 2,000,000 keeps the worst case near 400 MB, and the work
/// near seconds.
pub const REQUESTS_PER_CALL: CountRange = crate::count_range!(1000, 2000000);
/// The lowest utilisation accepted: below it the replicas sit idle for so long between
/// arrivals that the clock loses the service times' precision.
pub const MIN_LOAD: f64 = min_load!();
/// The highest utilisation accepted (≥ 1 is a valid question whose answer is "unstable").
#[allow(
    clippy::unnecessary_cast,
    reason = "the literal is written as an integer so that its error text reads as one"
)]
pub const MAX_LOAD: f64 = max_load!() as f64;
pub(super) const LOAD_EXPECTED: &str =
    concat!("a utilisation in ", min_load!(), "..=", max_load!());
/// The shortest mean of an exponential service (ms).
pub const MIN_MEAN_MS: f64 = min_mean_ms!();
/// The longest mean of an exponential service (ms).
pub const MAX_MEAN_MS: f64 = max_mean_ms!();
pub(super) const MEAN_EXPECTED: &str =
    concat!("a mean in ms in ", min_mean_ms!(), "..=", max_mean_ms!());

/// The mean of an exponential service, in ms: in [`MIN_MEAN_MS`]..=[`MAX_MEAN_MS`], checked
/// when made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanMs(f64);

impl MeanMs {
    /// `mean_ms` when it is finite and in range.
    pub fn new(mean_ms: f64) -> Result<Self, ParamError> {
        check_range("mean_ms", mean_ms, MIN_MEAN_MS, MAX_MEAN_MS, MEAN_EXPECTED).map(MeanMs)
    }

    /// The mean in ms.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// The service-time distribution of a loaded run.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadedService {
    /// A lognormal body with a rare slow mode (the Lab's model by default).
    Lab(ServiceModel),
    /// Exponential service with this mean: the M/M/1 reference ([`exponential`]).
    Exponential(MeanMs),
}

impl LoadedService {
    /// The mean service time (ms).
    pub(crate) fn mean_ms(&self) -> f64 {
        match self {
            LoadedService::Lab(m) => m.mean_ms(),
            LoadedService::Exponential(mean) => mean.get(),
        }
    }

    /// The sampler a run draws the Lab's service from (`None` for an exponential service).
    pub(crate) fn sampler(&self) -> Option<Rc<ServiceSampler>> {
        match self {
            LoadedService::Lab(m) => Some(ServiceSampler::shared(m.clone())),
            LoadedService::Exponential(_) => None,
        }
    }

    /// The service time (ms) of copy `attempt` of the request keyed `key`, and whether it is
    /// a hiccup, from the copy's [`draws::SERVICE`] sub-stream; `sampler` is
    /// [`Self::sampler`]'s.
    #[inline]
    pub(crate) fn sample_copy(
        &self,
        sampler: Option<&ServiceSampler>,
        key: RequestKey,
        attempt: u32,
    ) -> (f64, bool) {
        let mut stream = key.sample(draws::SERVICE, attempt);
        match (sampler, self) {
            (_, &LoadedService::Exponential(mean)) => {
                (-mean.get() * libm::log(stream.next_open_unit()), false)
            }
            (Some(s), LoadedService::Lab(_)) => {
                let d = s.sample(stream);
                (d.ms, d.slow)
            }
            (None, LoadedService::Lab(_)) => unreachable!("Lab service always has a sampler"),
        }
    }
}

/// The named parameters of a loaded-replica run, for [`LoadedConfig::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadedParams {
    /// FIFO replicas ([`REPLICAS`]).
    pub replicas: u32,
    /// Offered utilisation before any backup ([`MIN_LOAD`]..=[`MAX_LOAD`]).
    pub load: f64,
    /// What a request sends besides its primary.
    pub policy: LoadedPolicy,
    /// Requests simulated ([`REQUESTS`]).
    pub requests: u64,
    /// The seed.
    pub seed: u64,
}

/// One loaded-replica run.
///
/// ```
/// use tail_lab_core::lab::loaded::{LoadedConfig, LoadedParams, LoadedPolicy, exponential};
///
/// // Ten FIFO replicas at 50% load with exponential service of mean 10 ms and no backups: each
/// // replica is an M/M/1 queue, whose mean time in system is 10 / (1 − 0.5) = 20 ms.
/// let config = LoadedConfig::new(LoadedParams { replicas: 10, load: 0.5, policy: LoadedPolicy::None, requests: 50_000, seed: 1 })
///     .unwrap()
///     .with_service(exponential(10.0).unwrap());
/// let r = config.run();
/// assert!(r.stable);
/// assert!((r.mean_ms.unwrap() / 20.0 - 1.0).abs() < 0.1);
/// // A delay of 0 duplicates every request.
/// let duplicate = LoadedPolicy::after_delay(0.0).unwrap();
/// let r = LoadedConfig::new(LoadedParams { replicas: 10, load: 0.3, policy: duplicate, requests: 20_000, seed: 1 }).unwrap().run();
/// assert_eq!((r.policy.name(), r.extra_requests), ("duplicate", 1.0));
/// // Out-of-range parameters are refused by name.
/// let one = LoadedConfig::new(LoadedParams { replicas: 1, load: 0.5, policy: LoadedPolicy::None, requests: 50_000, seed: 1 });
/// assert_eq!(one.unwrap_err().param(), "replicas");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedConfig {
    pub(super) replicas: u32,
    pub(super) load: f64,
    pub(super) policy: LoadedPolicy,
    pub(super) cancellation: Cancellation,
    pub(super) service: LoadedService,
    pub(super) requests: u64,
    pub(super) seed: u64,
    /// The random stream of the simulation ([`STREAM`] unless another model runs this engine).
    pub(crate) stream: Stream,
    /// The stream of the no-backup run a loaded hedge delay is the p95 of
    /// ([`DELAY_CALIBRATION_STREAM`] unless another model runs this engine).
    pub(crate) delay_stream: Stream,
    /// When a cancellation lands (ms after it is sent, 0..=∞): `None` applies the rule at the
    /// answer itself, the loaded model's reading (`lab::cancellation` sets it).
    pub(crate) cancel_delay_ms: Option<f64>,
    /// The share (0..=1) of requests that belong to tenant A, the only tenant that sends
    /// backups; each tenant's latency is then measured apart. `None`: one tenant, every
    /// request follows the policy (`lab::fairness` sets it).
    pub(crate) tenant_a_share: Option<f64>,
}

/// One tenant's latency in a run with two ([`LoadedConfig::run_with_tenants`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TenantOutcome {
    /// The tenant's measured requests (after warm-up).
    pub(crate) measured: u64,
    /// Its latency percentiles (ms); `None` when the run is unstable or it measured none.
    pub(crate) latency: Option<Percentiles>,
    /// Its mean latency (ms); `None` likewise.
    pub(crate) mean_ms: Option<f64>,
    /// Its batch-means intervals; `None` likewise.
    pub(crate) intervals: Option<RunIntervals>,
}

/// The outcome of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadedResult {
    /// Offered utilisation (0..), before duplicates.
    pub load: f64,
    /// The policy the run used (its name: [`LoadedPolicy::name`]).
    pub policy: LoadedPolicy,
    /// The cancellation rule the run used.
    pub cancellation: Cancellation,
    /// The delay (ms) after which backups were sent: 0 for duplicates, `None` without backups
    /// or when a calibrated delay has no finite value (no-backup run unstable).
    pub delay_ms: Option<f64>,
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
    /// (utilisation; negative when cancelled primaries gave back more than backups cost).
    pub capacity_cost: f64,
    /// Server time actually consumed per unit of capacity, over the window in which requests
    /// arrived (`load + capacity_cost`). In 0..=1 for a stable run; near 1 the replicas are at
    /// capacity and latencies grow with the run's length. Past the stability boundary the
    /// backlog is still served after the last arrival, so it exceeds 1 (up to about 4 with
    /// duplicates that are never cancelled): there it reads as the work the run demanded per
    /// unit of the capacity it had while requests arrived.
    pub utilisation: f64,
    /// The most requests in flight at once (arrived, and not yet answered with every copy
    /// finished): the simulation's memory is proportional to this, not to `requests`.
    pub peak_in_flight: u64,
    /// Why the run is unstable, or has latencies past the histogram's top ([`Unstable`]);
    /// `None` when it is stable.
    pub unstable: Option<Unstable>,
    /// Share (0..=1) of the backups sent whose service ran to its end: they answered first, or
    /// lost but were not stopped (a hiccup under [`Cancellation::Either`], an in-service loser
    /// under [`Cancellation::Queued`], every loser under [`Cancellation::Never`]). Under the
    /// default rule a backup completes exactly when it answers before its primary. `None`
    /// when no backup was sent.
    pub backups_completed: Option<f64>,
    /// 95% batch-means intervals (ms) of the mean latency, the p50 and the p99, from 20
    /// batches of consecutive answers; `None` when the run is not stable.
    pub intervals: Option<RunIntervals>,
}

/// Most requests a loaded run lets wait for an answer at once, unless the closed form says it
/// is stable. A run whose backlog passes it takes no more arrivals: the requests that did
/// arrive are served to the end (so its work and costs are whole), and it is reported
/// unstable ([`Unstable::Runaway`]). Its memory stays bounded however long the run. No run of
/// at most this many requests can reach it, so every such run's numbers are the same as
/// without the bound.
pub const MAX_IN_FLIGHT: usize = 200_000;

/// Why a loaded run is reported unstable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unstable {
    /// The closed form says so: offered load ≥ 1, or duplicates that are never cancelled at
    /// twice the load ≥ 1.
    Overloaded,
    /// A hedge at the p95 of a no-backup run at the same load, and that run is itself
    /// unstable: there is no p95 to wait for, so no backups are sent.
    NoHedgeDelay,
    /// Measured: the mean latency climbed from each quarter of the run to the next, to more
    /// than twice the first quarter's.
    Drifting,
    /// More than [`MAX_IN_FLIGHT`] requests waited for an answer at once: no more arrived, and
    /// those that had were served to the end.
    Runaway {
        /// Requests that had arrived when arrivals stopped.
        arrived: u64,
    },
    /// Some measured latencies passed the top of the shared histogram (2^20 ms, about 17
    /// minutes): its percentiles would be clamped there, so none are reported.
    OffScale,
}

impl Unstable {
    /// The verdict on a run of loaded replicas (the loaded and tied engines'): a runaway
    /// (`runaway`, the arrivals when they stopped) first, then the closed form
    /// (`stable_by_theory`) when it knows, then the run's own drift, then a latency off the
    /// scale; `None` for a stable run.
    pub(crate) fn judge(
        runaway: Option<u64>,
        stable_by_theory: Option<bool>,
        answers: &Answers,
    ) -> Option<Unstable> {
        match (runaway, stable_by_theory) {
            (Some(arrived), _) => Some(Unstable::Runaway { arrived }),
            (None, Some(false)) => Some(Unstable::Overloaded),
            (None, None) if answers.drifting() => Some(Unstable::Drifting),
            _ if answers.off_scale() => Some(Unstable::OffScale),
            // Warm-up is a tenth of at least 1,000 requests, so a finished run measured some.
            _ => None,
        }
    }

    /// A sentence for a reader.
    pub fn describe(&self) -> String {
        match self {
            Unstable::Overloaded => {
                "the offered work is at or above the replicas' capacity, so queues grow without bound".into()
            }
            Unstable::NoHedgeDelay => {
                "the hedge waits for the p95 of a run without backups at this load, and that run is \
                 itself unstable, so there is no delay to wait for and no backups are sent"
                    .into()
            }
            Unstable::Drifting => {
                "the mean latency kept climbing through the run, to more than twice its first quarter's".into()
            }
            Unstable::Runaway { arrived } => format!(
                "more than {MAX_IN_FLIGHT} requests were waiting at once; arrivals stopped after \
                 {arrived}, and those were served to the end"
            ),
            Unstable::OffScale => format!(
                "some latencies passed the histogram's top ({} ms, about 17 minutes), so its \
                 percentiles cannot be measured",
                shared_bins().edges()[BIN_COUNT]
            ),
        }
    }
}

/// Consumed utilisation (fraction) from which a stable run counts as at capacity: its queues
/// are then critically loaded, so its latencies keep growing with the run's length and no one
/// number is the answer (duplicating at load 0.7 under the default rule: 0.7 × 1.43 ≈ 1).
pub const AT_CAPACITY: f64 = 0.98;

impl LoadedResult {
    /// True for a stable run whose replicas were busy at least [`AT_CAPACITY`] of the time.
    pub fn at_capacity(&self) -> bool {
        self.stable && self.utilisation >= AT_CAPACITY
    }
}

impl LoadedConfig {
    /// A run of `requests` ([`REQUESTS`]) requests at utilisation `load` ([`MIN_LOAD`]..=
    /// [`MAX_LOAD`]) over `replicas` ([`REPLICAS`]) replicas, with the Lab's service model and
    /// the default cancellation rule ([`Cancellation::Backup`]).
    pub fn new(params: LoadedParams) -> Result<Self, ParamError> {
        let LoadedParams {
            replicas,
            load,
            policy,
            requests,
            seed,
        } = params;
        REPLICAS.check("replicas", u64::from(replicas))?;
        check_range("load", load, MIN_LOAD, MAX_LOAD, LOAD_EXPECTED)?;
        REQUESTS.check("requests", requests)?;
        Ok(LoadedConfig {
            replicas,
            load,
            policy,
            cancellation: Cancellation::Backup,
            service: LoadedService::Lab(ServiceModel::default()),
            requests,
            seed,
            stream: STREAM,
            delay_stream: DELAY_CALIBRATION_STREAM,
            cancel_delay_ms: None,
            tenant_a_share: None,
        })
    }

    /// Runs on other random streams: `stream` for the simulation and `delay_stream` for the
    /// no-backup run whose p95 a loaded hedge waits for. The models built on this engine
    /// (cancellation delay, fairness) draw from their own streams; the same streams give the
    /// same arrivals and work.
    pub fn with_streams(mut self, stream: Stream, delay_stream: Stream) -> Self {
        self.stream = stream;
        self.delay_stream = delay_stream;
        self
    }

    /// Uses another service distribution.
    pub fn with_service(mut self, service: LoadedService) -> Self {
        self.service = service;
        self
    }

    /// Uses another cancellation rule.
    pub fn with_cancellation(mut self, cancellation: Cancellation) -> Self {
        self.cancellation = cancellation;
        self
    }

    /// The delay (ms) after which this run sends backups: `None` without backups, or when the
    /// delay is the p95 of a no-backup run that is itself unstable (load ≥ 1).
    pub fn delay_ms(&self) -> Option<f64> {
        match self.policy {
            LoadedPolicy::None => None,
            LoadedPolicy::Duplicate => Some(0.0),
            LoadedPolicy::Hedge(HedgeDelay::FixedMs(d)) => Some(d.get()),
            LoadedPolicy::Hedge(HedgeDelay::P95(DelayBasis::Idle)) => Some(match &self.service {
                LoadedService::Lab(m) => calibrated_idle_delay(m.clone(), self.seed),
                LoadedService::Exponential(mean) => -mean.get() * libm::log(1.0 - HEDGE_QUANTILE),
            }),
            LoadedPolicy::Hedge(HedgeDelay::P95(DelayBasis::Loaded)) => {
                let calibration = LoadedConfig {
                    policy: LoadedPolicy::None,
                    ..self.clone()
                };
                no_backup_p95(&calibration, self.delay_stream)
            }
        }
    }

    /// What a run costs, in work units of about 10 ns of wasm in Chromium on a 2-core machine
    /// (see BENCHMARKS.md): 60 units a request for each pass of the discrete-event simulation,
    /// and two passes for a hedge whose delay is the p95 of a no-backup run at the same load.
    /// Since issue 19 these are an upper bound, about twice the cost: a pass measures 140–225 ns
    /// a request in wasm (node 20) at load 0.7, and the p95 comes from Lindley's recursion at
    /// about 45 ns a request, not from a second event run. The weights stay, so that the bound's
    /// error text (in the binding) keeps its numbers; a call is refused no sooner than before.
    pub fn work_units(&self) -> f64 {
        let passes = match self.policy {
            LoadedPolicy::Hedge(HedgeDelay::P95(DelayBasis::Loaded)) => 2.0,
            _ => 1.0,
        };
        self.requests as f64 * 60.0 * passes
    }

    /// Simulates the run (calibrating its hedge delay first when it has one).
    pub fn run(&self) -> LoadedResult {
        self.run_observed(|_, _, _| {})
    }

    /// [`Self::run`] with an observer of each event (the trace's hook; see `engine`).
    pub(super) fn run_observed(
        &self,
        observe: impl FnMut(&Simulation<'_>, f64, super::engine::Event),
    ) -> LoadedResult {
        self.run_full(observe).0
    }

    /// [`Self::run`], with each tenant's latency when the run has two (`tenant_a_share`).
    pub(crate) fn run_with_tenants(&self) -> (LoadedResult, Option<[TenantOutcome; 2]>) {
        self.run_full(|_, _, _| {})
    }

    #[inline(always)]
    fn run_full(
        &self,
        observe: impl FnMut(&Simulation<'_>, f64, super::engine::Event),
    ) -> (LoadedResult, Option<[TenantOutcome; 2]>) {
        let delay = self.delay_ms();
        let (mut result, mut tenants) =
            Simulation::new(self, self.stream, delay).run_observed(observe);
        if matches!(self.policy, LoadedPolicy::Hedge(_)) && delay.is_none() {
            // No finite delay to wait for: the no-backup queue it is set from diverges.
            result.stable = false;
            result.unstable = Some(Unstable::NoHedgeDelay);
            result.latency = None;
            result.mean_ms = None;
            result.copy_sojourn_ms = None;
            for t in tenants.iter_mut().flatten() {
                *t = TenantOutcome {
                    latency: None,
                    mean_ms: None,
                    intervals: None,
                    ..*t
                };
            }
        }
        (result, tenants)
    }
}

/// The idle p95 of a service model's time, calibrated on its own stream under `seed`
/// (2^18 draws): the delay of a hedge with [`DelayBasis::Idle`].
///
/// It depends on the model and the seed alone, not on the load, so the last one computed is
/// kept per thread: a sweep over loads draws and sorts its 2^18 service times once, not at
/// every point. Only the time this saves can be observed.
pub fn calibrated_idle_delay(model: ServiceModel, seed: u64) -> f64 {
    thread_local! {
        static LAST: RefCell<Option<(ServiceModel, u64, f64)>> = const { RefCell::new(None) };
    }
    let hit = LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|(m, s, _)| *m == model && *s == seed)
            .map(|&(_, _, delay)| delay)
    });
    if let Some(delay) = hit {
        return delay;
    }
    let delay = ServiceSampler::shared(model.clone()).calibrated_quantile(
        seed,
        CALIBRATION_STREAM,
        HEDGE_QUANTILE,
        1 << 18,
    );
    LAST.set(Some((model, seed, delay)));
    delay
}

/// The loads of the standard sweep: 0.1..=0.9 in steps of 0.1.
pub const SWEEP_LOADS: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/// The standard sweep under the default reading: [`SWEEP_LOADS`] × policies none, hedge
/// (p95 of no-backup latency at the same load) and duplicate, 10 replicas, cancellation
/// [`Cancellation::Backup`].
pub fn sweep(requests: u64, seed: u64) -> Result<Vec<LoadedResult>, ParamError> {
    sweep_with_progress(requests, seed, &mut || {})
}

// The sweep's size is one literal, so that the constant and its error text agree.
macro_rules! sweep_points {
    () => {
        27
    };
}

/// Points in the standard sweep: [`SWEEP_LOADS`] × three policies.
pub const SWEEP_POINTS: usize = sweep_points!();
const SWEEP_POLICIES: [&str; 3] = ["none", "hedge", "duplicate"];
const _: () = assert!(SWEEP_POINTS == SWEEP_LOADS.len() * SWEEP_POLICIES.len());
const SWEEP_INDEX: CountRange = CountRange {
    lo: 0,
    hi: SWEEP_POINTS as u64 - 1,
    expected: concat!("a sweep point in 0..", sweep_points!()),
};

/// Point `index` (0..[`SWEEP_POINTS`], load-major) of the standard sweep, on its own: the same
/// result as in [`sweep`], so the points can run in parallel.
pub fn sweep_point(index: usize, requests: u64, seed: u64) -> Result<LoadedResult, ParamError> {
    SWEEP_INDEX.check("index", index as u64)?;
    let load = SWEEP_LOADS[index / SWEEP_POLICIES.len()];
    let policy = LoadedPolicy::from_name(
        SWEEP_POLICIES[index % SWEEP_POLICIES.len()],
        DelayBasis::Loaded,
    )?;
    Ok(LoadedConfig::new(LoadedParams {
        replicas: super::DEFAULT_REPLICAS,
        load,
        policy,
        requests,
        seed,
    })?
    .run())
}

/// [`sweep`], calling `step` after each of its 27 runs.
pub fn sweep_with_progress(
    requests: u64,
    seed: u64,
    step: &mut dyn FnMut(),
) -> Result<Vec<LoadedResult>, ParamError> {
    crate::lab::sweep_points(SWEEP_POINTS, step, |i| sweep_point(i, requests, seed))
}

/// An exponential service distribution with mean `mean_ms` ([`MIN_MEAN_MS`]..=[`MAX_MEAN_MS`]),
/// for the M/M/1 reference.
pub fn exponential(mean_ms: f64) -> Result<LoadedService, ParamError> {
    MeanMs::new(mean_ms).map(LoadedService::Exponential)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::loaded::DelayMs;

    #[test]
    fn bad_parameters_are_rejected_by_name() {
        let p = LoadedPolicy::None;
        assert_eq!(
            LoadedConfig::new(LoadedParams {
                replicas: 1,
                load: 0.5,
                policy: p,
                requests: 10_000,
                seed: 1
            })
            .unwrap_err()
            .param(),
            "replicas"
        );
        assert_eq!(
            LoadedConfig::new(LoadedParams {
                replicas: 10,
                load: -0.1,
                policy: p,
                requests: 10_000,
                seed: 1
            })
            .unwrap_err()
            .param(),
            "load"
        );
        assert_eq!(
            LoadedConfig::new(LoadedParams {
                replicas: 10,
                load: f64::NAN,
                policy: p,
                requests: 10_000,
                seed: 1
            })
            .unwrap_err()
            .param(),
            "load"
        );
        assert_eq!(
            LoadedConfig::new(LoadedParams {
                replicas: 10,
                load: 0.5,
                policy: p,
                requests: 10,
                seed: 1
            })
            .unwrap_err()
            .param(),
            "requests"
        );
        assert_eq!(DelayMs::new(-1.0).unwrap_err().param(), "delay");
        assert_eq!(exponential(0.0).unwrap_err().param(), "mean_ms");
        // Under the histogram's floor: a median of 0.069 ms for 0.1 (issue 32 item 6).
        assert_eq!(exponential(0.1).unwrap_err().param(), "mean_ms");
        assert!(exponential(0.2).is_ok());
    }
}
