//! Closed forms the simulations are checked against.
//!
//! - Fan-out: a request that waits on `n` independent leaves, each slow with probability `p`,
//!   is slow with probability `1 − (1 − p)^n` ([`slow_share`]).
//! - Order statistics: the parent's `q`-quantile is the leaf's `q^(1/n)`-quantile
//!   ([`parent_level`]); the fan-out at which the parent's `q`-quantile reaches the leaf's
//!   `leaf_q`-quantile is `⌈ln q / ln leaf_q⌉` ([`crossover`]; 69 for the median and p99).
//! - Hedging on idle replicas: with survival `S` and a duplicate sent at delay `d`, completion
//!   survives `t` with probability `S(t) · S(t − d)` for `t > d` ([`hedged_survival`]).
//! - Partial results: a parent that answers without its slowest `k` of `n` leaves is later than
//!   `t` exactly when at least `k + 1` leaves are, a binomial tail ([`binomial_at_least`]).

use crate::error::{CountRange, ParamError, check_level, check_range};

/// The fan-outs the lab accepts anywhere.
pub const FANOUT: CountRange = crate::count_range!(1, 1024);
/// Largest fan-out the lab accepts anywhere.
pub const MAX_FANOUT: u32 = FANOUT.hi as u32;

/// `1 − (1 − p)^n`: the share of requests that meet at least one slow leaf.
///
/// `p` is a probability in 0..=1, `n` a fan-out in `1..=1024`.
///
/// ```
/// let share = tail_lab_core::theory::slow_share(0.01, 100).unwrap();
/// assert!((share - 0.633_967_658_726_770_9).abs() < 1e-12);
/// ```
pub fn slow_share(p: f64, n: u32) -> Result<f64, ParamError> {
    check_range("p", p, 0.0, 1.0, "a probability in 0..=1")?;
    check_fanout("n", n)?;
    Ok(-libm::expm1(f64::from(n) * libm::log1p(-p)))
}

/// The leaf quantile level (a fraction in (0, 1)) the parent's `q`-quantile sits at over `n`
/// independent leaves: `q^(1/n)`, the leaf's percentile rank of the parent's quantile. `q` is a
/// level in (0, 1), `n` a fan-out in `1..=1024` ([`FANOUT`]).
///
/// At `n = 100`, the parent median is the leaf's 99.31st percentile and the parent p99 the
/// leaf's 99.99th (0.99^(1/100) = 0.99989950); at `n = 1` they are the 50th and the 99th.
///
/// ```
/// use tail_lab_core::theory::parent_level;
/// assert!((parent_level(0.5, 100).unwrap() - 0.993_092_495_437_035_9).abs() < 1e-15);
/// assert_eq!(parent_level(0.99, 1).unwrap(), 0.99);
/// assert_eq!(parent_level(1.0, 100).unwrap_err().param(), "q");
/// ```
pub fn parent_level(q: f64, n: u32) -> Result<f64, ParamError> {
    check_level("q", q)?;
    check_fanout("n", n)?;
    Ok(libm::pow(q, 1.0 / f64::from(n)))
}

/// The smallest fan-out at which the parent's `q`-quantile is at least the leaf's
/// `leaf_q`-quantile: `⌈ln q / ln leaf_q⌉` (for `leaf_q ≤ q` that is 1). The true value, up to
/// 2^53 (exact in a JS number); a level so close to 1 that it would be larger is an error.
///
/// It does not depend on the leaf distribution at all: it is a fact about maxima.
pub fn crossover(q: f64, leaf_q: f64) -> Result<u64, ParamError> {
    check_level("q", q)?;
    check_level("leafQ", leaf_q)?;
    // ln(leaf_q) as log1p(−(1 − leaf_q)): 1 − leaf_q is exact near 1, where ln(leaf_q) would
    // lose most of its digits (and the crossover with them).
    let ratio = libm::log(q) / libm::log1p(-(1.0 - leaf_q));
    // Guard against ratio landing a hair above an integer through rounding.
    let n = libm::ceil(ratio - 1e-12).max(1.0);
    if n > 9_007_199_254_740_992.0 {
        return Err(ParamError::OutOfRange {
            param: "leafQ",
            got: leaf_q,
            expected: "a quantile level in (0, 1) whose crossover fan-out is at most 2^53",
        });
    }
    Ok(n as u64)
}

/// Survival of a request hedged on an idle replica: `S(t) · S(t − d)` for `t > d`, `S(t)`
/// before the duplicate is sent. `survival` is the single-attempt survival function (ms).
pub fn hedged_survival(survival: impl Fn(f64) -> f64, t_ms: f64, delay_ms: f64) -> f64 {
    if t_ms <= delay_ms {
        survival(t_ms)
    } else {
        survival(t_ms) * survival(t_ms - delay_ms)
    }
}

/// The `q`-quantile (ms) of a hedged request, inverting [`hedged_survival`] by bisection.
pub fn hedged_quantile(survival: impl Fn(f64) -> f64, delay_ms: f64, q: f64) -> f64 {
    invert_survival(|t| hedged_survival(&survival, t, delay_ms), 1.0 - q)
}

/// Expected extra work of a hedge on idle replicas, as the lab defines it: the backup's
/// service time until it answers or is cancelled, over the primary's full service time,
/// `E[min(S₂, S₁ − d); S₁ > d] / E[S₁]`. For independent attempts that is
/// `∫₀^∞ S(s)·S(s + d) ds / mean` (`survival` in ms, `delay_ms`, `mean_ms`), integrated here
/// with the trapezoid rule in log time, 800 points a decade. The range is 0.1 µs to 10^6 ms,
/// widened a decade at a time while either cut-off piece could exceed 10⁻⁹ of the mean, so
/// the answer holds at any scale the models accept (medians from 1 ns to 10^9 ms, log-spreads
/// up to 5), not only around milliseconds.
pub fn idle_hedge_extra_work(survival: impl Fn(f64) -> f64, delay_ms: f64, mean_ms: f64) -> f64 {
    let q = log_time_trapezoid(
        &survival,
        |s| survival(s) * survival(s + delay_ms),
        1e-9 * mean_ms,
        800,
    );
    // The piece below `lo`, where both survivals are at their values at 0 and d.
    (q.integral + q.lo * survival(delay_ms)) / mean_ms
}

/// What [`log_time_trapezoid`] computed: `∫_lo^hi f(t) dt`, and the range's bottom `lo` (ms)
/// and log-time step `h`, for the caller's own term below `lo`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogTimeIntegral {
    /// `∫_lo^hi f(t) dt`.
    pub integral: f64,
    /// The range's bottom (ms): below it the caller adds what `f` integrates to there.
    pub lo: f64,
    /// The step in log time (`ln(hi/lo)` over the steps).
    pub h: f64,
}

/// `∫_lo^hi f(t) dt` for an `f` bounded by a survival function `survival` of a non-negative
/// time (ms), by the trapezoid rule in log time (`∫ f(e^u) e^u du`), `points_per_decade`
/// points a decade. The range starts at 0.1 µs to 10^6 ms and widens a decade at a time while
/// the piece cut off below (`lo · (1 − survival(lo))`, what is left when `f` is about
/// `survival`'s value at 0 there) or above (`hi · survival(hi)`, for tails that fall faster
/// than 1/t²) could exceed `tolerance` (ms), so the answer holds at any scale the models accept
/// (medians from 1 ns to 10^9 ms), not only around milliseconds. The idle hedge's extra work
/// and the fan-out parent's mean are both this rule.
pub fn log_time_trapezoid(
    survival: impl Fn(f64) -> f64,
    f: impl Fn(f64) -> f64,
    tolerance: f64,
    points_per_decade: u32,
) -> LogTimeIntegral {
    let (mut lo, mut hi, mut decades) = (1e-4f64, 1e6f64, 10u32);
    while lo * (1.0 - survival(lo)) > tolerance && lo > 1e-290 {
        lo /= 10.0;
        decades += 1;
    }
    while hi * survival(hi) > tolerance && hi < 1e290 {
        hi *= 10.0;
        decades += 1;
    }
    let steps = decades * points_per_decade;
    let h = libm::log(hi / lo) / f64::from(steps);
    let integrand = |u: f64| {
        let t = lo * libm::exp(u);
        f(t) * t
    };
    let mut sum = 0.5 * (integrand(0.0) + integrand(f64::from(steps) * h));
    for j in 1..steps {
        sum += integrand(f64::from(j) * h);
    }
    LogTimeIntegral {
        integral: sum * h,
        lo,
        h,
    }
}

/// `P(X ≥ k)` for `X ~ Binomial(n, s)`, summed in log space (accurate for tiny tails).
pub fn binomial_at_least(k: u32, n: u32, s: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n || s <= 0.0 {
        return 0.0;
    }
    if s >= 1.0 {
        return 1.0;
    }
    let (ls, lf) = (libm::log(s), libm::log1p(-s));
    let ln_choose = |j: u32| {
        libm::lgamma(f64::from(n) + 1.0)
            - libm::lgamma(f64::from(j) + 1.0)
            - libm::lgamma(f64::from(n - j) + 1.0)
    };
    (k..=n)
        .map(|j| libm::exp(ln_choose(j) + f64::from(j) * ls + f64::from(n - j) * lf))
        .sum::<f64>()
        .min(1.0)
}

/// Survival of a parent that answers once `n − dropped` of its `n` leaves are in, given the
/// leaf survival `s` at `t`: at least `dropped + 1` leaves are still out.
pub fn partial_parent_survival(leaf_survival: f64, n: u32, dropped: u32) -> f64 {
    binomial_at_least(dropped + 1, n, leaf_survival)
}

/// Utilisation once a fraction `h` (0..=1) of requests also runs a full duplicate that is never
/// cancelled: `(1 + h)ρ` (seed 003 §6).
pub fn duplicated_utilisation(rho: f64, h: f64) -> f64 {
    (1.0 + h) * rho
}

/// True while `(1 + h)ρ < 1`: past it the queue has no finite stationary mean. At ρ = 0.8 and
/// h = 0.25 the boundary is reached exactly.
pub fn duplication_stable(rho: f64, h: f64) -> bool {
    duplicated_utilisation(rho, h) < 1.0
}

/// M/M/1 mean time in system (ms) with mean service `mean_service_ms` at utilisation `rho`:
/// `1/(μ − λ) = mean/(1 − ρ)`; `None` when ρ ≥ 1 (no finite mean).
pub fn mm1_mean_sojourn(mean_service_ms: f64, rho: f64) -> Option<f64> {
    (rho < 1.0).then(|| mean_service_ms / (1.0 - rho))
}

/// M/M/1 time-in-system survival: exponential with rate `μ − λ`, so
/// `P(T > t) = exp(−t (1 − ρ)/mean)`; `None` when ρ ≥ 1.
pub fn mm1_sojourn_survival(t_ms: f64, mean_service_ms: f64, rho: f64) -> Option<f64> {
    (rho < 1.0).then(|| libm::exp(-t_ms * (1.0 - rho) / mean_service_ms))
}

/// Finds `t` (ms) where a decreasing survival function crosses `target`, by bisection in
/// log-time. The bracket starts at 1 µs to 10^7 ms and widens a decade at a time (to at most
/// 10^±290 ms) until it holds the crossing, so a distribution far from milliseconds is
/// inverted as exactly as one near them.
pub fn invert_survival(survival: impl Fn(f64) -> f64, target: f64) -> f64 {
    let (mut lo, mut hi) = (libm::log(1e-3), libm::log(1e7));
    let decade = core::f64::consts::LN_10;
    let limit = 290.0 * decade;
    while survival(libm::exp(lo)) <= target && lo > -limit {
        lo -= decade;
    }
    while survival(libm::exp(hi)) > target && hi < limit {
        hi += decade;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if survival(libm::exp(mid)) > target {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-13 {
            break;
        }
    }
    libm::exp(0.5 * (lo + hi))
}

pub(crate) fn check_fanout(param: &'static str, n: u32) -> Result<u32, ParamError> {
    FANOUT.check(param, u64::from(n)).map(|n| n as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_figures() {
        assert!((slow_share(0.01, 100).unwrap() - 0.634).abs() < 5e-4);
        // The table in seed 004: p = 0.5% → 39.42% at n = 100; p = 2% → 18.29% at n = 10.
        assert!((slow_share(0.005, 100).unwrap() - 0.3942).abs() < 5e-5);
        assert!((slow_share(0.02, 10).unwrap() - 0.1829).abs() < 5e-5);
        assert_eq!(crossover(0.5, 0.99).unwrap(), 69);
        assert!((parent_level(0.5, 100).unwrap() - 0.9931).abs() < 5e-5);
        assert!((parent_level(0.99, 100).unwrap() - 0.9999).abs() < 5e-6);
    }

    #[test]
    fn parent_level_is_the_leaf_rank_of_the_parent_quantile() {
        // q^(1/n) computed to 40 digits in decimal arithmetic, outside this code, and written
        // as the nearest double; the result may be off by its last bit.
        for (q, n, exact) in [
            (0.5, 100, 0.993_092_495_437_035_9),
            (0.99, 100, 0.999_899_501_691_758_3),
            (0.5, 69, 0.990_004_677_306_677_2),
            (0.99, 256, 0.999_960_741_646_201_6),
            (0.5, 8, 0.917_004_043_204_671_2),
            (0.99, 2, 0.994_987_437_106_62),
            (0.5, 1024, 0.999_323_327_502_650_7),
        ] {
            let got = parent_level(q, n).unwrap();
            assert!(
                (got - exact).abs() <= 2e-16,
                "q {q} n {n}: {got} vs {exact}"
            );
        }
        // One leaf is its own parent; 0.25 over two leaves is 0.5 exactly.
        assert_eq!(parent_level(0.5, 1).unwrap(), 0.5);
        assert_eq!(parent_level(0.99, 1).unwrap(), 0.99);
        assert_eq!(parent_level(0.25, 2).unwrap(), 0.5);
        // The page's figures: the 99.31st and the 99.99th percentile at n = 100.
        assert_eq!((parent_level(0.5, 100).unwrap() * 1e4).round(), 9931.0);
        assert_eq!((parent_level(0.99, 100).unwrap() * 1e4).round(), 9999.0);
        // Rising with n, and below 1 at every fan-out the lab accepts.
        let mut last = 0.0;
        for n in 1..=MAX_FANOUT {
            let level = parent_level(0.99, n).unwrap();
            assert!(level > last && level < 1.0, "n {n}: {level}");
            last = level;
        }
        // Bad input names the argument and its range.
        for q in [0.0, 1.0, -0.5, 1.5, f64::NAN, f64::INFINITY] {
            let e = parent_level(q, 10).unwrap_err();
            assert_eq!(e.param(), "q", "q {q}");
            assert!(e.to_string().contains("(0, 1)"), "{e}");
        }
        for n in [0, MAX_FANOUT + 1, u32::MAX] {
            let e = parent_level(0.5, n).unwrap_err();
            assert_eq!(e.param(), "n", "n {n}");
            assert!(e.to_string().contains("1..=1024"), "{e}");
        }
    }

    #[test]
    fn crossover_is_the_first_fanout_that_reaches_the_level() {
        for (q, lq) in [(0.5, 0.99), (0.5, 0.999), (0.99, 0.999), (0.9, 0.95)] {
            let n = crossover(q, lq).unwrap();
            assert!(libm::pow(q, 1.0 / n as f64) >= lq);
            assert!(n == 1 || libm::pow(q, 1.0 / (n - 1) as f64) < lq);
        }
        assert_eq!(crossover(0.99, 0.5).unwrap(), 1);
        // Far past 2^32 − 1: the true value, not a clamp (≈ 6.93e11 for the double nearest
        // 1 − 1e-12, whose distance from 1 is exactly 1 − leaf_q).
        let leaf_q = 1.0 - 1e-12;
        let far = crossover(0.5, leaf_q).unwrap();
        let want = core::f64::consts::LN_2 / (1.0 - leaf_q);
        assert!((far as f64 - want).abs() <= 2.0, "{far} vs {want}");
        assert_eq!(crossover(1e-300, 1.0 - 2e-16).unwrap_err().param(), "leafQ");
    }

    #[test]
    fn bad_arguments_name_themselves() {
        assert_eq!(slow_share(1.5, 10).unwrap_err().param(), "p");
        assert_eq!(slow_share(0.1, 0).unwrap_err().param(), "n");
        assert_eq!(crossover(0.5, 1.0).unwrap_err().param(), "leafQ");
        assert_eq!(parent_level(f64::NAN, 3).unwrap_err().param(), "q");
    }

    #[test]
    fn binomial_tail_matches_direct_enumeration() {
        // Enumerate every slow/fast assignment of 12 leaves (seed 003 §9's style of check).
        let (n, s) = (12u32, 0.17f64);
        for k in 0..=n {
            let mut total = 0.0;
            for mask in 0u32..(1 << n) {
                let slow = mask.count_ones();
                if slow >= k {
                    total +=
                        libm::pow(s, f64::from(slow)) * libm::pow(1.0 - s, f64::from(n - slow));
                }
            }
            assert!((binomial_at_least(k, n, s) - total).abs() < 1e-12, "k={k}");
        }
        // With one leaf dropped the parent is late only when two are: far rarer than one.
        assert!(partial_parent_survival(0.01, 100, 1) < partial_parent_survival(0.01, 100, 0));
        assert!(
            (partial_parent_survival(0.01, 100, 0) - slow_share(0.01, 100).unwrap()).abs() < 1e-12
        );
    }

    #[test]
    fn duplication_boundary_from_seed_003() {
        // ρ = 0.8 with a quarter of requests duplicated reaches utilisation one exactly.
        assert!((duplicated_utilisation(0.8, 0.25) - 1.0).abs() < 1e-15);
        assert!(!duplication_stable(0.8, 0.25));
        assert!(duplication_stable(0.79, 0.25));
        assert!(!duplication_stable(0.5, 1.0));
        assert_eq!(mm1_mean_sojourn(10.0, 1.0), None);
        assert!((mm1_mean_sojourn(10.0, 0.8).unwrap() - 50.0).abs() < 1e-12);
        assert!((mm1_sojourn_survival(50.0, 10.0, 0.8).unwrap() - libm::exp(-1.0)).abs() < 1e-15);
    }

    #[test]
    fn idle_hedge_extra_work_for_exponential_service() {
        // S(s) = exp(−s/m): ∫ S(s)S(s+d) ds = m·exp(−d/m)/2, so the ratio is exp(−d/m)/2.
        let (m, d) = (10.0, 7.0);
        let got = idle_hedge_extra_work(|s| libm::exp(-s / m), d, m);
        assert!((got - 0.5 * libm::exp(-d / m)).abs() < 1e-6, "{got}");
    }

    #[test]
    fn idle_hedge_extra_work_holds_far_from_milliseconds() {
        // The ratio has no unit, so it must not depend on the time scale. Before the range
        // widened, a mean of 1e-6 ms gave 50 (the piece under 0.1 µs divided by the mean),
        // and one of 1e8 ms lost everything past 10^6 ms.
        for m in [1e-6, 1e-3, 1e4, 1e8] {
            let d = 0.7 * m;
            let got = idle_hedge_extra_work(|s| libm::exp(-s / m), d, m);
            let want = 0.5 * libm::exp(-0.7);
            assert!(
                (got - want).abs() < 1e-6 * want,
                "mean {m}: {got} vs {want}"
            );
        }
        // A lognormal with a wide spread: the same value at 1 ms and at 10^-5 ms.
        let model = |m: f64| crate::sampling::lognormal::LogNormalMs::new(m, 3.0).unwrap();
        let at = |m: f64| {
            let x = model(m);
            idle_hedge_extra_work(|t| x.survival(t), x.quantile(0.9), x.mean_ms())
        };
        let (one, tiny) = (at(1.0), at(1e-5));
        assert!((one - tiny).abs() < 1e-6 * one, "{one} vs {tiny}");
    }

    #[test]
    fn invert_survival_finds_crossings_outside_its_first_bracket() {
        // The first bracket is 1 µs..10^7 ms; a lognormal's quantiles are exact either side.
        for (median, q) in [(1e-5f64, 0.5), (0.2, 0.001), (1e6, 0.999), (1e9, 0.5)] {
            let x = crate::sampling::lognormal::LogNormalMs::new(median, 2.0).unwrap();
            let got = invert_survival(|t| x.survival(t), 1.0 - q);
            let want = x.quantile(q);
            assert!(
                (got / want - 1.0).abs() < 1e-9,
                "median {median} q {q}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn hedged_survival_is_the_product_after_the_delay() {
        let s = |t: f64| libm::exp(-t / 10.0);
        assert_eq!(hedged_survival(s, 5.0, 8.0), s(5.0));
        assert!((hedged_survival(s, 20.0, 8.0) - s(20.0) * s(12.0)).abs() < 1e-15);
        let q = hedged_quantile(s, 8.0, 0.99);
        assert!((hedged_survival(s, q, 8.0) - 0.01).abs() < 1e-9);
    }
}
