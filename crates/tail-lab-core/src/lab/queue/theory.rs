//! The M/M/c closed forms the single queue is checked against, with the time unit the mean
//! service time (μ = 1) and `load` the per-server utilisation ρ = λ/c.
//!
//! A request waits with probability `C(c, a)` (Erlang C, offered load a = cρ); if it waits,
//! its wait is exponential with rate `c(1 − ρ)` (the rate at which c busy servers free up,
//! less the arrivals). Its sojourn is `T = W + S` with `S ~ Exp(1)` independent of `W`.
//! Every function here is for `servers ≥ 1` and `0 < load < 1`, and gives NaN outside that.

use crate::theory::invert_survival;

fn in_domain(servers: u32, load: f64) -> bool {
    servers >= 1 && load > 0.0 && load < 1.0
}

/// Erlang C: the probability that a request waits, `C(c, a)` with `a = cρ`. Computed stably:
/// the Erlang B recursion `B₀ = 1`, `B_k = a·B_{k−1}/(k + a·B_{k−1})` (no factorials, no
/// powers; every step in 0..1), then `C = B/(1 − ρ(1 − B))`. For c = 1 it is ρ.
pub fn erlang_c(servers: u32, load: f64) -> f64 {
    if !in_domain(servers, load) {
        return f64::NAN;
    }
    let a = f64::from(servers) * load;
    let mut b = 1.0;
    for k in 1..=servers {
        b = a * b / (f64::from(k) + a * b);
    }
    b / (1.0 - load * (1.0 - b))
}

/// The rate `c(1 − ρ)` of a waiting request's (exponential) wait.
fn wait_rate(servers: u32, load: f64) -> f64 {
    f64::from(servers) * (1.0 - load)
}

/// Mean sojourn (in mean service times): `1 + C/(c(1 − ρ))`, the mean service plus the mean
/// wait `C/(cμ − λ)`. For c = 1 it is `1/(1 − ρ)`.
pub fn mean_sojourn(servers: u32, load: f64) -> f64 {
    if !in_domain(servers, load) {
        return f64::NAN;
    }
    1.0 + erlang_c(servers, load) / wait_rate(servers, load)
}

/// `P(T > t)` for the sojourn `T = W + S` (t in mean service times).
///
/// With probability `1 − C` there is no wait and `T = S`: `e^{−t}`. Otherwise `T` is the sum
/// of two independent exponentials, of rates 1 and θ = c(1 − ρ), whose survival is
/// `(θe^{−t} − e^{−θt})/(θ − 1)`. Together:
/// `P(T > t) = e^{−t} + C·(e^{−t} − e^{−θt})/(θ − 1)`.
/// The fraction is `(e^{−lo·t} − e^{−hi·t})/(hi − lo)` for `lo, hi` the smaller and larger of
/// 1 and θ, computed as `e^{−lo·t}·(−expm1(−(hi − lo)t))/(hi − lo)`: no cancellation when θ
/// is near 1, no overflow for large t, and its limit `t·e^{−t}` when θ = 1 exactly. For
/// c = 1 the whole is `e^{−(1 − ρ)t}`, M/M/1's exponential sojourn.
pub fn sojourn_survival(t: f64, servers: u32, load: f64) -> f64 {
    if !in_domain(servers, load) || t.is_nan() {
        return f64::NAN;
    }
    if t <= 0.0 {
        return 1.0;
    }
    let theta = wait_rate(servers, load);
    let (lo, hi) = if theta < 1.0 {
        (theta, 1.0)
    } else {
        (1.0, theta)
    };
    let gap = hi - lo;
    let both = if gap == 0.0 {
        t * libm::exp(-t)
    } else {
        libm::exp(-lo * t) * (-libm::expm1(-gap * t)) / gap
    };
    libm::exp(-t) + erlang_c(servers, load) * both
}

/// The sojourn's `q`-quantile (q in (0, 1), in mean service times), by bisection on
/// [`sojourn_survival`]. For c = 1 it is `ln(1/(1 − q))/(1 − ρ)`.
pub fn sojourn_quantile(servers: u32, load: f64, q: f64) -> f64 {
    if !(in_domain(servers, load) && q > 0.0 && q < 1.0) {
        return f64::NAN;
    }
    invert_survival(|t| sojourn_survival(t, servers, load), 1.0 - q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_server_is_m_m_1() {
        for rho in [0.01, 0.3, 0.5, 0.9, 0.99] {
            assert!((erlang_c(1, rho) - rho).abs() < 1e-15, "C(1, ρ) = ρ");
            let mean = mean_sojourn(1, rho);
            assert!((mean - 1.0 / (1.0 - rho)).abs() < 1e-12 * mean);
            for t in [0.1, 1.0, 10.0, 100.0] {
                let want = libm::exp(-(1.0 - rho) * t);
                let got = sojourn_survival(t, 1, rho);
                assert!(
                    (got - want).abs() <= 1e-13 * want.max(1e-300),
                    "ρ={rho} t={t}"
                );
            }
            let p99 = sojourn_quantile(1, rho, 0.99);
            let want = libm::log(100.0) / (1.0 - rho);
            assert!((p99 / want - 1.0).abs() < 1e-9, "ρ={rho}: {p99} vs {want}");
        }
    }

    #[test]
    fn erlang_c_matches_its_defining_sum_and_known_values() {
        // C(c, a) = (a^c/c!)/(1 − ρ) / (Σ_{k<c} a^k/k! + (a^c/c!)/(1 − ρ)).
        for c in [1u32, 2, 4, 16, 64] {
            for rho in [0.01, 0.5, 0.8, 0.99] {
                let a = f64::from(c) * rho;
                let (mut term, mut sum) = (1.0f64, 0.0f64);
                for k in 0..c {
                    sum += term;
                    term *= a / f64::from(k + 1);
                }
                let top = term / (1.0 - rho);
                let want = top / (sum + top);
                let got = erlang_c(c, rho);
                assert!((got - want).abs() < 1e-12, "c={c} ρ={rho}: {got} vs {want}");
            }
        }
        // M/M/2 in closed form: C = 2ρ²/(1 + ρ).
        assert!((erlang_c(2, 0.5) - 0.5 / 1.5).abs() < 1e-15);
        // More servers at the same utilisation wait less often.
        assert!(erlang_c(64, 0.8) < erlang_c(16, 0.8) && erlang_c(16, 0.8) < erlang_c(4, 0.8));
        assert!(erlang_c(0, 0.5).is_nan() && erlang_c(2, 1.0).is_nan());
    }

    #[test]
    fn the_survival_is_continuous_through_theta_equal_to_one() {
        // c = 2, ρ = 0.5 gives θ = c(1 − ρ) = 1 exactly: the limit C·t·e^{−t}. Loads a hair
        // either side must agree with it.
        let (c, rho) = (2, 0.5);
        assert_eq!(wait_rate(c, rho), 1.0);
        for t in [0.5, 3.0, 20.0] {
            let at = sojourn_survival(t, c, rho);
            let want = libm::exp(-t) * (1.0 + erlang_c(c, rho) * t);
            assert!((at - want).abs() < 1e-15, "{at} vs {want}");
            for eps in [1e-9, -1e-9] {
                let near = sojourn_survival(t, c, rho + eps);
                assert!((near - at).abs() < 1e-7 * at, "t={t} eps={eps}");
            }
        }
    }

    #[test]
    fn the_survival_is_a_survival_and_the_mean_is_its_integral() {
        for (c, rho) in [(1, 0.7), (3, 0.6), (16, 0.9), (64, 0.99)] {
            assert_eq!(sojourn_survival(0.0, c, rho), 1.0);
            let mut last = 1.0;
            // ∫ P(T > t) dt by the trapezoid rule on a fine grid, out to where it is 0.
            let (dt, mut integral) = (1e-3, 0.0);
            let mut t = 0.0;
            while last > 1e-16 {
                let next = sojourn_survival(t + dt, c, rho);
                assert!(next <= last && next >= 0.0, "decreasing and non-negative");
                integral += 0.5 * (last + next) * dt;
                last = next;
                t += dt;
            }
            let mean = mean_sojourn(c, rho);
            assert!(
                (integral / mean - 1.0).abs() < 1e-6,
                "c={c} ρ={rho}: {integral} vs {mean}"
            );
            let p99 = sojourn_quantile(c, rho, 0.99);
            assert!((sojourn_survival(p99, c, rho) - 0.01).abs() < 1e-12);
        }
    }
}
