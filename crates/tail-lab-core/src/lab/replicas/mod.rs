//! The loaded-replica kernel: what the engines of FIFO replicas with copies share (`loaded`,
//! which `cancellation`, `fairness` and `omission` run on, `tied`, `budget` and `retries`).
//!
//! - `choice`: the replica a copy goes to ([`uniform_below`], [`elsewhere`]), the one
//!   arithmetic every engine's draws go through, so equal bits pick equal replicas.
//! - `set`: the replicas ([`ReplicaSet`]), FIFO single servers, each with its queue of copies
//!   and its next completion; the engines' copies, their states and their cancellation rules
//!   are the engines' own.
//! - [`draws`]: the sub-streams a request's draws come from (one layout for `loaded`, `tied`
//!   and `budget`), its arrival gap and its primary's and backup's replicas.
//! - `cancellation`: the rules for the copy that did not answer first ([`Cancellation`], public
//!   as `lab::loaded::Cancellation`).
//! - `answers`: a run's measured latencies ([`Answers`]): past the warm-up, on the shared
//!   bins by batch, and in four blocks whose means say whether the latency drifts.
//!
//! Crate-private: the models' configurations and results are the public face; this layer is
//! how they are computed. It uses [`crate::des`] and `sampling`, and no model.

mod answers;
mod cancellation;
mod choice;
pub(crate) mod draws;
mod set;

pub(crate) use answers::Answers;
pub use cancellation::Cancellation;

pub(crate) use choice::{elsewhere, uniform_below};
pub(crate) use set::ReplicaSet;
