//! The core's integration tests, as one test crate (one binary to build and link): each file
//! is a module, and `common` holds what they share, the statistics helpers (`Z`, `tolerance`,
//! `mean_se`, the t quantiles, `binned_quantile`) and the pinned value vectors.
//!
//! The heaviest statistical checks are `#[ignore = "slow: …"]`: `cargo test` skips them and
//! `cargo xtask ci` runs them in a step of their own,
//! `cargo test --release -p tail-lab-core --test it -- --ignored`.
//!
//! A model's own tests live in its folder, `src/lab/<model>/it.rs`, and join this crate as the
//! module `<model>` with no line here: `build.rs` lists them in `$OUT_DIR/model_tests.rs`. The
//! files here are the tests across models and those of the models not yet moved.

mod closed_forms;
mod common;
mod coverage;
mod fanout_latency;
mod fuzz_configs;
mod golden;
mod loaded_findings;
mod loaded_mg1;
mod precision;
mod queueing;
mod seed_figures;
mod supermarket_shares;
mod tail_empirical;
mod value_stability;

include!(concat!(env!("OUT_DIR"), "/model_tests.rs"));
