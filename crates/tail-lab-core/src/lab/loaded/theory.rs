//! The closed form of a loaded run without backups: each replica is an M/G/1 queue.
//!
//! Without backups a request joins one uniformly random replica of `replicas` (the engine's
//! dispatch: `uniform_below(bits, replicas)`, independent of every queue), so by Poisson
//! thinning each replica sees a Poisson stream of rate `λ = ρ / E[S]` per ms, at utilisation ρ
//! (the run's `load`). A FIFO single server with Poisson arrivals and independent service
//! times `S` is M/G/1, whose mean time in system is Pollaczek–Khinchine's
//!
//! `E[T] = E[S] + λ E[S²] / (2 (1 − ρ))`,
//!
//! finite only for ρ < 1. It needs the first two moments of the service time only: for the Lab's
//! model ([`ServiceModel::mean_ms`] ≈ 19.3 ms, [`ServiceModel::second_moment_ms2`] ≈ 12,873 ms²,
//! 99% of it from the 1% one-second hiccups) that is `19.3 + 334 ρ/(1 − ρ)` ms: 56 ms at 10%
//! load, 353 ms at 50%, 3.0 s at 90%. The mean is a hiccup's story even at light load, while the
//! median stays near the body's 8 ms.

use super::config::{LOAD_EXPECTED, MAX_LOAD, MIN_LOAD};
use crate::error::{ParamError, check_range};
use crate::lab::service::ServiceModel;

/// Pollaczek–Khinchine's M/G/1 mean time in system (ms) for a service time of mean `mean_ms`
/// (ms) and second moment `second_moment_ms2` (ms²) at utilisation `rho`:
/// `E[S] + (ρ / E[S]) E[S²] / (2 (1 − ρ))`. `None` when ρ ≥ 1 (no finite mean); NaN for
/// arguments outside `mean_ms > 0`, `second_moment_ms2 ≥ mean_ms²`, `rho ≥ 0`.
pub fn pollaczek_khinchine_mean_ms(mean_ms: f64, second_moment_ms2: f64, rho: f64) -> Option<f64> {
    if !(mean_ms > 0.0 && second_moment_ms2 >= mean_ms * mean_ms && rho >= 0.0) {
        return Some(f64::NAN);
    }
    (rho < 1.0).then(|| mean_ms + (rho / mean_ms) * second_moment_ms2 / (2.0 * (1.0 - rho)))
}

/// The mean latency (ms) of a loaded run with no backups at utilisation `load`
/// ([`MIN_LOAD`]..=[`MAX_LOAD`], the run's own bounds) under `service`: the M/G/1 mean of
/// [`pollaczek_khinchine_mean_ms`]. `Ok(None)` when `load` ≥ 1, where no steady state exists.
///
/// ```
/// use tail_lab_core::lab::loaded::theory::no_backup_mean_ms;
/// use tail_lab_core::lab::service::ServiceModel;
///
/// let m = ServiceModel::default();
/// let at_half = no_backup_mean_ms(&m, 0.5).unwrap().unwrap();
/// assert!((at_half - 353.3).abs() < 0.1, "{at_half}");
/// assert_eq!(no_backup_mean_ms(&m, 1.0), Ok(None));
/// assert_eq!(no_backup_mean_ms(&m, 0.0).unwrap_err().param(), "load");
/// ```
pub fn no_backup_mean_ms(service: &ServiceModel, load: f64) -> Result<Option<f64>, ParamError> {
    check_range("load", load, MIN_LOAD, MAX_LOAD, LOAD_EXPECTED)?;
    Ok(pollaczek_khinchine_mean_ms(
        service.mean_ms(),
        service.second_moment_ms2(),
        load,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::lognormal::LogNormalMs;

    #[test]
    fn exponential_service_gives_m_m_1() {
        // E[S²] = 2 m² for an exponential: P-K reduces to m / (1 − ρ).
        for rho in [0.0, 0.3, 0.9] {
            let pk = pollaczek_khinchine_mean_ms(10.0, 200.0, rho).unwrap();
            let mm1 = crate::theory::mm1_mean_sojourn(10.0, rho).unwrap();
            assert!((pk / mm1 - 1.0).abs() < 1e-14, "ρ {rho}: {pk} vs {mm1}");
        }
        // Deterministic service (E[S²] = m²) waits half as long as exponential: M/D/1.
        let md1 = pollaczek_khinchine_mean_ms(10.0, 100.0, 0.5).unwrap();
        assert!((md1 - (10.0 + 0.5 * 10.0 / (2.0 * 0.5))).abs() < 1e-12);
        assert_eq!(pollaczek_khinchine_mean_ms(10.0, 200.0, 1.0), None);
        assert!(
            pollaczek_khinchine_mean_ms(10.0, 50.0, 0.5)
                .unwrap()
                .is_nan()
        );
    }

    #[test]
    fn the_lab_model_in_numbers() {
        let m = ServiceModel::default();
        // E[S] = 0.99 · 7.7 e^{0.125} + 0.01 · 1000 e^{0.06125}; E[S²] likewise with e^{2σ²}.
        let mean = 0.99 * 7.7 * libm::exp(0.125) + 0.01 * 1000.0 * libm::exp(0.06125);
        let second = 0.99 * 7.7 * 7.7 * libm::exp(0.5) + 0.01 * 1e6 * libm::exp(0.245);
        assert!((m.mean_ms() / mean - 1.0).abs() < 1e-14);
        assert!((m.second_moment_ms2() / second - 1.0).abs() < 1e-14);
        assert!((mean - 19.27).abs() < 0.01 && (second - 12_873.0).abs() < 1.0);
        for (load, want) in [(0.1, 56.4), (0.5, 353.3), (0.9, 3025.5)] {
            let got = no_backup_mean_ms(&m, load).unwrap().unwrap();
            assert!((got - want).abs() < 0.1, "load {load}: {got}");
        }
        assert_eq!(no_backup_mean_ms(&m, 2.0), Ok(None));
        for bad in [f64::NAN, -0.5, 2.5, f64::INFINITY] {
            assert_eq!(no_backup_mean_ms(&m, bad).unwrap_err().param(), "load");
        }
        // Without the slow mode it is the body's M/G/1 alone.
        let body = LogNormalMs::new(7.7, 0.5).unwrap();
        let plain = ServiceModel::new(body, 0.0, body).unwrap();
        let want = body.mean_ms() + (0.5 / body.mean_ms()) * body.second_moment_ms2() / (2.0 * 0.5);
        assert!((no_backup_mean_ms(&plain, 0.5).unwrap().unwrap() - want).abs() < 1e-12);
    }
}
