//! The wasm-bindgen facade of Tail Latency Lab.
//!
//! This crate is where JavaScript meets the core: it will export the ES-module API the page
//! uses (`TailRun`, `requestAt`, `slowShare`, …), one file per core module, turning the core's
//! typed errors into JS `RangeError`/`TypeError`. It holds no model logic.
//!
//! The bindings arrive with the page issue; until then the crate only fixes the workspace's
//! shape and re-exports the core, so `cargo build --target wasm32-unknown-unknown` exercises the
//! same dependency graph the page will ship.

pub use tail_lab_core as core;
