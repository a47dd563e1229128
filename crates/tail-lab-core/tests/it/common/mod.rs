//! Shared helpers for the statistical tests, and the pinned value vectors (`vectors`).
//!
//! Two kinds of tolerance, both derived from the sample, never set by hand:
//! - **binomial** (`tolerance`, `assert_tail`), for independent trials (addressed draws);
//! - **replication** (`mean_se` with `T_4`, `T_9`, `T_19`), for autocorrelated outputs (queues):
//!   R independent runs (or a run's R batches) give a standard error from their spread, and a
//!   check allows Student's `t_{R−1, 0.9995}` of it (two-sided 0.1%).
//!
//! Binomial tolerances are derived from the sample size: an estimated fraction `p̂` of `r` independent
//! trials has standard error `sqrt(p(1−p)/r)`, and a check allows `Z` of those. With `Z = 4.5`
//! a correct model fails a given check with probability about 7e-6, so the suite as a whole
//! (a few hundred checks) is expected to fail spuriously less than once in a few hundred runs —
//! and since every seed is fixed, a run that passes keeps passing.
#![allow(dead_code)]

pub mod vectors;

use tail_lab_core::sampling::histogram::Histogram;
use tail_lab_core::sampling::histogram::shared_bins;

/// Standard errors a check allows.
pub const Z: f64 = 4.5;

/// Student's t quantile, 4 degrees of freedom, two-sided 0.1% (5 replications).
pub const T_4: f64 = 8.61;
/// Student's t quantile, 9 degrees of freedom, two-sided 0.1% (10 replications).
pub const T_9: f64 = 4.78;
/// Student's t quantile, 19 degrees of freedom, two-sided 0.1% (20 batches).
pub const T_19: f64 = 3.883;

/// Seeds every statistical check is repeated over.
pub const SEEDS: [u64; 3] = [1, 0xC0FFEE, 9_876_543_210];

/// Binomial tolerance on a fraction estimated from `r` trials.
pub fn tolerance(p: f64, r: f64) -> f64 {
    Z * (p * (1.0 - p) / r).sqrt()
}

/// The shared-bin edge nearest `t` (ms): counts above an edge are exact, no interpolation.
pub fn snap_to_edge(t_ms: f64) -> (usize, f64) {
    let bins = shared_bins();
    let b = bins.bin_of(t_ms);
    let (lo, hi) = (bins.edges()[b], bins.edges()[b + 1]);
    if t_ms - lo < hi - t_ms {
        (b, lo)
    } else {
        (b + 1, hi)
    }
}

/// Fraction of a histogram's samples at or above the edge that opens bin `b`.
pub fn fraction_from_bin(h: &Histogram, b: usize) -> f64 {
    h.counts()[b..].iter().sum::<f64>() / h.total()
}

/// Asserts that a histogram's tail above the edge nearest `t_ms` matches `survival` at that edge.
pub fn assert_tail(h: &Histogram, t_ms: f64, survival: impl Fn(f64) -> f64, what: &str) {
    let (b, edge) = snap_to_edge(t_ms);
    let want = survival(edge);
    let got = fraction_from_bin(h, b);
    let tol = tolerance(want, h.total());
    assert!(
        (got - want).abs() <= tol,
        "{what}: P(> {edge:.3} ms) simulated {got:.6e}, theory {want:.6e}, tolerance {tol:.2e} ({} samples)",
        h.total()
    );
}

/// Mean and standard error (`s/√n`, sample standard deviation) of independent estimates.
pub fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

/// What a histogram quantile converges to for a distribution with survival `survival`: the
/// shared bins' geometric interpolation inside the bin holding the `q`-quantile, applied to the
/// exact bin masses. Testing against this instead of the exact quantile removes the
/// interpolation's own systematic error from the tolerance.
pub fn binned_quantile(survival: impl Fn(f64) -> f64, q: f64) -> f64 {
    let edges = shared_bins().edges();
    let cdf = |t: f64| 1.0 - survival(t);
    let b = edges
        .windows(2)
        .position(|w| cdf(w[1]) >= q)
        .expect("the quantile lies inside the bins");
    let (lo, hi) = (edges[b], edges[b + 1]);
    let f = ((q - cdf(lo)) / (cdf(hi) - cdf(lo))).clamp(0.0, 1.0);
    lo * (hi / lo).powf(f)
}
