//! Fan-out latency (`lab::fanout_latency`): the simulated parent (the max of n leaves) and
//! leaf against the closed forms, over three seeds, with tolerances from each run's sample size:
//! - **means** are exact averages of independent values (parents, or every leaf of every
//!   request): each check allows `Z` = 4.5 of the run's own standard error (sample standard
//!   deviation over √count);
//! - **percentiles** come from the shared histogram bins. If the fraction of values under every
//!   bin edge near the `q`-quantile is within `δ` of the exact CDF there, the histogram's
//!   geometric interpolation puts its `q`-quantile between the same interpolation of the exact
//!   CDF (`binned_quantile`) at `q − δ` and at `q + δ`. Those fractions are binomial, so each
//!   check allows `δ = Z · sqrt(q(1 − q)/count)`, with `count` the parents (`requests`) or the
//!   leaves (`requests × n`). That also covers the leaf's p99 at p = 1%, which sits on a
//!   plateau of the CDF (between the two modes almost no mass lies) and so can land anywhere
//!   on it.
//!
//! The closed forms are checked on their own first: the parent's quantiles against its
//! survival, its mean against a second route (`∫ t d(F^n)`, from the density), and n = 1
//! against the leaf's closed-form mean.

use crate::common::{SEEDS, Z, binned_quantile};
use tail_lab_core::lab::fanout_latency::{
    FanoutLatencyParams, FanoutLatencyResult, parent_survival, service_model, simulate, theory,
};
use tail_lab_core::lab::service::ServiceModel;

/// Parents per run: the Lab's cases, the edges p = 0, p = 1 and n = 1, and a wide fan-out
/// (fewer requests there: a thousand leaves each).
const CASES: [(f64, u32, u64); 7] = [
    (0.01, 100, 50_000),
    (0.01, 1, 50_000),
    (0.0, 1, 50_000),
    (0.0, 50, 50_000),
    (1.0, 5, 50_000),
    (0.2, 3, 50_000),
    (0.05, 1000, 5_000),
];

/// `E[max]` by a second route: `∫ t · n F(t)^(n−1) f(t) dt` over log time (trapezoid, 2·10^5
/// steps from 1 µs to 10^6 ms), from the mixture's density and CDF rather than its survival.
fn mean_of_max_from_density(model: &ServiceModel, n: u32) -> f64 {
    let (body, slow, p) = (
        model.body().unwrap(),
        model.slow().unwrap(),
        model.slow_probability(),
    );
    let (lo, hi, steps) = (1e-3f64.ln(), 1e6f64.ln(), 200_000);
    let h = (hi - lo) / steps as f64;
    let integrand = |u: f64| {
        let t = u.exp();
        let f = (1.0 - p) * body.density(t) + p * slow.density(t);
        let cdf = (1.0 - p) * body.cdf(t) + p * slow.cdf(t);
        t * f64::from(n) * cdf.powi(n as i32 - 1) * f * t
    };
    let inner: f64 = (1..steps).map(|j| integrand(lo + j as f64 * h)).sum();
    h * (inner + 0.5 * (integrand(lo) + integrand(hi)))
}

#[test]
fn the_closed_forms_agree_with_themselves() {
    for (p, n, _) in CASES {
        let m = service_model(p).unwrap();
        let t = theory(p, n).unwrap();
        // The quantiles invert the parent survival 1 − (1 − S)^n.
        let s50 = parent_survival(&m, n, t.parent_p50_ms);
        let s99 = parent_survival(&m, n, t.parent_p99_ms);
        assert!((s50 - 0.5).abs() < 1e-9, "p={p} n={n}: S(p50) = {s50}");
        assert!(
            (s99 / 0.01 - 1.0).abs() < 1e-9,
            "p={p} n={n}: S(p99) = {s99}"
        );
        // The mean, by another formula.
        let other = mean_of_max_from_density(&m, n);
        assert!(
            (t.parent_mean_ms / other - 1.0).abs() < 1e-9,
            "p={p} n={n}: {} vs {other}",
            t.parent_mean_ms
        );
        // The leaf's are the service model's.
        assert_eq!(t.leaf_mean_ms, m.mean_ms());
        assert_eq!(
            (t.leaf_p50_ms, t.leaf_p99_ms),
            (m.quantile(0.5), m.quantile(0.99))
        );
        if n == 1 {
            assert!((t.parent_mean_ms / t.leaf_mean_ms - 1.0).abs() < 1e-12);
            assert!((t.parent_p99_ms / t.leaf_p99_ms - 1.0).abs() < 1e-12);
        }
        // More leaves, a later parent.
        if n > 1 && p < 1.0 {
            assert!(t.parent_mean_ms > t.leaf_mean_ms && t.parent_p50_ms > t.leaf_p50_ms);
        }
    }
}

#[test]
fn the_average_lies_at_the_labs_defaults() {
    // p = 1%, n = 100 (seed 004): the leaf's mean is 2.5× its median, and the parent's mean sits
    // below the parent's median. The closed forms, to the digits the prose quotes:
    let t = theory(0.01, 100).unwrap();
    let near = |x: f64, want: f64| (x / want - 1.0).abs() < 1e-6;
    assert!(near(t.leaf_mean_ms, 19.269_637_379), "{t:?}");
    assert!(near(t.leaf_p50_ms, 7.748_895_889), "{t:?}");
    assert!(near(t.leaf_p99_ms, 158.595_022_65), "{t:?}");
    assert!(near(t.parent_mean_ms, 750.531_820_32), "{t:?}");
    assert!(near(t.parent_p50_ms, 840.051_122_38), "{t:?}");
    assert!(near(t.parent_p99_ms, 2_255.944_627), "{t:?}");
    // And the simulation says the same, far outside its error (about 2 ms on the mean).
    for &seed in &SEEDS {
        let r = simulate(FanoutLatencyParams {
            p: 0.01,
            n: 100,
            requests: 50_000,
            seed,
        })
        .unwrap();
        assert!(
            r.parent_mean + Z * r.parent_mean_std_err < r.parent_p50,
            "{r:?}"
        );
        assert!(
            r.leaf_mean - Z * r.leaf_mean_std_err > 2.0 * r.leaf_p50,
            "{r:?}"
        );
    }
}

/// Asserts that a histogram percentile at level `q` from `count` values is where the exact
/// distribution (parent survival `survival`) puts it, within the binomial tolerance.
fn assert_percentile(got: f64, q: f64, count: f64, survival: impl Fn(f64) -> f64, what: &str) {
    let delta = Z * (q * (1.0 - q) / count).sqrt();
    let lo = binned_quantile(&survival, (q - delta).max(1e-9));
    let hi = binned_quantile(&survival, (q + delta).min(1.0 - 1e-9));
    assert!(
        lo <= got && got <= hi,
        "{what}: {got} ms outside [{lo}, {hi}] (q = {q} ± {delta}, {count} values)"
    );
}

fn check_run(r: &FanoutLatencyResult, what: &str) {
    let m = service_model(r.p).unwrap();
    let n = r.n;
    let t = &r.theory;
    assert_eq!(*t, theory(r.p, n).unwrap(), "{what}");
    for (name, sim, se, exact) in [
        (
            "parent mean",
            r.parent_mean,
            r.parent_mean_std_err,
            t.parent_mean_ms,
        ),
        (
            "leaf mean",
            r.leaf_mean,
            r.leaf_mean_std_err,
            t.leaf_mean_ms,
        ),
    ] {
        assert!(se > 0.0 && se.is_finite(), "{what} {name}: std err {se}");
        assert!(
            (sim - exact).abs() <= Z * se,
            "{what} {name}: {sim} vs {exact} ± {}",
            Z * se
        );
    }
    let parents = r.requests as f64;
    let leaves = parents * f64::from(n);
    let parent = |t| parent_survival(&m, n, t);
    let leaf = |t| m.survival(t);
    assert_percentile(
        r.parent_p50,
        0.5,
        parents,
        parent,
        &format!("{what} parent p50"),
    );
    assert_percentile(
        r.parent_p99,
        0.99,
        parents,
        parent,
        &format!("{what} parent p99"),
    );
    assert_percentile(r.leaf_p50, 0.5, leaves, leaf, &format!("{what} leaf p50"));
    assert_percentile(r.leaf_p99, 0.99, leaves, leaf, &format!("{what} leaf p99"));
}

#[test]
fn simulated_parents_and_leaves_match_the_closed_forms_over_three_seeds() {
    for (p, n, requests) in CASES {
        for &seed in &SEEDS {
            let r = simulate(FanoutLatencyParams {
                p,
                n,
                requests,
                seed,
            })
            .unwrap();
            assert_eq!((r.p, r.n, r.requests), (p, n, requests));
            check_run(&r, &format!("p={p} n={n} seed={seed}"));
            if n == 1 {
                // One leaf is the parent: the same draws, so the same histogram.
                assert_eq!((r.parent_p50, r.parent_p99), (r.leaf_p50, r.leaf_p99));
                assert!((r.parent_mean / r.leaf_mean - 1.0).abs() < 1e-12);
            }
            if p == 0.0 {
                // No slow mode: every leaf is from the body, whose p99.99 is under 50 ms.
                assert!(r.parent_p99 < 50.0 && r.leaf_p99 < 50.0, "{r:?}");
            }
            if p == 1.0 {
                // Every leaf is slow: nothing near the body's median.
                assert!(r.leaf_p50 > 500.0, "{r:?}");
            }
        }
    }
}

#[test]
fn a_run_is_a_pure_function_of_its_parameters() {
    let params = FanoutLatencyParams {
        p: 0.01,
        n: 20,
        requests: 3_000,
        seed: 5,
    };
    let a = simulate(params).unwrap();
    assert_eq!(a, simulate(params).unwrap());
    let b = simulate(FanoutLatencyParams { seed: 6, ..params }).unwrap();
    assert_ne!(a.parent_mean, b.parent_mean);
}

#[test]
fn bad_arguments_are_refused_by_name_with_their_range() {
    let ok = FanoutLatencyParams {
        p: 0.01,
        n: 100,
        requests: 100,
        seed: 1,
    };
    for (params, name, words) in [
        (
            FanoutLatencyParams { p: 1.01, ..ok },
            "p",
            "a probability in 0..=1",
        ),
        (
            FanoutLatencyParams {
                p: f64::INFINITY,
                ..ok
            },
            "p",
            "0..=1",
        ),
        (
            FanoutLatencyParams { n: 0, ..ok },
            "n",
            "an integer in 1..=1024",
        ),
        (FanoutLatencyParams { n: 2000, ..ok }, "n", "1..=1024"),
        (
            FanoutLatencyParams { requests: 1, ..ok },
            "requests",
            "an integer in 2..=1000000000",
        ),
        (
            FanoutLatencyParams {
                requests: 2_000_000_000,
                ..ok
            },
            "requests",
            "2..=1000000000",
        ),
    ] {
        let e = simulate(params).unwrap_err();
        assert_eq!(e.param(), name, "{params:?}");
        assert!(e.to_string().contains(words), "{e}");
    }
    assert_eq!(theory(-0.5, 10).unwrap_err().param(), "p");
    assert_eq!(theory(0.5, 1025).unwrap_err().param(), "n");
}
