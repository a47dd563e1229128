//! The wasm-bindgen facade of Tail Latency Lab: the ES-module API the page uses.
//!
//! A thin binding that mirrors the core's modules file for file. It converts arguments,
//! type-checks them, and turns the core's `ParamError` into a JS `RangeError` (and wrong types
//! into `TypeError`); it holds no model logic. Bulk data crosses as typed arrays: histogram
//! counts as `Float64Array` *views over wasm memory* (valid until the next call into the
//! module: rebuild them every frame), everything else as copies.
//!
//! ```javascript
//! import init, { TailRun, slowShare } from "./pkg/tail_lab.js";
//! await init();
//! const run = new TailRun({ fanout: 100, profile: "default", fix: "none", seed: 1 });
//! run.run(10000);
//! run.parentPercentile(0.99); // ≈ 310 ms
//! slowShare(0.01, 100);       // 0.634
//! ```

// The rules of clippy.toml (libm floats, no clocks, no threads), and every public item documented.
#![deny(clippy::disallowed_methods)]
#![warn(missing_docs)]

mod api;
mod convert;
mod describe;
mod error;
mod lab;
#[cfg(target_arch = "wasm32")]
mod recovery;
mod sampling;
mod tail;
mod theory;
#[cfg(test)]
mod typescript;

pub use describe::models;
pub use lab::fanout_latency::fanout_latency_theory;
pub use lab::lab_defaults;
pub use lab::supermarket::fixed_point;
pub use sampling::histogram::bin_edges;
pub use tail::leaf_quantiles::{leaf_quantile, parent_quantile};
pub use tail::mitigation::{dropped_leaves, mitigations};
pub use tail::profile::{leaf_sample, profiles};
pub use tail::request::request_at;
pub use tail::tail_run::JsTailRun;
pub use theory::{crossover, parent_level, slow_share};

use wasm_bindgen::prelude::*;

/// Installs the panic hook when the module starts (see the `recovery` module: a panic is a bug, reported
/// to the page, and the module is reset before the next call).
#[wasm_bindgen(start)]
pub fn start() {
    #[cfg(target_arch = "wasm32")]
    recovery::install_panic_hook();
}
