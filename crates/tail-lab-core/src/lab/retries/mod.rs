//! Retries against hedges, and a retry storm (seed 003 §7–8, seed 004).
//!
//! Loaded replicas as in [`crate::lab::loaded`]: `replicas` FIFO single servers, an open-loop
//! Poisson stream of requests at utilisation `load` (offered first-attempt work over capacity),
//! each attempt to a uniformly random replica, any Lab service. The client is one of:
//! - **retry** (timeout-then-retry): an attempt not answered within `timeout_ms` is abandoned
//!   and, after a [`Backoff`] (none, exponential, or exponential with full jitter), another is
//!   sent to a random replica, up to `max_attempts` in all. The replica does not know: the
//!   abandoned attempt stays in its queue and costs its full service when it reaches the head,
//!   and an answer after the client gave up is wasted work. That is what makes a storm.
//! - **hedge**: a backup to a different replica after `hedge_delay_ms`, first answer wins, as
//!   the loaded model; the client tells the replica, so a loser still queued is cancelled (one
//!   in service runs to its end). The request fails at `timeout_ms` after arrival.
//! - **none**: one attempt; the request fails at the timeout.
//!
//! Retries and backups may be drawn from a ratio [`Budget`] (every request deposits `ratio` of
//! a token, a retry or backup spends one, the bucket holds `burst` and starts full): retries
//! plus backups never exceed `burst + ratio × requests`.
//!
//! **The queue limit.** A replica holding [`DEFAULT_QUEUE_LIMIT`] attempts queued refuses the
//! next at once, and the refusal counts as a failed attempt (retried like a timeout, at no
//! server cost). It bounds memory in a storm, where every abandoned attempt still waits in a
//! queue that would otherwise grow for as long as the storm lasts. It is set high (1,000
//! attempts of 19 ms: about 19 s of work, nineteen timeouts) so that it refuses nothing in a
//! calm run and does not end a storm early: a full queue makes every attempt wait past the
//! timeout anyway. A low limit would shed load (refused retries cost no service) and can end a
//! storm by itself, which is a different remedy from the one this model isolates.
//!
//! **A load spike** multiplies the arrival rate by `spike` for a window. With the defaults
//! (40% load, 1 s timeout, three attempts, no backoff, 2.5× for 10 s), the spike pushes
//! latency past the timeout, each request then sends three attempts, and 3 × 40% = 120% of
//! capacity keeps the queues full after the spike ends: goodput stays near zero (a metastable
//! failure). With a 10% budget the same spike recovers: at most 1.1 × 40% reaches the replicas.
//!
//! Outputs: whole-run counts (requests, attempts, retries, backups, refusals, failures),
//! amplification (attempts ÷ requests), success share, wasted work, p50/p99/mean of the
//! successful requests that arrived after the warm-up (a tenth of the run), and per window of
//! simulated time (a [`crate::sampling::timeline::Timeline`]): requests, attempts, goodput,
//! failures, p99, and attempts at the replicas. Memory is bounded by requests in flight and by
//! the windows; a run past the runaway cap ([`MAX_IN_FLIGHT`], [`MAX_IN_SYSTEM`]) stops taking
//! arrivals and is reported with no latency numbers.
//!
//! Files: [`params`] (parameters and result), [`rules`] (backoff, budget, spike), [`theory`]
//! (the no-retry mean, the storm's load, the budget's bound), `engine` (the simulation) and
//! `model` (its registration).

pub mod params;
pub mod rules;
pub mod theory;

mod call;
mod engine;
mod model;

pub use call::{CALL, THEORY_OPTIONS, params as call_params};
pub use model::MODEL;
pub use params::{
    MAX_ATTEMPTS, POLICY_NAMES, Policy, QUEUE_LIMIT, REPLICAS, RetriesConfig, RetriesParams,
    RetriesResult, Unstable, WINDOWS,
};
pub use rules::{BACKOFF_NAMES, Backoff, Budget, DEFAULT_BURST, Spike};

use crate::sampling::address::Stream;

/// The random stream of the retries model (id 26).
pub const STREAM: Stream = Stream::new(26);
/// The default utilisation outside the spike.
pub const DEFAULT_LOAD: f64 = 0.4;
/// The default client timeout (ms).
pub const DEFAULT_TIMEOUT_MS: f64 = 1000.0;
/// The default hedge delay (ms): about the Lab service's p95.
pub const DEFAULT_HEDGE_DELAY_MS: f64 = 20.0;
/// The default queue limit per replica (attempts queued).
pub const DEFAULT_QUEUE_LIMIT: u32 = 1000;
/// The budget ratio the section and report use (tokens per request).
pub const DEFAULT_BUDGET_RATIO: f64 = 0.1;
/// Most requests in flight before arrivals stop (the runaway cap).
pub const MAX_IN_FLIGHT: usize = 200_000;
/// Most attempts at the replicas before arrivals stop (the runaway cap).
pub const MAX_IN_SYSTEM: u64 = 400_000;
