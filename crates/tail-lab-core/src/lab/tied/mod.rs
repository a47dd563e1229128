//! Tied requests on loaded replicas (Dean and Barroso, seed 003): a discrete-event simulation.
//!
//! `replicas` FIFO single servers serve an open-loop Poisson stream at utilisation `load`, the
//! loaded model's convention ([`crate::lab::loaded`]): offered work over capacity before
//! duplicates, so the arrival rate is `load × replicas / mean service`. Each request is
//! enqueued at once at `tie` distinct, uniformly random replicas (2..=replicas; `tie =
//! replicas` ties it to all).
//!
//! **The rule, precisely.** The first copy of a request to *start* service is its owner: as it
//! starts it sends a cancellation to every sibling, which lands `message_delay_ms` later (0:
//! at the same instant, before anything else happens; ∞: never, and nothing is sent). When it
//! lands, a sibling still waiting leaves its queue at no cost; a sibling that started meanwhile
//! is aborted (its server freed at once, the work it did wasted); a sibling that has already
//! finished is left alone. Only the owner sends: a copy that starts while the owner's
//! cancellation is in flight sends none of its own (both would otherwise cancel each other and
//! lose the request, the corner case Dean and Barroso avoid), and the owner is never cancelled.
//! Answering cancels nothing: the request is answered by the first copy to *finish*, usually the
//! owner, but a sibling that started within the delay and finished before the owner answers
//! first (the owner still runs to its end, its work then wasted).
//!
//! Outputs ([`TiedResult`]): p50/p99/p99.9 and mean latency (arrival to the first finish) with
//! 95% batch-means intervals, extra work (server time on copies that did not answer, over the
//! answering copies' service), the share of cancellations that came too late (found their
//! copy started or finished), copies started per request, the utilisation, and an unstable flag
//! past the runaway cap ([`MAX_IN_FLIGHT_COPIES`] copies of unanswered requests) or the closed
//! form (`tie · load ≥ 1` when cancellations never land; load ≥ 1).
//!
//! **References.** [`reference()`] runs the loaded model's none, hedge (after the p95 of no-backup
//! latency at the same load) and duplicate (backup cancelled when the primary answers) at the
//! same replicas, load and service, on the loaded model's own stream, in the same result shape.
//!
//! **Checks** ([`theory`]): tied to all at message delay 0 on exponential service is M/M/c;
//! message delay ∞ at tie 2 is the loaded model's never-cancelled duplicate, bit for bit on the
//! same stream (the engine draws as the loaded engine does), with its boundary `tie · load < 1`.
//!
//! Files: `config` (parameters, result), `engine` (the simulation on [`crate::des`]),
//! [`theory`] (the closed forms), `model` (its registration and the references).

mod call;
mod config;
mod engine;
mod model;
#[cfg(test)]
mod tests;
pub mod theory;

pub use call::{CALL, THEORY_LOAD};
pub use config::{
    MAX_IN_FLIGHT_COPIES, MAX_LOAD, MAX_MESSAGE_DELAY_MS, MIN_LOAD, REPLICAS, REQUESTS, STREAM,
    TiedConfig, TiedParams, TiedPolicy, TiedResult,
};
pub use model::{MODEL, POLICY_NAMES, REPORT_LOADS, REPORT_REQUESTS, reference, report_config};
