//! The core's integration tests, as one test crate (one binary to build and link): each file
//! is a module, and `common` holds what they share, the statistics helpers (`Z`, `tolerance`,
//! `mean_se`, the t quantiles, `binned_quantile`) and the pinned value vectors.
//!
//! The heaviest statistical checks are `#[ignore = "slow: …"]`: `cargo test` skips them and
//! `cargo xtask ci` runs them in a step of their own,
//! `cargo test --release -p tail-lab-core --test it -- --ignored`.

mod balancer_signals;
mod budget;
mod cancellation;
mod closed_forms;
mod common;
mod correlated;
mod coverage;
mod empirical;
mod fairness;
mod fanout_latency;
mod fuzz_configs;
mod golden;
mod graph;
mod loaded_findings;
mod loaded_mg1;
mod omission;
mod precision;
mod queue;
mod queueing;
mod retries;
mod seed_figures;
mod supermarket_shares;
mod tail_empirical;
mod tied;
mod value_stability;
