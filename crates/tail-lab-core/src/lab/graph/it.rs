//! Request graphs (core `lab::graph`) against their closed forms: the binomial order-statistic
//! law of a k-of-n stage, the hypoexponential law of a chain of exponential stages, source
//! 003's appendix enumeration, and completeness at a deadline against `F(t)`.
//!
//! Tolerances: a simulated share of `r` requests (miss share, survival at a shared bin edge,
//! where the histogram's counts are exact) allows `Z` binomial standard errors
//! (`common::tolerance`); a mean completeness allows `Z · sqrt(Var / r)` with the variance
//! bound stated at each check; a convolved theory adds its own stated bound,
//! `theory_cdf_error`, which the hypoexponential check measures.

use crate::common::{SEEDS, Z, tolerance};
use tail_lab_core::lab::graph::theory::{
    any_slow, any_slow_by_enumeration, any_slow_by_grouping, hypoexponential_survival,
};
use tail_lab_core::lab::graph::{
    Graph, GraphParams, GraphResult, GraphTheory, Stage, StageService, Sweep, simulate,
};
use tail_lab_core::lab::service::ServiceModel;

fn run(graph: &Graph, deadline_ms: Option<f64>, requests: u64, seed: u64) -> GraphResult {
    simulate(&GraphParams {
        graph: graph.clone(),
        deadline_ms,
        sweep: Sweep::Default,
        requests,
        seed,
    })
    .unwrap()
}

fn lab() -> StageService {
    StageService::Service(ServiceModel::default())
}

/// `P(T > t)` of a k-of-n stage by the formula, term by term with exact binomial coefficients:
/// `Σ_{i<k} C(n,i) F^i (1 − F)^{n−i}` (small n only).
fn order_statistic_tail(n: u32, k: u32, f: f64) -> f64 {
    let mut choose = 1.0f64;
    let mut sum = 0.0;
    for i in 0..k {
        if i > 0 {
            choose = choose * f64::from(n - i + 1) / f64::from(i);
        }
        sum += choose * libm::pow(f, f64::from(i)) * libm::pow(1.0 - f, f64::from(n - i));
    }
    sum
}

#[test]
fn a_k_of_n_stage_is_the_binomial_order_statistic() {
    // The stage law against the formula, exactly (no convolution: one stage).
    for (n, k) in [(5, 3), (5, 5), (5, 1), (12, 7)] {
        let stage = Stage::parallel(n, k, lab()).unwrap();
        for t in [3.0, 7.7, 12.0, 25.0, 80.0, 900.0, 1200.0, 2000.0] {
            let f = 1.0 - ServiceModel::default().survival(t);
            let want = order_statistic_tail(n, k, f);
            let got = stage.survival(t);
            assert!(
                (got - want).abs() <= 1e-14 + 1e-12 * want,
                "n={n} k={k} t={t}: {got:e} vs {want:e}"
            );
        }
    }
    // The simulation against it: the 3-of-5 quorum write, survival at the shared bin edges
    // (exact counts there), every share within Z binomial standard errors, over the seeds.
    let quorum = Graph::preset("quorum", &ServiceModel::default()).unwrap();
    let stage = &quorum.stages()[0];
    let requests = 40_000;
    for seed in SEEDS {
        let r = run(&quorum, None, requests, seed);
        let mut checked = 0;
        for (i, &t) in r.curve_t_ms.iter().enumerate() {
            let want = stage.survival(t);
            if !(1e-4..=0.9999).contains(&want) {
                continue;
            }
            let tol = tolerance(want, requests as f64);
            assert!(
                (r.curve_sim[i] - want).abs() <= tol,
                "seed {seed} t={t}: {} vs {want} ± {tol}",
                r.curve_sim[i]
            );
            // The theory curve is the same law, exactly.
            assert!((r.curve_theory[i] - want).abs() < 1e-15);
            checked += 1;
        }
        assert!(checked > 10, "{checked} points");
    }
}

#[test]
fn a_chain_of_exponential_stages_is_hypoexponential() {
    let means = [5.0, 10.0, 20.0];
    let chain = Graph::preset("chain", &ServiceModel::default()).unwrap();
    let th = GraphTheory::new(&chain);
    // The convolution's stated bound holds (the exact law is inside the bracket at every grid
    // point), the bound itself is under 0.5%, and the estimate is far closer than the bound:
    // measured 5.5e-6 at 96 points an octave, checked at 2e-5.
    let bound = th.cdf_error();
    assert!(bound > 0.0 && bound < 0.005, "stated bound {bound}");
    let mut worst = 0.0f64;
    for (i, &t) in th.grid().iter().enumerate() {
        let exact = 1.0 - hypoexponential_survival(&means, t);
        let (lo, hi) = th.bracket_at(i);
        assert!(lo - 1e-12 <= exact && exact <= hi + 1e-12, "t={t}");
        assert!((th.cdf(t) - exact).abs() <= bound);
        worst = worst.max((th.cdf(t) - exact).abs());
    }
    assert!(worst < 2e-5, "estimate off by {worst:e}");
    // The closed form itself: mean 35 ms, so ∫ S = 35 (trapezoid on a fine grid).
    let h = 0.01;
    let mean: f64 = (0..100_000)
        .map(|i| h * hypoexponential_survival(&means, (i as f64 + 0.5) * h))
        .sum();
    assert!((mean - 35.0).abs() < 1e-3, "{mean}");
    // The simulation against the closed form, at the shared bin edges, over the seeds.
    let requests = 40_000;
    for seed in SEEDS {
        let r = run(&chain, None, requests, seed);
        for (i, &t) in r.curve_t_ms.iter().enumerate() {
            let want = hypoexponential_survival(&means, t);
            if !(1e-4..=0.9999).contains(&want) {
                continue;
            }
            let tol = tolerance(want, requests as f64);
            assert!(
                (r.curve_sim[i] - want).abs() <= tol,
                "seed {seed} t={t}: {} vs {want} ± {tol}",
                r.curve_sim[i]
            );
        }
    }
}

#[test]
fn source_003_appendix_enumerates_every_assignment() {
    // Every slow/fast assignment of n ≤ 16 leaves, summed with its probability, is
    // 1 − (1 − p)^n, to rounding.
    for n in 1..=16 {
        for p in [0.001, 0.01, 0.1, 0.5, 0.9] {
            let e = any_slow_by_enumeration(p, n);
            let g = any_slow_by_grouping(p, n);
            let c = any_slow(p, n);
            assert!((e - c).abs() < 1e-15, "n={n} p={p}: {e} vs {c}");
            assert!((g - c).abs() < 1e-15, "n={n} p={p}: {g} vs {c}");
        }
    }
    // The appendix's 100-branch figure. The appendix prints only the number (no example code
    // to run): 0.6339676587267709, which is 1 − 0.99^100 evaluated with a floating-point pow.
    // The exact rational 1 − (99/100)^100 rounds to 0.6339676587267705 (as −expm1(100 ·
    // log1p(−0.01)) gives it); the appendix's last digit is that rounding, 4e-16 off, within
    // the 1e-15 the check allows. The grouping of the enumeration by slow count agrees.
    let appendix = 0.633_967_658_726_770_9;
    assert!((any_slow_by_grouping(0.01, 100) - appendix).abs() < 1e-15);
    assert!((any_slow(0.01, 100) - appendix).abs() < 1e-15);
    assert_eq!(any_slow(0.01, 100), 0.633_967_658_726_770_5);
    assert_eq!(1.0 - libm::pow(0.99, 100.0), appendix);
}

#[test]
fn one_stage_completeness_at_a_deadline_is_f_of_t() {
    // The fan-out preset (100 leaves, waiting for all): mean completeness at a deadline t is
    // E[arrived]/n = F(t). Per request the arrived share has variance F(1 − F)/n (independent
    // leaves), so the mean over r requests allows Z · sqrt(F(1 − F)/(n r)).
    let fanout = Graph::preset("fanout", &ServiceModel::default()).unwrap();
    let m = ServiceModel::default();
    let requests = 10_000;
    for seed in SEEDS {
        for d in [6.0, 12.0, 100.0, 1200.0] {
            let r = run(&fanout, Some(d), requests, seed);
            let f = 1.0 - m.survival(d);
            assert!((r.theory_completeness - f).abs() < 1e-12, "theory at {d}");
            let tol = Z * (f * (1.0 - f) / (100.0 * requests as f64)).sqrt();
            assert!(
                (r.completeness - f).abs() <= tol,
                "seed {seed} D={d}: {} vs {f} ± {tol}",
                r.completeness
            );
            // The miss share is the parent's: 1 − F(t)^100, a binomial share.
            let miss = -libm::expm1(100.0 * libm::log1p(-m.survival(d)));
            assert!((r.theory_miss - miss).abs() < 1e-12);
            assert!((r.miss - miss).abs() <= tolerance(miss, requests as f64));
        }
    }
    // A quorum counts k of its answers: completeness E[min(Bin(n, F), k)]/k. min is
    // 1-Lipschitz, so per request the variance is at most n F(1 − F)/k².
    let quorum = Graph::preset("quorum", &ServiceModel::default()).unwrap();
    for seed in SEEDS {
        let d = 8.0;
        let r = run(&quorum, Some(d), 40_000, seed);
        let want = quorum.stages()[0].expected_answers(d) / 3.0;
        assert!((r.theory_completeness - want).abs() < 1e-12);
        let f = 1.0 - m.survival(d);
        let tol = Z * (5.0 * f * (1.0 - f) / 9.0 / 40_000.0f64).sqrt();
        assert!(
            (r.completeness - want).abs() <= tol,
            "seed {seed}: {} vs {want}",
            r.completeness
        );
    }
}

#[test]
fn a_convolved_graph_misses_its_deadlines_as_its_theory_says() {
    // auth → 10 shards → rank, and a custom graph with a quorum after a single stage: the
    // sweep's miss shares against the convolution, within Z binomial errors plus the
    // convolution's stated bound; completeness within the variance bound 1/4 per request.
    let custom = Graph::new(
        "custom",
        vec![
            Stage::single(StageService::exponential(4.0).unwrap()),
            Stage::parallel(20, 15, lab()).unwrap(),
        ],
    )
    .unwrap();
    let search = Graph::preset("search", &ServiceModel::default()).unwrap();
    let requests = 20_000;
    for graph in [&search, &custom] {
        for seed in SEEDS {
            let r = run(graph, Some(60.0), requests, seed);
            assert!(!r.theory_exact);
            let bound = r.theory_cdf_error;
            assert!(bound < 0.02, "{bound}");
            for a in &r.sweep {
                let tol = tolerance(a.theory_miss.clamp(1e-4, 0.5), requests as f64) + bound;
                assert!(
                    (a.miss - a.theory_miss).abs() <= tol,
                    "{} seed {seed} D={}: {} vs {} ± {tol}",
                    graph.name(),
                    a.deadline_ms,
                    a.miss,
                    a.theory_miss
                );
                let tol_c = Z * (0.25 / requests as f64).sqrt() + bound;
                assert!(
                    (a.completeness - a.theory_completeness).abs() <= tol_c,
                    "{} seed {seed} D={}: {} vs {}",
                    graph.name(),
                    a.deadline_ms,
                    a.completeness,
                    a.theory_completeness
                );
            }
        }
    }
}

#[test]
fn the_sweep_reads_the_same_requests_as_the_deadline() {
    let search = Graph::preset("search", &ServiceModel::default()).unwrap();
    let r = run(&search, None, 5_000, 7);
    // No deadline: nothing missed, everything complete, the percentiles uncapped.
    assert_eq!((r.miss, r.completeness), (0.0, 1.0));
    assert!(r.percentiles[2] > 1000.0);
    // A run at a sweep point's deadline reports exactly that point's numbers.
    let a = r.sweep[9];
    let at = run(&search, Some(a.deadline_ms), 5_000, 7);
    assert_eq!(at.miss, a.miss);
    assert_eq!(at.completeness, a.completeness);
    assert_eq!(at.percentiles[1], a.p99);
    assert_eq!(at.sweep, r.sweep);
    // The sweep runs from the theory's p10 to twice its p99.9, and moves monotonically.
    let th = GraphTheory::new(&search);
    assert!((r.sweep[0].deadline_ms / th.quantile(0.1) - 1.0).abs() < 1e-12);
    for w in r.sweep.windows(2) {
        assert!(w[1].miss <= w[0].miss && w[1].completeness >= w[0].completeness);
    }
    // Bad settings name themselves.
    let bad = |deadline_ms, sweep| {
        simulate(&GraphParams {
            graph: search.clone(),
            deadline_ms,
            sweep,
            requests: 10,
            seed: 1,
        })
        .unwrap_err()
        .param()
    };
    assert_eq!(bad(Some(0.0), Sweep::Default), "deadlineMs");
    assert_eq!(bad(Some(f64::NAN), Sweep::Default), "deadlineMs");
    let between = |from_ms, to_ms, points| Sweep::Between {
        from_ms,
        to_ms,
        points,
    };
    assert_eq!(bad(None, between(10.0, 5.0, 10)), "sweepToMs");
    assert_eq!(bad(None, between(-1.0, 5.0, 10)), "sweepFromMs");
    assert_eq!(bad(None, between(1.0, 5.0, 65)), "sweepPoints");
}
