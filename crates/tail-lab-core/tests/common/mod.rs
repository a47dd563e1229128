//! Shared helpers for the statistical tests.
//!
//! Tolerances are derived from the sample size: an estimated fraction `p̂` of `r` independent
//! trials has standard error `sqrt(p(1−p)/r)`, and a check allows `Z` of those. With `Z = 4.5`
//! a correct model fails a given check with probability about 7e-6, so the suite as a whole
//! (a few hundred checks) is expected to fail spuriously less than once in a few hundred runs —
//! and since every seed is fixed, a run that passes keeps passing.
#![allow(dead_code)]

use tail_lab_core::sampling::histogram::Histogram;
use tail_lab_core::sampling::histogram::shared_bins;

/// Standard errors a check allows.
pub const Z: f64 = 4.5;

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
