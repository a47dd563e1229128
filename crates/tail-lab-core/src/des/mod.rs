//! A small discrete-event core: the pieces a queueing model is built from, and nothing of any
//! one model.
//!
//! - [`EventQueue`]: timed events popped in time order, ties in the order they were scheduled,
//!   so a run is a pure function of its inputs (no hash order, no pointer order).
//! - [`EventKey`]: that order as one integer (time by [`f64::total_cmp`], then sequence
//!   number), and [`StationClocks`]: the one pending event of each of `n` stations, earliest
//!   first. A model whose events fall into kinds with a known order (one pending arrival, a
//!   FIFO of timers, a completion per server) keeps each kind apart, numbers them all from one
//!   counter and pops the earliest key: the same order as one queue, with no heap of boxed
//!   events and no stale completions (every queueing model does: the single queue, and the
//!   replica engines through `lab::replicas`). No model pops an [`EventQueue`] any more: it is
//!   the order they keep, and the reference their tests and documentation name.
//! - [`FifoTimers`]: timers a fixed delay after events in time order, so due in the order they
//!   are set (a FIFO, no heap), and [`Timers`]: timers due at any [`EventKey`]s, earliest
//!   first, that leave at once when cancelled (a timer whose request was answered holds no
//!   memory).
//! - [`Ring`]: a first-in-first-out queue on a power-of-two buffer, indexed from the front.
//! - [`Slab`]: records that come and go (a request's copies, jobs in a queue) in reused slots,
//!   named by a [`SlotKey`] that goes stale when its record is removed. A removed record's
//!   events and queue entries need not be hunted down: they are dropped when they next come up
//!   ("lazy cancellation"), which keeps every cancel O(1).
//! - [`FifoStation`]: `servers` identical servers in front of one first-come-first-served
//!   queue. Each server knows the job it is serving; starting the next job can skip jobs
//!   cancelled while they waited.
//!
//! **Time.** Times are `f64` in whatever unit the model chooses; the Lab's models use
//! milliseconds (`lab::loaded`) or mean service times (`lab::queue`). The core only compares
//! and orders them, and never adds to them: a model computes `now + duration` itself, so the
//! order of floating-point operations is the model's.
//!
//! **Randomness.** None here: models draw from addressed streams (`sampling::address`), so
//! what the core does cannot change a number, only when it is used.
//!
//! Used by the single queue (`lab::queue`) and by the replica kernel (`lab::replicas`) that
//! the loaded, tied, budget and retries engines share (fairness between tenants and
//! cancellation delays are the loaded engine's options): each is a set of events, records in a
//! ring or a slab, and stations. Imports flow one way: `des` uses only `std`, and no model, `theory` or `sampling` type.

mod clocks;
mod events;
mod fifo_timers;
mod ring;
mod slab;
mod station;
#[cfg(test)]
mod tests;
mod timers;

pub use clocks::{EventKey, StationClocks};
pub use events::EventQueue;
pub use fifo_timers::FifoTimers;
pub use ring::Ring;
pub use slab::{Slab, SlotKey};
pub use station::FifoStation;
pub use timers::Timers;
