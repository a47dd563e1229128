//! The closed forms a tied run is checked against.
//!
//! **Tied to all, no message delay: M/M/c.** Each request is enqueued at every one of the `c`
//! replicas, and the first copy to start removes the others at once. A request then starts as
//! soon as any replica is free and every earlier request has started (each replica's queue
//! holds every request, in arrival order): that is one FIFO queue in front of `c` servers,
//! and with Poisson arrivals and exponential service, M/M/c. Its mean and sojourn
//! distribution are the single queue's ([`crate::lab::queue::theory`], in mean service times),
//! scaled here to ms.
//!
//! **Message delay ∞: never-cancelled duplicates.** No cancellation ever lands, so every copy
//! runs to its end and the replicas carry `tie · load`: stable only while that is below 1
//! ([`never_lands_boundary`]).

use crate::lab::queue::theory as mmc;

/// M/M/c mean time in system (ms): `c` servers at per-server utilisation `load` (0..1), mean
/// service `mean_ms`. NaN outside `c ≥ 1`, `0 < load < 1`.
pub fn mmc_mean_ms(servers: u32, load: f64, mean_ms: f64) -> f64 {
    mean_ms * mmc::mean_sojourn(servers, load)
}

/// M/M/c `P(T > t_ms)` of the time in system, as [`mmc_mean_ms`].
pub fn mmc_survival(t_ms: f64, servers: u32, load: f64, mean_ms: f64) -> f64 {
    mmc::sojourn_survival(t_ms / mean_ms, servers, load)
}

/// M/M/c `q`-quantile (ms) of the time in system, as [`mmc_mean_ms`].
pub fn mmc_quantile_ms(servers: u32, load: f64, q: f64, mean_ms: f64) -> f64 {
    mean_ms * mmc::sojourn_quantile(servers, load, q)
}

/// Erlang C: the share of requests that wait, as [`mmc_mean_ms`].
pub fn mmc_wait_probability(servers: u32, load: f64) -> f64 {
    mmc::erlang_c(servers, load)
}

/// The load from which a tie of `tie` copies whose cancellations never land is unstable:
/// `1 / tie` (every copy runs, `tie · load ≥ 1`).
pub fn never_lands_boundary(tie: u32) -> f64 {
    1.0 / f64::from(tie)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ms_scaling_of_the_single_queue() {
        // M/M/1: mean m/(1 − ρ), survival e^{−(1−ρ)t/m}.
        assert!((mmc_mean_ms(1, 0.5, 10.0) - 20.0).abs() < 1e-12);
        let s = mmc_survival(30.0, 1, 0.5, 10.0);
        assert!((s - libm::exp(-1.5)).abs() < 1e-14);
        let q = mmc_quantile_ms(1, 0.5, 0.99, 10.0);
        assert!((q - 20.0 * libm::log(100.0)).abs() < 1e-6 * q);
        assert!((mmc_wait_probability(1, 0.3) - 0.3).abs() < 1e-15);
        assert_eq!(never_lands_boundary(2), 0.5);
        assert!(mmc_mean_ms(2, 1.0, 10.0).is_nan());
    }
}
