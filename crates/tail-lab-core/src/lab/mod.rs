//! The Lab's models (seeds 000/001): the service-time model, fan-out, hedging on idle
//! replicas, hedging on loaded replicas, the power of d choices, and the single M/M/c queue.

pub mod fanout;
pub mod hedge_idle;
pub mod loaded;
pub mod queue;
pub mod service;
pub mod supermarket;

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
