//! # tail-lab-core
//!
//! The simulation core of Tail Latency Lab: why a request that fans out to 100 leaves inherits
//! the leaves' rare tail as its median, and what hedging and partial results do about it.
//!
//! Pure Rust on `rand`, `rand_distr` and `libm`: no wasm-bindgen, no JS, no drawing, no timers,
//! no OS entropy. Every random number is *addressed* ([`sampling::address`]): a pure function of
//! `(seed, stream, request, leaf, attempt)`, bit-identical natively and in wasm.
//!
//! Map:
//! - [`sampling`] — addressed streams ([`sampling::address`]), the distributions and the fast
//!   table sampler, and histograms on one shared set of log-spaced bins.
//! - [`tail`] — the Tail piece: leaf profiles, one parent request with its fixes, runs.
//! - [`lab`] — the Lab's models: the service model, fan-out, idle hedging, hedging on loaded
//!   replicas (discrete-event simulation), the power of d choices (Markov chain).
//! - [`des`] — the discrete-event core (event queue, slab, FIFO stations) that queueing
//!   models run on.
//! - [`theory`] — the closed forms everything is tested against.
//! - [`model`] — the one list of models; [`describe`] — each result's fields, written once.
//! - [`api`] — each call's options, declared once: a binding reads and documents them from here.
//! - [`report`] — the headline report, over every registered model.
//! - [`error`] — the typed parameter error every validating constructor returns.
//!
//! Times are in milliseconds and probabilities are fractions in 0..=1 throughout.

// The rules of clippy.toml (libm floats, no clocks, no threads), and every public item documented.
#![deny(clippy::disallowed_methods)]
#![warn(missing_docs)]

pub mod api;
pub mod des;
pub mod describe;
pub mod error;
pub mod lab;
pub mod model;
pub mod report;
pub mod sampling;
pub mod tail;
pub mod theory;

pub use error::ParamError;
