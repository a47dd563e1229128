//! The Lab's models (seeds 000/001): the service-time model, fan-out (the share of slow
//! requests, and the parent's latency in `fanout_latency`), hedging on idle replicas, hedging
//! on loaded replicas, the power of d choices, and the single M/M/c queue.

pub mod precision;
pub(crate) mod replicas;
pub mod service;

/// Declares each Lab model's module and lists the models, in the report's order (the page's
/// order is `SECTIONS` in web/lab/sections.js): a model's folder (or file) and its name in this
/// one line.
macro_rules! lab_models {
    ($($model:ident),* $(,)?) => {
        $(pub mod $model;)*
        /// The Lab's registered models, in the report's order ([`crate::model::MODELS`] holds
        /// them all).
        pub const MODELS: &[&crate::model::Model] = &[$(&$model::MODEL),*];
    };
}

lab_models!(
    fanout,
    fanout_latency,
    hedge_idle,
    queue,
    loaded,
    supermarket,
    graph,
    correlated,
    empirical,
    omission,
    tied,
    budget,
    retries,
    cancellation,
    fairness,
    balancer_signals
);

/// Runs sweep points `0..points` in order with `run`, calling `step` after each: the one loop
/// behind the loaded and balance sweeps' `sweep_with_progress`.
pub(crate) fn sweep_points<T, E>(
    points: usize,
    step: &mut dyn FnMut(),
    mut run: impl FnMut(usize) -> Result<T, E>,
) -> Result<Vec<T>, E> {
    (0..points)
        .map(|i| {
            let r = run(i);
            step();
            r
        })
        .collect()
}
