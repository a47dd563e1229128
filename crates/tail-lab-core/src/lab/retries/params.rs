//! A retries run's parameters ([`RetriesParams`], checked into a [`RetriesConfig`]) and its
//! outcome ([`RetriesResult`]).

use super::rules::{Backoff, Budget, Spike};
use crate::error::{CountRange, ParamError};
use crate::lab::service::ServiceModel;

/// Replicas a run may have (a hedge needs a second one).
pub const REPLICAS: CountRange = crate::count_range!(2, 1000, " (a hedge needs a second replica)");
/// Attempts a request may make, its first included.
pub const MAX_ATTEMPTS: CountRange = crate::count_range!(1, 10);
/// Windows of simulated time the run's series are cut into.
pub const WINDOWS: CountRange = crate::count_range!(4, 1000);
/// Attempts one replica may hold queued, when there is a limit.
pub const QUEUE_LIMIT: CountRange = crate::count_range!(1, 100000);
/// The lowest utilisation accepted (the loaded model's bound).
pub const MIN_LOAD: f64 = 0.001;
/// The highest utilisation accepted before a spike.
pub const MAX_LOAD: f64 = 2.0;
/// The longest run, in simulated ms (an hour).
pub const MAX_DURATION_MS: f64 = 3_600_000.0;
/// The shortest run, in simulated ms.
pub const MIN_DURATION_MS: f64 = 100.0;

/// What a request does besides its first attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// One attempt; the client gives up at the timeout.
    None,
    /// Timeout-then-retry: an attempt not answered within the timeout is abandoned and another
    /// is sent (after the backoff), up to `max_attempts`.
    Retry,
    /// A backup to a different replica after `hedge_delay_ms`, first answer wins, the client
    /// gives up at the timeout after arrival.
    Hedge,
}

/// The policy names, in [`Policy`] order.
pub const POLICY_NAMES: [&str; 3] = ["none", "retry", "hedge"];

impl Policy {
    /// The policy's name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::None => "none",
            Policy::Retry => "retry",
            Policy::Hedge => "hedge",
        }
    }

    /// The policy called `name`.
    pub fn from_name(name: &str) -> Result<Self, ParamError> {
        match name {
            "none" => Ok(Policy::None),
            "retry" => Ok(Policy::Retry),
            "hedge" => Ok(Policy::Hedge),
            _ => Err(ParamError::UnknownName {
                param: "policy",
                got: name.into(),
                expected: "none, retry, hedge",
            }),
        }
    }
}

/// The named parameters of a run. [`RetriesParams::default`] is the metastable setting the
/// section and the report open on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetriesParams {
    /// FIFO replicas ([`REPLICAS`]).
    pub replicas: u32,
    /// Offered utilisation outside the spike, first attempts only ([`MIN_LOAD`]..=[`MAX_LOAD`]).
    pub load: f64,
    /// What a request sends besides its first attempt.
    pub policy: Policy,
    /// The client's timeout (ms, > 0, may be ∞): per attempt for a retry, per request otherwise.
    pub timeout_ms: f64,
    /// Attempts a retrying request may make, its first included ([`MAX_ATTEMPTS`]).
    pub max_attempts: u32,
    /// The wait before a retry.
    pub backoff: Backoff,
    /// A hedge's delay after arrival (ms, ≥ 0, may be ∞: no backups).
    pub hedge_delay_ms: f64,
    /// The budget retries and backups are drawn from; `None`: unlimited.
    pub budget: Option<Budget>,
    /// The load spike.
    pub spike: Spike,
    /// Attempts a replica holds queued before it refuses more at once; `None`: no limit.
    pub queue_limit: Option<u32>,
    /// Simulated time in which requests arrive (ms): the span of the series.
    pub duration_ms: f64,
    /// Windows the series are cut into ([`WINDOWS`]).
    pub windows: u32,
    /// The seed.
    pub seed: u64,
}

impl Default for RetriesParams {
    /// The metastable setting: ten replicas at 40% load, a 1 s timeout, three attempts with no
    /// backoff, and a 2.5× spike from 10 to 20 s of a 60 s run, in 1 s windows.
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl RetriesParams {
    /// The defaults, as a constant (the call's options declare them).
    pub const DEFAULT: RetriesParams = RetriesParams {
        replicas: 10,
        load: super::DEFAULT_LOAD,
        policy: Policy::Retry,
        timeout_ms: super::DEFAULT_TIMEOUT_MS,
        max_attempts: 3,
        backoff: Backoff::None,
        hedge_delay_ms: super::DEFAULT_HEDGE_DELAY_MS,
        budget: None,
        spike: Spike::DEFAULT,
        queue_limit: Some(super::DEFAULT_QUEUE_LIMIT),
        duration_ms: 60_000.0,
        windows: 60,
        seed: 1,
    };
}

/// Requests waiting out a backoff that add one time the run's base cost per event (see
/// [`RetriesConfig::work_units`]).
pub const BACKLOG_PER_COST_UNIT: f64 = 30_000.0;

/// A checked run: its parameters and its service.
#[derive(Debug, Clone, PartialEq)]
pub struct RetriesConfig {
    pub(super) p: RetriesParams,
    pub(super) service: ServiceModel,
}

impl RetriesConfig {
    /// `p` checked, with the Lab's service model. Each bad parameter is refused by name.
    pub fn new(p: RetriesParams) -> Result<Self, ParamError> {
        REPLICAS.check("replicas", u64::from(p.replicas))?;
        super::call::LOAD.check("load", p.load)?;
        if p.timeout_ms.is_nan() || p.timeout_ms <= 0.0 {
            return Err(ParamError::OutOfRange {
                param: "timeoutMs",
                got: p.timeout_ms,
                expected: "a timeout in ms above 0 (∞: never)",
            });
        }
        MAX_ATTEMPTS.check("maxAttempts", u64::from(p.max_attempts))?;
        p.backoff.check()?;
        if p.hedge_delay_ms.is_nan() || p.hedge_delay_ms < 0.0 {
            return Err(ParamError::OutOfRange {
                param: "hedgeDelayMs",
                got: p.hedge_delay_ms,
                expected: "a delay in ms ≥ 0 (∞: no backups)",
            });
        }
        if let Some(b) = p.budget {
            b.check()?;
        }
        super::call::DURATION_MS.check("durationMs", p.duration_ms)?;
        p.spike.check(p.duration_ms)?;
        if let Some(q) = p.queue_limit {
            QUEUE_LIMIT.check("queueLimit", u64::from(q))?;
        }
        WINDOWS.check("windows", u64::from(p.windows))?;
        Ok(RetriesConfig {
            p,
            service: ServiceModel::default(),
        })
    }

    /// The same run on another service model.
    pub fn with_service(mut self, service: ServiceModel) -> Self {
        self.service = service;
        self
    }

    /// The run's parameters.
    pub fn params(&self) -> &RetriesParams {
        &self.p
    }

    /// The run's service model.
    pub fn service(&self) -> &ServiceModel {
        &self.service
    }

    /// Simulates the run.
    pub fn run(&self) -> RetriesResult {
        super::engine::Simulation::new(self).run()
    }

    /// First attempts the run expects: the arrival rate integrated over the run, spike
    /// included (a measure of its work, for a binding's work limit).
    pub fn expected_requests(&self) -> f64 {
        self.arrival_rate()
            * (self.p.duration_ms + (self.p.spike.factor - 1.0) * self.p.spike.length_ms())
    }

    /// Requests per ms outside the spike.
    fn arrival_rate(&self) -> f64 {
        self.p.load * f64::from(self.p.replicas) / self.service.mean_ms()
    }

    /// The most requests that can wait out a backoff at once, by Little's law: the arrival
    /// rate times the longest a request can spend in backoffs (every retry's mean wait summed),
    /// within the run's span and the runaway cap. 0 without a backoff.
    pub fn backoff_backlog(&self) -> f64 {
        // A draw of 0.5 gives full jitter's mean wait, half its ceiling (and is ignored
        // without jitter).
        let waiting: f64 = (1..self.p.max_attempts)
            .map(|k| self.p.backoff.wait_ms(k, 0.5))
            .sum();
        (self.arrival_rate() * waiting.min(self.p.duration_ms)).min(super::MAX_IN_FLIGHT as f64)
    }

    /// The run's work in the binding's units (about 10 ns of wasm each): 100 per attempt it
    /// may send, `expected requests × max(maxAttempts, 2) × 100`, times `1 + backlog / 30000`
    /// for the timers of requests waiting out a backoff ([`Self::backoff_backlog`]): each waits
    /// in the event heap, and a heap of 150,000 made every event 4.5× dearer (measured in node's
    /// wasm: a 10-minute jittered backoff at 118,000 waiting took 1.3 s, the same run without a
    /// backoff 0.29 s).
    pub fn work_units(&self) -> f64 {
        self.expected_requests()
            * f64::from(self.p.max_attempts.max(2))
            * 100.0
            * (1.0 + self.backoff_backlog() / BACKLOG_PER_COST_UNIT)
    }
}

/// Why a run has no latency numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unstable {
    /// More than [`super::MAX_IN_FLIGHT`] requests waited at once, or more than
    /// [`super::MAX_IN_SYSTEM`] attempts sat at the replicas: no more requests arrived.
    Runaway {
        /// Requests that had arrived when arrivals stopped.
        arrived: u64,
    },
    /// Some latencies passed the top of the shared histogram (about 17 minutes).
    OffScale,
}

impl Unstable {
    /// A sentence for a reader.
    pub fn describe(&self) -> String {
        match self {
            Unstable::Runaway { arrived } => format!(
                "the backlog passed the runaway cap ({} requests waiting or {} attempts at the \
                 replicas); arrivals stopped after {arrived} requests",
                super::MAX_IN_FLIGHT,
                super::MAX_IN_SYSTEM
            ),
            Unstable::OffScale => {
                "some latencies passed the histogram's top (about 17 minutes)".into()
            }
        }
    }
}

/// The outcome of one run. Counts are whole-run; latencies are of successful requests that
/// arrived after the warm-up (the first tenth of the run).
#[derive(Debug, Clone, PartialEq)]
pub struct RetriesResult {
    /// The parameters the run used.
    pub params: RetriesParams,
    /// `None` when the run is stable; otherwise why it has no latencies.
    pub unstable: Option<Unstable>,
    /// Requests that arrived.
    pub requests: u64,
    /// Attempts sent: first attempts, retries and backups.
    pub attempts: u64,
    /// Retries sent.
    pub retries: u64,
    /// Backups (hedges) sent.
    pub backups: u64,
    /// Retries or backups the budget refused.
    pub denied: u64,
    /// Attempts refused at once by a full replica queue.
    pub rejected: u64,
    /// Requests answered (by a live attempt, within its timeout).
    pub successes: u64,
    /// Requests that got no answer: every attempt timed out or was refused.
    pub failures: u64,
    /// Server time spent on attempts whose answer nobody used (ms).
    pub wasted_work_ms: f64,
    /// Server time spent in all (ms).
    pub work_ms: f64,
    /// Requests measured (arrived after the warm-up).
    pub measured: u64,
    /// Of those, answered.
    pub measured_successes: u64,
    /// p50, p99 and mean latency (ms) of the measured successes; `None` when unstable or
    /// none succeeded.
    pub p50_ms: Option<f64>,
    /// See `p50_ms`.
    pub p99_ms: Option<f64>,
    /// See `p50_ms`.
    pub mean_ms: Option<f64>,
    /// The most requests in flight at once.
    pub peak_in_flight: u64,
    /// The most attempts at the replicas at once (queued or in service, abandoned included).
    pub peak_in_system: u64,
    /// Attempts sent after the last window (the run's end, while its last requests resolve).
    pub attempts_after_end: u64,
    /// Width of a window (ms).
    pub window_ms: f64,
    /// Per window: requests arrived.
    pub window_requests: Vec<f64>,
    /// Per window: attempts sent.
    pub window_attempts: Vec<f64>,
    /// Per window: goodput, requests answered (within an attempt's timeout) in the window.
    pub window_goodput: Vec<f64>,
    /// Per window: requests that failed.
    pub window_failures: Vec<f64>,
    /// Per window: p99 latency (ms) of the requests answered in it; NaN (null in JSON) where none
    /// was (its goodput is 0): no latency was measured, which is not a latency of 0.
    pub window_p99_ms: Vec<f64>,
    /// Per window: the time-average of attempts at the replicas (queued or in service).
    pub window_in_system: Vec<f64>,
}

impl RetriesResult {
    /// Attempts over requests.
    pub fn amplification(&self) -> f64 {
        self.attempts as f64 / self.requests.max(1) as f64
    }

    /// Share of requests answered.
    pub fn success_share(&self) -> f64 {
        self.successes as f64 / self.requests.max(1) as f64
    }

    /// Share of server time spent on answers nobody used.
    pub fn wasted_share(&self) -> f64 {
        if self.work_ms > 0.0 {
            self.wasted_work_ms / self.work_ms
        } else {
            0.0
        }
    }

    /// Mean goodput per window before the spike starts (requests per window).
    pub fn goodput_before(&self) -> f64 {
        let w = self.window_ms;
        let end = ((self.params.spike.start_ms / w) as usize).min(self.window_goodput.len());
        // Skip the first window (the run starts empty): the steady state before the spike.
        mean(self.window_goodput.get(1.min(end)..end).unwrap_or(&[]))
    }

    /// Mean goodput over the last quarter of the windows (requests per window).
    pub fn goodput_end(&self) -> f64 {
        let n = self.window_goodput.len();
        mean(&self.window_goodput[n - n / 4..])
    }

    /// [`Self::goodput_end`] over [`Self::goodput_before`]: near 1 when the service recovered
    /// from the spike, near 0 when it stayed down.
    pub fn recovery(&self) -> f64 {
        let before = self.goodput_before();
        if before > 0.0 {
            self.goodput_end() / before
        } else {
            0.0
        }
    }
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 32 item 7: a run whose requests wait out long backoffs holds their timers in the
    /// event heap and costs more per event; its work counts them. Without a backoff the work is
    /// the base formula, unchanged.
    #[test]
    fn waiting_requests_add_to_the_work() {
        let base = RetriesParams {
            replicas: 100,
            load: 0.019,
            timeout_ms: 1.0,
            max_attempts: 10,
            queue_limit: None,
            duration_ms: 1_200_000.0,
            ..RetriesParams::default()
        };
        let plain = RetriesConfig::new(base).unwrap();
        assert_eq!(plain.backoff_backlog(), 0.0);
        assert_eq!(plain.work_units(), plain.expected_requests() * 10.0 * 100.0);
        let jitter = RetriesConfig::new(RetriesParams {
            backoff: Backoff::from_name("jitter", 600_000.0, 600_000.0).unwrap(),
            ..base
        })
        .unwrap();
        // 9 retries of 300 s on average outlast the 1,200 s run: every request arriving in it
        // may be waiting, about 118,000 of them.
        let backlog = jitter.backoff_backlog();
        let want = jitter.expected_requests() * 1_200_000.0 / (1_200_000.0 + 1.5 * 10_000.0);
        assert!(
            (backlog / want - 1.0).abs() < 1e-9,
            "{backlog} against {want}"
        );
        assert!(jitter.work_units() > 4.0 * plain.work_units());
        assert!(
            jitter.work_units() > 1.5e8,
            "over the binding's limit: refused"
        );
    }
}
