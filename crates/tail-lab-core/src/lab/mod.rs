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
        /// Each model's module (its folder or file under `src/lab/`), in the order of
        /// [`MODELS`].
        pub const MODULES: &[&str] = &[$(stringify!($model)),*];
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

/// The model `cargo xtask new-model NAME` copies (`xtask/templates/model/`, with its names
/// replaced), compiled and unit-tested with the core's tests so that a copy builds and passes;
/// not in [`MODELS`], so no report, binding or page sees it.
#[cfg(test)]
#[path = "../../../../xtask/templates/model/mod.rs"]
mod template;

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

#[cfg(test)]
mod template_tests {
    use super::template;
    use crate::api::OptionValues;

    #[test]
    fn the_new_model_template_runs_its_report_and_its_declared_call() {
        // What every registered model must have (model.rs checks it for `MODELS`), here for
        // the template, which is not registered.
        let m = &template::MODEL;
        let call = m.api.expect("the template declares its call");
        assert_eq!((Some(call.name), call.result_type), (m.call, m.result_type));
        assert!(!m.streams.is_empty() && m.runs == 1);
        let outputs = (0..m.runs).map(|i| (m.run)(i, 1, 2_000).unwrap()).collect();
        assert!((m.entries)(outputs).is_ok());
        assert!((m.example)().iter().any(|f| f.key == "p99"));
        // Its call at its defaults: a bounded run whose fields are the example's.
        let prepared = (call.prepare)(&OptionValues::complete(call.options, Vec::new())).unwrap();
        assert!(prepared.work.check().is_ok());
        let keys = |fields: Vec<crate::describe::Field>| -> Vec<_> {
            fields.iter().map(|f| f.key).collect()
        };
        assert_eq!(keys(prepared.run().unwrap()), keys((m.example)()));
        // Its stream is no registered model's.
        let used: Vec<_> = crate::model::MODELS
            .iter()
            .flat_map(|m| m.streams.iter().copied())
            .collect();
        assert!(m.streams.iter().all(|s| !used.contains(s)));
        assert_eq!(template::CALL.name, "simulateNewModel");
    }
}
