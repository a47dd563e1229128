//! A tied run's parameters ([`TiedParams`], [`TiedConfig`]), its outcome ([`TiedResult`]), its
//! stream and bounds.

use super::engine::Simulation;
use crate::error::{CountRange, ParamError, check_range};
use crate::lab::hedge_idle::Percentiles;
use crate::lab::loaded::{LoadedService, Unstable};
use crate::lab::service::ServiceModel;
use crate::sampling::address::Stream;
use crate::sampling::batch::RunIntervals;

/// The random stream of the tied-request simulation (id 18).
pub const STREAM: Stream = Stream::new(18);

// The bounds of a run, each one literal for the constant and its error text.
macro_rules! max_message_delay_ms {
    () => {
        1e9
    };
}

/// Replicas a tied run may have: a tie needs a second one; each request may be tied to all of
/// them, so a request's record grows with them.
pub const REPLICAS: CountRange = crate::count_range!(2, 100, " (a tie needs a second replica)");
/// Requests one run may simulate (as the loaded model's calls).
pub const REQUESTS: CountRange = crate::count_range!(1000, 2000000);
/// The lowest utilisation accepted (as the loaded model).
pub const MIN_LOAD: f64 = crate::lab::loaded::MIN_LOAD;
/// The highest utilisation accepted (as the loaded model).
pub const MAX_LOAD: f64 = crate::lab::loaded::MAX_LOAD;
/// The longest finite message delay accepted (ms); `f64::INFINITY` is accepted too and means
/// the cancellation never lands.
pub const MAX_MESSAGE_DELAY_MS: f64 = max_message_delay_ms!();
pub(super) const DELAY_EXPECTED: &str = concat!(
    "a delay in ms in 0..=",
    max_message_delay_ms!(),
    ", or Infinity (the cancellation never lands)"
);
pub(super) const TIE_EXPECTED: &str = "an integer in 2..=replicas";
pub(super) const STAGGER_EXPECTED: &str = concat!("a delay in ms in 0..=", max_message_delay_ms!());

/// Most *copies* of unanswered requests a run lets wait at once (unless the closed form says it
/// is stable): `MAX_IN_FLIGHT_COPIES / tie` requests. At tie = 2 that is the loaded model's
/// [`crate::lab::loaded::MAX_IN_FLIGHT`], so a tie-2 run that never lands its cancellations is
/// the loaded model's never-cancelled duplicate bit for bit, its runaway included. Past the cap
/// no more requests arrive, those that did are served to the end, and the run is reported
/// unstable ([`Unstable::Runaway`]).
pub const MAX_IN_FLIGHT_COPIES: usize = 400_000;

/// The named parameters of a tied run, for [`TiedConfig::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TiedParams {
    /// FIFO replicas ([`REPLICAS`]).
    pub replicas: u32,
    /// Replicas each request is enqueued at, 2..=`replicas` (`replicas`: tied to all).
    pub tie: u32,
    /// Offered utilisation before duplicates ([`MIN_LOAD`]..=[`MAX_LOAD`]).
    pub load: f64,
    /// How long a cancellation takes to reach a sibling (ms): 0..=[`MAX_MESSAGE_DELAY_MS`], or
    /// `f64::INFINITY` for never.
    pub message_delay_ms: f64,
    /// Requests simulated ([`REQUESTS`]).
    pub requests: u64,
    /// The seed.
    pub seed: u64,
}

/// One tied-request run.
///
/// ```
/// use tail_lab_core::lab::tied::{TiedConfig, TiedParams};
/// use tail_lab_core::lab::loaded::exponential;
///
/// // Tied to all 3 replicas with instant cancellation: one M/M/3 queue (mean service 10 ms).
/// let p = TiedParams { replicas: 3, tie: 3, load: 0.5, message_delay_ms: 0.0, requests: 100_000, seed: 1 };
/// let r = TiedConfig::new(p).unwrap().with_service(exponential(10.0).unwrap()).run();
/// let erlang = tail_lab_core::lab::tied::theory::mmc_mean_ms(3, 0.5, 10.0);
/// assert!((r.mean_ms.unwrap() / erlang - 1.0).abs() < 0.05);
/// assert_eq!(r.copies_started, Some(1.0)); // no copy but the first ever starts
/// // A tie wider than the replicas is refused by name.
/// let wide = TiedConfig::new(TiedParams { tie: 4, ..p });
/// assert_eq!(wide.unwrap_err().param(), "tie");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TiedConfig {
    pub(super) params: TiedParams,
    pub(super) service: LoadedService,
    /// How long after the first copy the siblings are sent (ms, [`TiedConfig::with_stagger`]).
    pub(super) stagger_ms: f64,
}

/// Which policy a [`TiedResult`] is: the tied run itself, or one of the references beside it
/// in the section (run by the loaded model, [`crate::lab::loaded`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TiedPolicy {
    /// No backups (loaded model).
    None,
    /// The loaded model's hedge after the p95 of no-backup latency at the same load.
    Hedge,
    /// The loaded model's duplicate of every request, the backup cancelled when the primary
    /// answers (the primary itself always runs to its end).
    Duplicate,
    /// The loaded model's duplicate of every request, whichever copy answers second cancelled
    /// at once, in its queue or mid-service (`either-any`): what duplicating costs where a
    /// started copy can be stopped.
    DuplicateEitherAny,
    /// Tied requests (this model).
    Tied,
}

impl TiedPolicy {
    /// Every policy, in the section's order.
    pub const ALL: [TiedPolicy; 5] = [
        TiedPolicy::None,
        TiedPolicy::Hedge,
        TiedPolicy::Duplicate,
        TiedPolicy::DuplicateEitherAny,
        TiedPolicy::Tied,
    ];

    /// The stable machine name.
    pub fn name(self) -> &'static str {
        match self {
            TiedPolicy::None => "none",
            TiedPolicy::Hedge => "hedge",
            TiedPolicy::Duplicate => "duplicate",
            TiedPolicy::DuplicateEitherAny => "duplicate-either-any",
            TiedPolicy::Tied => "tied",
        }
    }
}

/// The outcome of one run: a tied run, or a reference run of the loaded model in the same
/// shape (its tie-only fields `null`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TiedResult {
    /// Offered utilisation (0..), before duplicates.
    pub load: f64,
    /// Which policy ran.
    pub policy: TiedPolicy,
    /// FIFO replicas.
    pub replicas: u32,
    /// Requests simulated.
    pub requests: u64,
    /// The mean (ms) of the exponential service the run used; `None` for the Lab's model or
    /// your own.
    pub exponential_mean_ms: Option<f64>,
    /// Replicas each request was enqueued at; `None` for a reference.
    pub tie: Option<u32>,
    /// The message delay (ms); `None` for a reference, or when infinite (never lands).
    pub message_delay_ms: Option<f64>,
    /// How long after the first copy its siblings were sent (ms); `None` for a reference.
    pub stagger_ms: Option<f64>,
    /// False when the run is past its stability boundary: then there are no latencies.
    pub stable: bool,
    /// Request latency percentiles (ms, arrival to the first copy's finish) after warm-up.
    pub latency: Option<Percentiles>,
    /// Mean request latency (ms) after warm-up.
    pub mean_ms: Option<f64>,
    /// 95% batch-means intervals (ms) of the mean, p50 and p99.
    pub intervals: Option<RunIntervals>,
    /// Server time beyond the requests' own service, over that service (fraction; negative
    /// where cancelled copies gave back more than duplicates cost). A request's own service is
    /// what its first copy would take (tied) or its primary (a reference): the work it costs
    /// with no duplicate at all. The same measure in every section: for a reference it is the
    /// loaded model's `capacity_cost / load`.
    pub extra_work: f64,
    /// Tied: server time on copies that did not answer (run to their end, or aborted
    /// part-way) over the answering copies' service (a share of the work that answered, not of
    /// the requests' own work: at a long message delay the copies that answer are the short
    /// ones, and this reads far higher than `extra_work`). `None` for a reference.
    pub wasted_over_answering: Option<f64>,
    /// Share of the cancellations sent that found their copy already started (aborted it, or
    /// came after it finished); `None` for a reference or when none was sent (∞ delay).
    pub late_cancellations: Option<f64>,
    /// Share of the cancellations sent that aborted a copy in service; `None` as above.
    pub aborted: Option<f64>,
    /// Copies that started service per request (1 = no work was duplicated); `None` for a
    /// reference.
    pub copies_started: Option<f64>,
    /// Server time consumed per unit of capacity while requests arrived (past the boundary it
    /// passes 1).
    pub utilisation: f64,
    /// The most requests in flight at once: the run's memory follows this.
    pub peak_in_flight: u64,
    /// Why the run is unstable; `None` when stable.
    pub unstable: Option<Unstable>,
}

impl TiedResult {
    /// True for a stable run whose replicas were busy at least
    /// [`crate::lab::loaded::AT_CAPACITY`] of the time (as the loaded model's).
    pub fn at_capacity(&self) -> bool {
        self.stable && self.utilisation >= crate::lab::loaded::AT_CAPACITY
    }
}

impl TiedConfig {
    /// A run with the Lab's service model. Refuses, by name, replicas outside [`REPLICAS`], a
    /// tie outside 2..=replicas, a load outside [`MIN_LOAD`]..=[`MAX_LOAD`], a negative, NaN
    /// or too long finite message delay, and requests outside [`REQUESTS`].
    pub fn new(params: TiedParams) -> Result<Self, ParamError> {
        REPLICAS.check("replicas", u64::from(params.replicas))?;
        if !(2..=params.replicas).contains(&params.tie) {
            return Err(ParamError::OutOfRange {
                param: "tie",
                got: f64::from(params.tie),
                expected: TIE_EXPECTED,
            });
        }
        check_range(
            "load",
            params.load,
            MIN_LOAD,
            MAX_LOAD,
            "a utilisation in 0.001..=2",
        )?;
        if params.message_delay_ms != f64::INFINITY {
            check_range(
                "messageDelayMs",
                params.message_delay_ms,
                0.0,
                MAX_MESSAGE_DELAY_MS,
                DELAY_EXPECTED,
            )?;
        }
        REQUESTS.check("requests", params.requests)?;
        Ok(TiedConfig {
            params,
            service: LoadedService::Lab(ServiceModel::default()),
            stagger_ms: 0.0,
        })
    }

    /// Sends each request's siblings `stagger_ms` after its first copy (0..=
    /// [`MAX_MESSAGE_DELAY_MS`], default 0: all at once), as Dean and Barroso suggest (about
    /// two message delays): a first copy that starts at once on an idle replica then cancels its
    /// siblings before they are sent, and both never start together. A sibling sent after its
    /// cancellation landed is dropped on arrival, at no cost. Refused by name
    /// (`staggerMs`) when negative, NaN or longer.
    pub fn with_stagger(mut self, stagger_ms: f64) -> Result<Self, ParamError> {
        check_range(
            "staggerMs",
            stagger_ms,
            0.0,
            MAX_MESSAGE_DELAY_MS,
            STAGGER_EXPECTED,
        )?;
        self.stagger_ms = stagger_ms;
        Ok(self)
    }

    /// Uses another service distribution (the loaded model's: the Lab's forms, or exponential).
    pub fn with_service(mut self, service: LoadedService) -> Self {
        self.service = service;
        self
    }

    /// The run's parameters.
    pub fn params(&self) -> TiedParams {
        self.params
    }

    /// What a run costs, in the binding's work units (about 10 ns of wasm each): 30 a request
    /// and 30 more for each of its copies (an upper bound: a tie of 2 at load 0.5 measures
    /// about 60 in release).
    pub fn work_units(&self) -> f64 {
        self.params.requests as f64 * 30.0 * (1.0 + f64::from(self.params.tie))
    }

    /// Simulates the run on [`STREAM`].
    pub fn run(&self) -> TiedResult {
        Simulation::new(self, STREAM).run()
    }
}
