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
//!
//! **Theory.** Without backups each replica is an M/G/1 queue at utilisation `load`, and the
//! mean latency is Pollaczek–Khinchine's ([`theory::no_backup_mean_ms`]); backups break the
//! independence it rests on, so the other policies have no closed form here.
//!
//! Files: [`policy`] (when a backup is sent and what happens to the loser), [`config`] (a run's
//! parameters, its result, the sweep), [`theory`] (the no-backup mean), `model` (its
//! registration: the result described, its report runs) and `engine` (the simulation itself,
//! on [`crate::des`], and the no-backup p95 a loaded hedge waits for, by Lindley's recursion).

mod call;
pub mod config;
pub mod options;
pub mod policy;
pub mod theory;
pub mod trace;

mod engine;
mod model;
#[cfg(test)]
mod tests;

pub use call::{CALL, TRACE_OPTIONS, trace_params};
pub use config::{
    AT_CAPACITY, CALIBRATION_STREAM, DELAY_CALIBRATION_STREAM, HEDGE_QUANTILE, LoadedConfig,
    LoadedParams, LoadedResult, LoadedService, MAX_IN_FLIGHT, MAX_LOAD, MAX_MEAN_MS, MIN_LOAD,
    MIN_MEAN_MS, MeanMs, REPLICAS, REQUESTS, REQUESTS_PER_CALL, STREAM, SWEEP_LOADS, SWEEP_POINTS,
    Unstable, calibrated_idle_delay, exponential, sweep, sweep_point, sweep_with_progress,
};
pub use model::{CANCELLATION_NAMES, DEFAULT_REPLICAS, DELAY_BASIS_NAMES, MODEL, POLICY_NAMES};
pub use policy::{Cancellation, DelayBasis, DelayMs, HedgeDelay, LoadedPolicy, MAX_DELAY_MS};
