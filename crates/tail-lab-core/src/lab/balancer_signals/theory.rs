//! The closed forms the checks and the page draw beside the runs.

use crate::lab::supermarket::fixed_point_mean_time;

/// Random assignment's mean sojourn time (mean service times) on `servers` servers at λ per
/// server, one of them `slow_factor` times slower: each server receives a Poisson stream at
/// rate λ, so the fast ones are M/M/1 at load λ (mean `1/(1 − λ)`) and the slow one M/M/1 at
/// load `λ·k` with mean service `k` (mean `k/(1 − λ·k)`); the mean is their average, weighted
/// by arrivals (each `1/servers`). `None` when λ ≥ 1 or `λ·k` ≥ 1 (the slow server's queue
/// grows without bound). With `k = 1` it is `1/(1 − λ)`.
pub fn random_mean(lambda: f64, servers: u32, slow_factor: f64) -> Option<f64> {
    let slow_load = lambda * slow_factor;
    if !(lambda > 0.0 && lambda < 1.0 && slow_load < 1.0 && servers >= 1) {
        return None;
    }
    let n = f64::from(servers);
    let fast = 1.0 / (1.0 - lambda);
    let slow = slow_factor / (1.0 - slow_load);
    Some(((n - 1.0) * fast + slow) / n)
}

/// The best of `d` on fresh queue lengths as servers → ∞ on identical servers: the
/// supermarket model's fixed point ([`crate::lab::supermarket::fixed_point_mean_time`]),
/// reused as it is.
pub fn fixed_point(lambda: f64, d: u32) -> Option<f64> {
    fixed_point_mean_time(lambda, d)
}

/// The load the slow server is offered when it receives `share` of the arrivals: `share ·
/// λ · servers · k` (≥ 1: its queue grows for as long as the run lasts).
pub fn slow_offered_load(share: f64, lambda: f64, servers: u32, slow_factor: f64) -> f64 {
    share * lambda * f64::from(servers) * slow_factor
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_on_identical_servers_is_mm1() {
        for lambda in [0.1, 0.5, 0.9] {
            let m = random_mean(lambda, 100, 1.0).unwrap();
            assert!((m - 1.0 / (1.0 - lambda)).abs() < 1e-12);
        }
        // λ·k ≥ 1: the slow server is overloaded.
        assert_eq!(random_mean(0.5, 100, 2.0), None);
        assert_eq!(random_mean(1.0, 100, 1.0), None);
        // 0.5 with k = 1.5: (99·2 + 1.5/0.25)/100 = 2.04.
        assert!((random_mean(0.5, 100, 1.5).unwrap() - 2.04).abs() < 1e-12);
        assert!((fixed_point(0.9, 1).unwrap() - 10.0).abs() < 1e-9);
        assert!((slow_offered_load(0.01, 0.5, 100, 5.0) - 2.5).abs() < 1e-12);
    }
}
