//! # tail-lab-core
//!
//! The simulation core of Tail Latency Lab: why a request that fans out to 100 leaves inherits
//! the leaves' rare tail as its median, and what hedging and partial results do about it.
//!
//! Pure Rust on `rand`, `rand_distr` and `libm`: no wasm-bindgen, no JS, no drawing, no timers,
//! no OS entropy. Every random number is *addressed* ([`address`]): a pure function of
//! `(seed, stream, request, leaf, attempt)`, bit-identical natively and in wasm.
//!
//! Map:
//! - [`address`] — coordinates → per-sample streams.
//! - [`normal`], [`lognormal`], [`inverse_cdf`] — the distributions and the fast table sampler.
//! - [`profile`] — leaf latency profiles of the Tail piece (body + additive pause).
//! - [`service`] — the Lab's service-time model (body replaced by a rare slow mode).
//! - [`histogram`] — running histograms on one shared set of log-spaced bins.
//! - [`leaf_quantiles`] — the measured leaf distribution and `F(t)^n`.
//! - [`mitigation`], [`request`], [`tail_run`] — the Tail piece: one parent request, a run.
//! - [`fanout`], [`hedge_idle`] — the Lab's first two experiments.
//! - [`loaded`] — hedging on loaded FIFO replicas (discrete-event simulation).
//! - [`supermarket`] — the power of d choices (Markov chain).
//! - [`theory`] — the closed forms everything is tested against.
//! - [`report`] — the headline table.
//! - [`error`] — the typed parameter error every validating constructor returns.
//!
//! Times are in milliseconds and probabilities are fractions in 0..=1 throughout.

pub mod address;
pub mod error;
pub mod fanout;
pub mod hedge_idle;
pub mod histogram;
pub mod inverse_cdf;
pub mod leaf_quantiles;
pub mod loaded;
pub mod lognormal;
pub mod mitigation;
pub mod normal;
pub mod profile;
pub mod report;
pub mod request;
pub mod service;
pub mod supermarket;
pub mod tail_run;
pub mod theory;

pub use error::ParamError;
