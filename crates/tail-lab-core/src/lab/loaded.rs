//! Hedging on loaded replicas: a discrete-event simulation (seed 000/001 §3, seed 003 §6–8).
//!
//! `replicas` FIFO single servers (default 10) serve an open-loop Poisson stream of requests at
//! utilisation `load`: offered work over capacity, before duplicates, so the arrival rate is
//! `load × replicas / mean service time` and the one-second hiccups count. Each request goes to
//! a uniformly random replica. Depending on the [`LoadedPolicy`] a backup goes to a *different*
//! random replica, after a delay (`Hedge`) or at once (`Duplicate`), and queues there like any
//! other request. The request is answered by whichever copy finishes first.
//!
//! **The hedge delay.** By default ([`DelayBasis::Loaded`]) it is the p95 of *no-backup*
//! latency at the same load, replicas and service ("outstanding longer than the 95th
//! percentile", Dean and Barroso), measured on a no-backup run of the same length under a
//! separate stream. [`DelayBasis::Idle`] uses the idle service time's p95 instead (≈ 18.5 ms for
//! the Lab model), and [`HedgeDelay::FixedMs`] any delay.
//!
//! **What happens to the other copy** ([`Cancellation`]) decides the result (seed 003 §7). The
//! default, [`Cancellation::Backup`], is the seed's reading: "a backup holds that replica until
//! one copy answers". The primary always runs to completion; the backup is removed from its
//! queue, or its server freed even mid-hiccup, as soon as the primary answers. The other rules
//! are there to show how the verdict flips.
//!
//! Outputs per run: p50/p99/p99.9 of request latency (arrival to first answer), extra requests
//! (fraction of requests that sent a backup), extra work (service time the backups consumed,
//! over the primaries' full service time, as in the idle section), capacity cost (server time
//! actually consumed minus the primaries' full service time, per unit of capacity) and the
//! utilisation actually consumed. A run past its stability boundary is reported as unstable,
//! with no latency numbers.
//!
//! Warm-up: the first tenth of the requests (by arrival) are simulated but not measured.
//! Randomness is addressed per request (arrival gap, replica choices, both copies' service
//! times), so two policies at the same load and seed see the same arrivals and the same work.

use crate::error::{ParamError, check_count, check_open, check_range};
use crate::lab::hedge_idle::Percentiles;
use crate::lab::service::{ServiceModel, ServiceSampler};
use crate::sampling::address::{RequestKey, Stream};
use crate::sampling::histogram::{BIN_COUNT, Histogram, shared_bins};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

mod model;
pub use model::{CANCELLATION_NAMES, MODEL, POLICY_NAMES};

/// The random stream of the loaded-replica simulation (id 6).
pub const STREAM: Stream = Stream::new(6);
/// The random stream that calibrates a loaded-replica hedge delay on idle service (id 7).
pub const CALIBRATION_STREAM: Stream = Stream::new(7);
/// The random stream of the no-backup run whose latency p95 sets a hedge delay "at the same
/// load": the same model as [`STREAM`] on other draws (id 9).
pub const DELAY_CALIBRATION_STREAM: Stream = Stream::new(9);

/// Quantile level of no-backup latency a calibrated hedge waits for (Dean and Barroso's p95).
pub const HEDGE_QUANTILE: f64 = 0.95;

/// What a calibrated hedge delay is the p95 of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelayBasis {
    /// No-backup request latency at the same load (queueing included): the default.
    Loaded,
    /// The service time on an idle replica (no queueing), ≈ 18.5 ms for the Lab model.
    Idle,
}

impl DelayBasis {
    /// The stable machine name (`"loaded"`, `"idle"`).
    pub fn name(&self) -> &'static str {
        match self {
            DelayBasis::Loaded => "loaded",
            DelayBasis::Idle => "idle",
        }
    }

    /// The basis called `name` (`"loaded"` or `"idle"`).
    pub fn from_name(name: &str) -> Result<Self, ParamError> {
        match name {
            "loaded" => Ok(DelayBasis::Loaded),
            "idle" => Ok(DelayBasis::Idle),
            other => Err(ParamError::UnknownName {
                param: "delayBasis",
                got: other.to_string(),
                expected: "\"loaded\", \"idle\"",
            }),
        }
    }
}

/// How long a hedge waits before sending its backup.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HedgeDelay {
    /// The p95 of the [`DelayBasis`], calibrated on a separate stream.
    P95(DelayBasis),
    /// A fixed delay (ms, > 0).
    FixedMs(f64),
}

/// When a backup is sent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadedPolicy {
    /// No backups.
    None,
    /// A backup once the request has been outstanding for the delay without an answer.
    Hedge(HedgeDelay),
    /// A backup at arrival, for every request (a hedge with delay 0).
    Duplicate,
}

impl LoadedPolicy {
    /// The stable machine name (`"none"`, `"hedge"`, `"duplicate"`).
    pub fn name(&self) -> &'static str {
        match self {
            LoadedPolicy::None => "none",
            LoadedPolicy::Hedge(_) => "hedge",
            LoadedPolicy::Duplicate => "duplicate",
        }
    }

    /// The policy called `name` (`"none"`, `"hedge"`, `"duplicate"`); `hedge` waits the p95
    /// of `basis`.
    pub fn from_name(name: &str, basis: DelayBasis) -> Result<Self, ParamError> {
        match name {
            "none" => Ok(LoadedPolicy::None),
            "hedge" => Ok(LoadedPolicy::Hedge(HedgeDelay::P95(basis))),
            "duplicate" => Ok(LoadedPolicy::Duplicate),
            other => Err(ParamError::UnknownName {
                param: "policy",
                got: other.to_string(),
                expected: "\"none\", \"hedge\", \"duplicate\"",
            }),
        }
    }

    /// A backup after `delay_ms` (ms, 0..=1e9): 0 is [`LoadedPolicy::Duplicate`].
    pub fn after_delay(delay_ms: f64) -> Result<Self, ParamError> {
        check_range("delay", delay_ms, 0.0, 1e9, "a delay in ms in 0..=1e9")?;
        Ok(if delay_ms == 0.0 {
            LoadedPolicy::Duplicate
        } else {
            LoadedPolicy::Hedge(HedgeDelay::FixedMs(delay_ms))
        })
    }
}

/// What happens to the copy that did not answer first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cancellation {
    /// The seed's reading (default): the primary always runs to completion; the backup is
    /// removed from its queue, or its server freed even mid-hiccup, once the primary answers.
    /// If the backup answers first the primary still runs.
    Backup,
    /// Whichever copy loses is cancelled: removed from its queue, or its server freed if it is
    /// in ordinary service. A copy in a hiccup holds its replica until the hiccup ends: the
    /// hiccup is the replica's own and a cancel cannot interrupt it.
    Either,
    /// Whichever copy loses is removed from its queue or its server freed, even mid-hiccup.
    EitherAny,
    /// Only a losing copy still waiting in a queue is removed; one in service runs to
    /// completion (the server cannot be interrupted, seed 003 §7).
    Queued,
    /// Never cancelled: both copies always run to completion (seed 003 §6's adverse case).
    Never,
}

impl Cancellation {
    /// Every rule, default first.
    pub const ALL: [Cancellation; 5] = [
        Cancellation::Backup,
        Cancellation::Either,
        Cancellation::EitherAny,
        Cancellation::Queued,
        Cancellation::Never,
    ];

    /// The stable machine name (`"backup"`, `"either"`, `"either-any"`, `"queued"`, `"never"`).
    pub fn name(&self) -> &'static str {
        match self {
            Cancellation::Backup => "backup",
            Cancellation::Either => "either",
            Cancellation::EitherAny => "either-any",
            Cancellation::Queued => "queued",
            Cancellation::Never => "never",
        }
    }

    /// The rule called `name`.
    pub fn from_name(name: &str) -> Result<Self, ParamError> {
        Cancellation::ALL
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| ParamError::UnknownName {
                param: "cancellation",
                got: name.to_string(),
                expected: "\"backup\", \"either\", \"either-any\", \"queued\", \"never\"",
            })
    }

    /// What this rule does to a losing copy that was (`backup`) or was not the backup and is
    /// `in_service` (else still queued) in a hiccup (`slow`) or not: `None` leaves it alone,
    /// `Some(true)` cancels it and frees its server at once, `Some(false)` cancels it but lets
    /// the service it is in finish.
    fn on_loser(self, backup: bool, in_service: bool, slow: bool) -> Option<bool> {
        match (self, in_service) {
            (Cancellation::Never, _) => None,
            (Cancellation::Backup, _) if !backup => None,
            (Cancellation::Queued, true) => None,
            (_, false) => Some(true),
            (Cancellation::Either, true) => Some(!slow),
            (Cancellation::Backup | Cancellation::EitherAny, true) => Some(true),
        }
    }
}

/// The service-time distribution of a loaded run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadedService {
    /// A lognormal body with a rare slow mode (the Lab's model by default).
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
    /// The cancellation rule's name.
    pub cancellation: &'static str,
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
    /// A run of `requests` (1000..=10^8) requests at utilisation `load` (0.001..=2; ≥ 1 is a
    /// valid question whose answer is "unstable"; below 0.001 the replicas sit idle for so long
    /// between arrivals that the clock loses the service times' precision) over `replicas` (2..=1000) replicas, with the
    /// Lab's service model and the default cancellation rule ([`Cancellation::Backup`]).
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
        check_range("load", load, 1e-3, 2.0, "a utilisation in 0.001..=2")?;
        check_count(
            "requests",
            requests,
            1000,
            100_000_000,
            "an integer in 1000..=100000000",
        )?;
        if let LoadedPolicy::Hedge(HedgeDelay::FixedMs(delay_ms)) = policy {
            check_open(
                "delay",
                delay_ms,
                0.0,
                1e9,
                "a delay in ms in (0, 1e9) (a delay of 0 is LoadedPolicy::Duplicate)",
            )?;
        }
        Ok(LoadedConfig {
            replicas,
            load,
            policy,
            cancellation: Cancellation::Backup,
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

    /// The delay (ms) after which this run sends backups: `None` without backups, or when the
    /// delay is the p95 of a no-backup run that is itself unstable (load ≥ 1).
    pub fn delay_ms(&self) -> Option<f64> {
        match self.policy {
            LoadedPolicy::None => None,
            LoadedPolicy::Duplicate => Some(0.0),
            LoadedPolicy::Hedge(HedgeDelay::FixedMs(d)) => Some(d),
            LoadedPolicy::Hedge(HedgeDelay::P95(DelayBasis::Idle)) => Some(match self.service {
                LoadedService::Lab(m) => calibrated_idle_delay(m, self.seed),
                LoadedService::Exponential { mean_ms } => {
                    -mean_ms * libm::log(1.0 - HEDGE_QUANTILE)
                }
            }),
            LoadedPolicy::Hedge(HedgeDelay::P95(DelayBasis::Loaded)) => {
                let calibration = LoadedConfig {
                    policy: LoadedPolicy::None,
                    ..*self
                };
                Simulation::new(&calibration, DELAY_CALIBRATION_STREAM, None)
                    .run()
                    .latency
                    .map(|p| p.p95)
            }
        }
    }

    /// What a run costs, in work units of about 10 ns of wasm in Chromium on a 2-core machine
    /// (see BENCHMARKS.md): 60 units a request for each pass of the discrete-event simulation
    /// (its arrival, one or two copies' completions, a hedge timer, heap operations; measured
    /// at 260–600 ns a request), and two passes for a hedge whose delay is the p95 of a
    /// no-backup run at the same load (that run comes first).
    pub fn work_units(&self) -> f64 {
        let passes = match self.policy {
            LoadedPolicy::Hedge(HedgeDelay::P95(DelayBasis::Loaded)) => 2.0,
            _ => 1.0,
        };
        self.requests as f64 * 60.0 * passes
    }

    /// Simulates the run (calibrating its hedge delay first when it has one).
    pub fn run(&self) -> LoadedResult {
        let delay = self.delay_ms();
        let mut result = Simulation::new(self, STREAM, delay).run();
        if matches!(self.policy, LoadedPolicy::Hedge(_)) && delay.is_none() {
            // No finite delay to wait for: the no-backup queue it is set from diverges.
            result.stable = false;
            result.unstable = Some(Unstable::NoHedgeDelay);
            result.latency = None;
            result.mean_ms = None;
            result.copy_sojourn_ms = None;
        }
        result
    }
}

/// The idle p95 of a service model's time, calibrated on its own stream under `seed`
/// (2^18 draws): the delay of a hedge with [`DelayBasis::Idle`].
pub fn calibrated_idle_delay(model: ServiceModel, seed: u64) -> f64 {
    ServiceSampler::new(model).calibrated_quantile(
        seed,
        CALIBRATION_STREAM,
        HEDGE_QUANTILE,
        1 << 18,
    )
}

// ---------------------------------------------------------------------------------------------

/// A copy's slot and the generation of the slot when the copy was put there. Slots are reused
/// once a copy is finished with, so a reference from an event, a queue or a request is live
/// only while the slot's generation still matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CopyRef {
    slot: u32,
    generation: u32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Event {
    Arrival(u64),
    HedgeTimer(u64),
    Completion { replica: u32, copy: CopyRef },
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
    /// Cancelled while its server finishes the service it is in (a hiccup under `Either`).
    Draining,
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
    generation: u32,
}

#[derive(Debug, Clone, Default)]
struct Replica {
    queue: VecDeque<CopyRef>,
    serving: Option<CopyRef>,
}

#[derive(Debug, Clone, Copy)]
struct Request {
    arrival: f64,
    answered: bool,
    copies: [Option<CopyRef>; 2],
    backup_replica: u32,
}

struct Simulation<'a> {
    config: &'a LoadedConfig,
    stream: Stream,
    delay_ms: Option<f64>,
    sampler: Option<ServiceSampler>,
    heap: BinaryHeap<Scheduled>,
    seq: u64,
    replicas: Vec<Replica>,
    /// Copies in flight: a slab whose free slots are reused, so memory follows the queues,
    /// not the length of the run.
    copies: Vec<Copy>,
    free_slots: Vec<u32>,
    /// Requests from the oldest one still in flight (request `first`) to the newest.
    requests: VecDeque<Request>,
    first: u64,
    peak_in_flight: usize,
    /// Set when the backlog passed [`MAX_IN_FLIGHT`]: the arrivals so far; no more arrive.
    runaway: Option<u64>,
    /// Requests arrived and not yet answered.
    unanswered: usize,
    /// True when a measured latency passed the histogram's top edge.
    off_scale: bool,
    /// Stability known in closed form, when it is.
    stable_by_theory: Option<bool>,
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
    /// A run of `config` on the draws of `stream`, sending backups after `delay_ms` (`None`:
    /// no backups, whatever the policy says).
    fn new(config: &'a LoadedConfig, stream: Stream, delay_ms: Option<f64>) -> Self {
        let mean = config.service.mean_ms();
        Simulation {
            config,
            stream,
            delay_ms,
            sampler: match config.service {
                LoadedService::Lab(m) => Some(ServiceSampler::new(m)),
                LoadedService::Exponential { .. } => None,
            },
            heap: BinaryHeap::new(),
            seq: 0,
            replicas: vec![Replica::default(); config.replicas as usize],
            copies: Vec::new(),
            free_slots: Vec::new(),
            requests: VecDeque::new(),
            first: 0,
            peak_in_flight: 0,
            runaway: None,
            unanswered: 0,
            off_scale: false,
            stable_by_theory: None,
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
        RequestKey::new(self.config.seed, self.stream, k)
    }

    /// Service time of copy `attempt` of request `k`, and whether it is a hiccup.
    fn service(&self, k: u64, attempt: u32) -> (f64, bool) {
        let mut stream = self.key(k).sample(0, attempt);
        match (&self.sampler, self.config.service) {
            (_, LoadedService::Exponential { mean_ms }) => {
                (-mean_ms * libm::log(stream.next_open_unit()), false)
            }
            (Some(s), LoadedService::Lab(_)) => {
                let d = s.sample(stream);
                (d.ms, d.slow)
            }
            (None, LoadedService::Lab(_)) => unreachable!("Lab service always has a sampler"),
        }
    }

    fn uniform_below(bits: u64, n: u32) -> u32 {
        ((u128::from(bits) * u128::from(n)) >> 64) as u32
    }

    fn run(mut self) -> LoadedResult {
        self.stable_by_theory = self.theory_stable();
        self.schedule(self.gap(0), Event::Arrival(0));
        while let Some(Scheduled { time, event, .. }) = self.heap.pop() {
            match event {
                Event::Arrival(k) => self.arrive(time, k),
                Event::HedgeTimer(k) => self.hedge(time, k),
                Event::Completion { replica, copy } => self.complete(time, replica, copy),
            }
        }
        self.result()
    }

    /// Stability known in closed form: no backups → ρ < 1; every request duplicated and never
    /// cancelled → (1 + h)ρ < 1 with h = 1; nothing is stable at ρ ≥ 1. Everything else is
    /// judged from the run itself.
    fn theory_stable(&self) -> Option<bool> {
        let rho = self.config.load;
        match (self.delay_ms, self.config.cancellation) {
            (None, _) => Some(rho < 1.0),
            (Some(d), Cancellation::Never) if d <= 0.0 => {
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
        debug_assert_eq!(k, self.first + self.requests.len() as u64);
        self.peak_in_flight = self.peak_in_flight.max(self.requests.len() + 1);
        self.requests.push_back(Request {
            arrival: now,
            answered: false,
            copies: [None, None],
            backup_replica,
        });
        let (service, _) = self.service(k, 0);
        self.primary_work += service;
        self.enqueue(now, k, primary, false);
        match self.delay_ms {
            Some(d) if d <= 0.0 => self.hedge(now, k),
            Some(d) => self.schedule(now + d, Event::HedgeTimer(k)),
            None => {}
        }
        self.unanswered += 1;
        if self.unanswered > MAX_IN_FLIGHT && self.stable_by_theory != Some(true) {
            self.runaway = Some(k + 1);
        } else if k + 1 < self.config.requests {
            let next = now + self.gap(k + 1);
            self.schedule(next, Event::Arrival(k + 1));
        }
    }

    /// Request `k`, which must still be in flight.
    fn request(&mut self, k: u64) -> &mut Request {
        &mut self.requests[(k - self.first) as usize]
    }

    /// True while `r` still names the copy it was made for.
    fn live(&self, r: CopyRef) -> bool {
        self.copies[r.slot as usize].generation == r.generation
    }

    /// Gives the copy's slot back; every reference to it goes stale.
    fn release(&mut self, r: CopyRef) {
        let c = &mut self.copies[r.slot as usize];
        c.generation = c.generation.wrapping_add(1);
        self.free_slots.push(r.slot);
        self.retire();
    }

    /// Drops answered requests with no copy left from the front of the window.
    fn retire(&mut self) {
        while let Some(r) = self.requests.front() {
            let busy = r
                .copies
                .iter()
                .flatten()
                .any(|&c| self.copies[c.slot as usize].generation == c.generation);
            if !r.answered || busy {
                return;
            }
            self.requests.pop_front();
            self.first += 1;
        }
    }

    fn hedge(&mut self, now: f64, k: u64) {
        if k < self.first {
            return; // answered and retired long ago
        }
        let r = *self.request(k);
        if r.answered || r.copies[1].is_some() {
            return;
        }
        self.backups += 1;
        self.enqueue(now, k, r.backup_replica, true);
    }

    fn enqueue(&mut self, now: f64, k: u64, replica: u32, backup: bool) {
        let (service_ms, slow) = self.service(k, u32::from(backup));
        let slot = self.free_slots.pop().unwrap_or_else(|| {
            self.copies.push(Copy {
                request: 0,
                service_ms: 0.0,
                slow: false,
                enqueued_at: 0.0,
                started_at: 0.0,
                state: CopyState::Waiting,
                backup: false,
                replica: 0,
                generation: 0,
            });
            (self.copies.len() - 1) as u32
        });
        let generation = self.copies[slot as usize].generation;
        self.copies[slot as usize] = Copy {
            request: k,
            service_ms,
            slow,
            enqueued_at: now,
            started_at: 0.0,
            state: CopyState::Waiting,
            backup,
            replica,
            generation,
        };
        let id = CopyRef { slot, generation };
        self.request(k).copies[usize::from(backup)] = Some(id);
        self.replicas[replica as usize].queue.push_back(id);
        if self.replicas[replica as usize].serving.is_none() {
            self.start_next(now, replica);
        }
    }

    /// Starts the next live copy at the head of `replica`'s queue (cancelled ones are skipped).
    fn start_next(&mut self, now: f64, replica: u32) {
        while let Some(id) = self.replicas[replica as usize].queue.pop_front() {
            if !self.live(id) {
                continue; // cancelled while it waited
            }
            let c = &mut self.copies[id.slot as usize];
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

    fn complete(&mut self, now: f64, replica: u32, id: CopyRef) {
        // A completion event for a copy that was cancelled and freed its server is stale.
        if self.replicas[replica as usize].serving != Some(id) || !self.live(id) {
            return;
        }
        let copy = self.copies[id.slot as usize];
        match copy.state {
            CopyState::InService => {
                self.account(&copy, copy.service_ms);
                self.sojourn_sum += now - copy.enqueued_at;
                self.sojourn_count += 1;
                self.release(id);
                self.answer(now, copy.request);
            }
            CopyState::Draining => {
                // A cancelled copy whose service could not be interrupted has finished.
                self.account(&copy, copy.service_ms);
                self.release(id);
            }
            CopyState::Waiting => {}
        }
        self.start_next(now, replica);
    }

    fn answer(&mut self, now: f64, k: u64) {
        if k < self.first {
            return; // answered and retired already
        }
        let r = self.request(k);
        if r.answered {
            return;
        }
        r.answered = true;
        let (arrival, copies) = (r.arrival, r.copies);
        self.unanswered -= 1;
        let latency = now - arrival;
        if k >= self.warmup {
            self.off_scale |= latency > shared_bins().edges()[BIN_COUNT];
            self.latency.record(shared_bins(), latency);
            self.latency_sum += latency;
            self.measured += 1;
            let span = (self.config.requests - self.warmup).max(1);
            let block = (((k - self.warmup) * 4) / span).min(3) as usize;
            self.block_sums[block] += latency;
            self.block_counts[block] += 1;
        }
        for id in copies.into_iter().flatten() {
            if !self.live(id) {
                continue; // finished and released
            }
            let c = self.copies[id.slot as usize];
            let in_service = match c.state {
                CopyState::Waiting => false,
                CopyState::InService => true,
                CopyState::Draining => continue,
            };
            match self
                .config
                .cancellation
                .on_loser(c.backup, in_service, c.slow)
            {
                None => {}
                // Still queued: it leaves the queue lazily (a stale reference), at no cost.
                Some(_) if !in_service => self.release(id),
                Some(true) => {
                    // Freed at once: it cost its service so far.
                    self.account(&c, now - c.started_at);
                    self.release(id);
                    self.start_next(now, c.replica);
                }
                Some(false) => self.copies[id.slot as usize].state = CopyState::Draining,
            }
        }
        self.retire();
    }

    fn result(self) -> LoadedResult {
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
        let unstable = match (self.runaway, self.stable_by_theory) {
            (Some(arrived), _) => Some(Unstable::Runaway { arrived }),
            (None, Some(false)) => Some(Unstable::Overloaded),
            (None, None) if drifting => Some(Unstable::Drifting),
            _ if self.off_scale => Some(Unstable::OffScale),
            // Warm-up is a tenth of at least 1,000 requests, so a finished run measured some.
            _ => None,
        };
        let stable = unstable.is_none() && self.measured > 0;
        let arrived = self.runaway.unwrap_or(self.config.requests);
        let capacity_cost = (self.consumed_work - self.primary_work) / capacity;
        LoadedResult {
            load: self.config.load,
            policy: self.config.policy.name(),
            cancellation: self.config.cancellation.name(),
            delay_ms: self.delay_ms,
            stable,
            latency: stable.then(|| Percentiles::of(&self.latency)),
            mean_ms: stable.then(|| self.latency_sum / self.measured as f64),
            copy_sojourn_ms: stable.then(|| self.sojourn_sum / self.sojourn_count.max(1) as f64),
            extra_requests: self.backups as f64 / arrived as f64,
            extra_work: self.backup_work / self.primary_work,
            capacity_cost,
            utilisation: self.consumed_work / capacity,
            peak_in_flight: self.peak_in_flight as u64,
            unstable,
        }
    }
}

/// The loads of the standard sweep: 0.1..=0.9 in steps of 0.1.
pub const SWEEP_LOADS: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/// The standard sweep under the default reading: [`SWEEP_LOADS`] × policies none, hedge
/// (p95 of no-backup latency at the same load) and duplicate, 10 replicas, cancellation
/// [`Cancellation::Backup`].
pub fn sweep(requests: u64, seed: u64) -> Result<Vec<LoadedResult>, ParamError> {
    sweep_with_progress(requests, seed, &mut || {})
}

/// Points in the standard sweep: [`SWEEP_LOADS`] × three policies.
pub const SWEEP_POINTS: usize = SWEEP_LOADS.len() * SWEEP_POLICIES.len();
const SWEEP_POLICIES: [&str; 3] = ["none", "hedge", "duplicate"];

/// Point `index` (0..[`SWEEP_POINTS`], load-major) of the standard sweep, on its own: the same
/// result as in [`sweep`], so the points can run in parallel.
pub fn sweep_point(index: usize, requests: u64, seed: u64) -> Result<LoadedResult, ParamError> {
    check_count(
        "index",
        index as u64,
        0,
        SWEEP_POINTS as u64 - 1,
        "a sweep point in 0..27",
    )?;
    let load = SWEEP_LOADS[index / SWEEP_POLICIES.len()];
    let policy = LoadedPolicy::from_name(
        SWEEP_POLICIES[index % SWEEP_POLICIES.len()],
        DelayBasis::Loaded,
    )?;
    Ok(LoadedConfig::new(10, load, policy, requests, seed)?.run())
}

/// [`sweep`], calling `step` after each of its 27 runs.
pub fn sweep_with_progress(
    requests: u64,
    seed: u64,
    step: &mut dyn FnMut(),
) -> Result<Vec<LoadedResult>, ParamError> {
    super::sweep_points(SWEEP_POINTS, step, |i| sweep_point(i, requests, seed))
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
        let bad = LoadedPolicy::Hedge(HedgeDelay::FixedMs(-1.0));
        assert_eq!(
            LoadedConfig::new(10, 0.5, bad, 10_000, 1)
                .unwrap_err()
                .param(),
            "delay"
        );
    }

    #[test]
    fn names_round_trip() {
        for basis in [DelayBasis::Loaded, DelayBasis::Idle] {
            assert_eq!(DelayBasis::from_name(basis.name()).unwrap(), basis);
            assert_eq!(
                LoadedPolicy::from_name("hedge", basis).unwrap(),
                LoadedPolicy::Hedge(HedgeDelay::P95(basis))
            );
        }
        for c in Cancellation::ALL {
            assert_eq!(Cancellation::from_name(c.name()).unwrap(), c);
        }
        assert_eq!(
            LoadedPolicy::from_name("tied", DelayBasis::Loaded)
                .unwrap_err()
                .param(),
            "policy"
        );
        assert_eq!(
            Cancellation::from_name("all").unwrap_err().param(),
            "cancellation"
        );
        assert_eq!(
            DelayBasis::from_name("busy").unwrap_err().param(),
            "delayBasis"
        );
        assert_eq!(
            LoadedPolicy::after_delay(0.0).unwrap(),
            LoadedPolicy::Duplicate
        );
        assert_eq!(
            LoadedPolicy::after_delay(-1.0).unwrap_err().param(),
            "delay"
        );
    }

    #[test]
    fn each_rule_decides_the_loser_as_documented() {
        use Cancellation::*;
        // (rule, loser is backup, in service, in a hiccup) → None / cancel+free / cancel+drain
        let cases = [
            (Backup, false, false, false, None),
            (Backup, false, true, true, None),
            (Backup, true, false, false, Some(true)),
            (Backup, true, true, true, Some(true)),
            (Either, false, false, false, Some(true)),
            (Either, false, true, false, Some(true)),
            (Either, true, true, true, Some(false)),
            (EitherAny, false, true, true, Some(true)),
            (Queued, true, false, false, Some(true)),
            (Queued, false, true, false, None),
            (Never, true, false, false, None),
        ];
        for (rule, backup, in_service, slow, want) in cases {
            assert_eq!(rule.on_loser(backup, in_service, slow), want, "{rule:?}");
        }
    }

    #[test]
    fn memory_follows_the_requests_in_flight_not_the_run() {
        // 400,000 requests at load 0.5: the window from the oldest request in flight to the
        // newest stays a few hundred long (a one-second hiccup holds it open for ~130 arrivals),
        // so a run of any length needs about the same memory. Every rule keeps it bounded.
        for c in Cancellation::ALL {
            for policy in [LoadedPolicy::None, LoadedPolicy::Duplicate] {
                let r = LoadedConfig::new(10, 0.4, policy, 400_000, 5)
                    .unwrap()
                    .with_cancellation(c)
                    .run();
                assert!(
                    r.peak_in_flight < 5_000,
                    "{c:?} {policy:?}: {}",
                    r.peak_in_flight
                );
                assert!(r.peak_in_flight > 10);
            }
        }
    }

    #[test]
    fn the_delay_follows_its_basis() {
        let at = |policy, load| LoadedConfig::new(10, load, policy, 20_000, 2).unwrap();
        let idle = at(LoadedPolicy::Hedge(HedgeDelay::P95(DelayBasis::Idle)), 0.5);
        let idle_delay = idle.delay_ms().unwrap();
        assert!((idle_delay - 18.4).abs() < 0.5, "{idle_delay}");
        // At load the p95 of no-backup latency includes waiting behind hiccups: far longer.
        let loaded = at(
            LoadedPolicy::Hedge(HedgeDelay::P95(DelayBasis::Loaded)),
            0.5,
        );
        assert!(loaded.delay_ms().unwrap() > 10.0 * idle_delay);
        // Past the boundary there is no p95 to wait for, and the run says unstable.
        let over = at(
            LoadedPolicy::Hedge(HedgeDelay::P95(DelayBasis::Loaded)),
            1.2,
        );
        assert_eq!(over.delay_ms(), None);
        assert!(!over.run().stable);
        assert_eq!(at(LoadedPolicy::None, 0.5).delay_ms(), None);
        assert_eq!(at(LoadedPolicy::Duplicate, 0.5).delay_ms(), Some(0.0));
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

    #[test]
    fn a_runaway_run_stops_at_the_in_flight_bound_and_says_why() {
        // Duplicates never cancelled at load 1.5 demand three times the capacity: the backlog
        // grows by about two requests in three, so 400,000 requests pass the bound.
        let config = LoadedConfig::new(10, 1.5, LoadedPolicy::Duplicate, 400_000, 1)
            .unwrap()
            .with_cancellation(Cancellation::Never);
        let r = config.run();
        let Some(Unstable::Runaway { arrived }) = r.unstable else {
            panic!("{:?}", r.unstable);
        };
        assert!(!r.stable && r.latency.is_none());
        // Memory follows the backlog, which stopped growing: waiting requests, and answered
        // ones whose never-cancelled copy still runs.
        assert!(
            r.peak_in_flight < 3 * MAX_IN_FLIGHT as u64,
            "{}",
            r.peak_in_flight
        );
        // Every arrived request was served to the end: the work is whole, so the backlog's
        // demand shows, past 1, as documented.
        assert!(r.utilisation > 2.0, "{}", r.utilisation);
        assert!(r.extra_work > 0.95, "{}", r.extra_work);
        assert!(
            arrived > MAX_IN_FLIGHT as u64 && arrived < 400_000,
            "{arrived}"
        );
        // Every request that arrived sent its duplicate.
        assert_eq!(r.extra_requests, 1.0);
        // A run of at most MAX_IN_FLIGHT requests cannot reach the bound: it runs to the end.
        let short = LoadedConfig::new(10, 1.5, LoadedPolicy::Duplicate, 200_000, 1)
            .unwrap()
            .with_cancellation(Cancellation::Never)
            .run();
        assert_eq!(short.unstable, Some(Unstable::Overloaded));
        assert!(short.peak_in_flight <= MAX_IN_FLIGHT as u64);
        assert!(
            short.utilisation > 1.0,
            "past the boundary: {}",
            short.utilisation
        );
    }

    #[test]
    fn every_unstable_run_says_why_and_stable_runs_say_nothing() {
        let run = |load, policy| {
            LoadedConfig::new(10, load, policy, 20_000, 3)
                .unwrap()
                .run()
        };
        let hedge = LoadedPolicy::from_name("hedge", DelayBasis::Loaded).unwrap();
        assert_eq!(run(0.5, hedge).unstable, None);
        assert_eq!(run(0.5, LoadedPolicy::None).unstable, None);
        assert_eq!(
            run(1.2, LoadedPolicy::None).unstable,
            Some(Unstable::Overloaded)
        );
        let past = run(1.2, hedge);
        assert_eq!(
            (past.unstable, past.delay_ms),
            (Some(Unstable::NoHedgeDelay), None)
        );
        for reason in [
            Unstable::Overloaded,
            Unstable::NoHedgeDelay,
            Unstable::Drifting,
            Unstable::Runaway { arrived: 7 },
        ] {
            assert!(reason.describe().len() > 40);
        }
        assert!(
            Unstable::Runaway { arrived: 7 }
                .describe()
                .contains("200000")
        );
    }

    #[test]
    fn a_stable_run_on_many_replicas_is_never_stopped() {
        // 1,000 replicas at load 0.5 for 400,000 requests: the window from the oldest
        // unfinished request is long (one hiccup holds it open), but few requests wait.
        for policy in [
            LoadedPolicy::None,
            LoadedPolicy::from_name("hedge", DelayBasis::Loaded).unwrap(),
        ] {
            let r = LoadedConfig::new(1000, 0.5, policy, 400_000, 2)
                .unwrap()
                .run();
            assert_eq!(r.unstable, None, "{policy:?}");
            assert!(r.stable && r.latency.is_some());
        }
    }

    #[test]
    fn latencies_past_the_histogram_are_not_reported_as_percentiles() {
        use crate::sampling::lognormal::LogNormalMs;
        // A slow mode rare enough to pass the service bound (p99.99 is the body's), yet
        // minutes long: requests queue behind it past the histogram's top.
        let body = LogNormalMs::new(7.7, 0.5).unwrap();
        let slow = LogNormalMs::new(5e7, 0.35).unwrap();
        let model = ServiceModel::new(body, 5e-5, slow).unwrap();
        let r = LoadedConfig::new(10, 0.5, LoadedPolicy::None, 100_000, 1)
            .unwrap()
            .with_service(LoadedService::Lab(model))
            .unwrap()
            .run();
        assert_eq!(r.unstable, Some(Unstable::OffScale));
        assert!(r.latency.is_none() && !r.stable);
        // The default model never comes near it.
        let d = LoadedConfig::new(10, 0.9, LoadedPolicy::None, 100_000, 1)
            .unwrap()
            .run();
        assert_eq!(d.unstable, None);
    }
}
