//! Correlated stragglers (`lab::correlated`): the closed forms against themselves and the
//! simulation against the closed forms, over three seeds, with tolerances from the sample size.
//!
//! - **Shares and survivals.** A parent's lateness at a fixed `t` is one Bernoulli trial per
//!   request, and requests are independent (every draw is addressed by its request), so a
//!   simulated share of `r` requests is binomial: each check allows `Z` = 4.5 standard errors,
//!   `tolerance(p, r) = Z·sqrt(p(1 − p)/r)`. The survivals are read at shared bin edges, where a
//!   histogram's count above the edge is exact.
//! - **The leaf's own law** is checked by the DKW inequality on one leaf per request (leaves of
//!   one request are dependent; one each from independent requests are i.i.d.): with `N` leaves,
//!   `P(sup |F̂ − F| > ε) ≤ 2·exp(−2Nε²)`, and `ε` is set so that bound is 10⁻⁶.

use crate::common::{SEEDS, snap_to_edge, tolerance};
use tail_lab_core::lab::correlated::theory::{
    Fix, Setting, episode_mixture, parent_survival, slow_share,
};
use tail_lab_core::lab::correlated::{
    CorrelatedParams, CorrelatedResult, Delay, request_leaves, simulate,
};
use tail_lab_core::lab::service::{ServiceModel, ServiceSampler};
use tail_lab_core::sampling::lognormal::LogNormalMs;

/// (n, c, c_r, drop, requests): the Lab's default, the two ends of c, a small fan-out with a
/// large drop, single hedged leaves at both ends of c_r, and a wide fan-out.
const CASES: [(u32, f64, f64, f64, u64); 7] = [
    (100, 0.3, 0.5, 0.05, 20_000),
    (100, 0.0, 0.0, 0.01, 20_000),
    (100, 1.0, 0.5, 0.01, 20_000),
    (10, 0.7, 0.2, 0.2, 50_000),
    (1, 0.5, 0.0, 0.0, 100_000),
    (1, 0.5, 1.0, 0.0, 100_000),
    (1000, 0.3, 0.3, 0.01, 2_000),
];

fn params(model: ServiceModel, case: (u32, f64, f64, f64, u64), seed: u64) -> CorrelatedParams {
    let (n, c, cr, drop, requests) = case;
    CorrelatedParams {
        model,
        n,
        c,
        cr,
        drop,
        delay: Delay::Quantile(0.95),
        p: 0.01,
        requests,
        seed,
    }
}

/// A second service model, unimodal and far from the Lab's, so nothing holds by the Lab's shape.
fn lognormal_only() -> ServiceModel {
    let body = LogNormalMs::new(40.0, 0.8).unwrap();
    ServiceModel::new(body, 0.0, body).unwrap()
}

fn run(model: ServiceModel, case: (u32, f64, f64, f64, u64), seed: u64) -> CorrelatedResult {
    simulate(params(model, case, seed)).unwrap()
}

#[test]
fn parent_slow_share_at_both_ends_and_in_between() {
    let m = ServiceModel::default();
    let t_p = m.quantile(0.99);
    for n in [1, 7, 100, 1000] {
        let none = |c| Setting {
            n,
            c,
            fix: Fix::None,
        };
        // c = 1: the parent is one leaf, slow with probability p exactly.
        assert!(
            (slow_share(&m, none(1.0), t_p) - 0.01).abs() < 1e-12,
            "n={n}"
        );
        // c = 0: 1 − (1 − p)^n.
        let indep = 1.0 - 0.99f64.powi(n as i32);
        assert!(
            (slow_share(&m, none(0.0), t_p) - indep).abs() < 1e-12,
            "n={n}"
        );
        for c in [0.05, 0.3, 0.5, 0.8, 0.99] {
            let got = slow_share(&m, none(c), t_p);
            assert!(
                (got - episode_mixture(0.01, n, c)).abs() < 1e-12,
                "n={n} c={c}"
            );
        }
    }
    // And in the simulation: the no-fix parent's simulated slow share against p at c = 1,
    // 1 − (1 − p)^n at c = 0, and the mixture at c = 0.3 (the leaf's slow share is p at each).
    for seed in SEEDS {
        for (case, want) in [
            (CASES[2], 0.01),
            (CASES[1], 1.0 - 0.99f64.powi(100)),
            (CASES[0], episode_mixture(0.01, 100, 0.3)),
        ] {
            let r = run(ServiceModel::default(), case, seed);
            let reqs = r.requests as f64;
            let none = r.correlated[0];
            assert!(
                (none.slow_share - want).abs() <= tolerance(want, reqs),
                "seed {seed} c={}: simulated {} vs {want}",
                r.c,
                none.slow_share
            );
            assert!((none.theory_slow_share - want).abs() < 1e-12);
        }
    }
}

#[test]
fn every_fix_against_its_closed_form() {
    for model in [ServiceModel::default(), lognormal_only()] {
        for seed in SEEDS {
            for case in CASES {
                let r = run(model.clone(), case, seed);
                let reqs = r.requests as f64;
                let what = |fix: &str, indep: bool| {
                    format!(
                        "seed {seed} n={} c={} cr={} drop={} {fix} indep={indep}",
                        r.n, r.c, r.cr, r.drop
                    )
                };
                for (indep, outcomes) in [(false, &r.correlated), (true, &r.independent)] {
                    for (fix, o) in ["none", "drop", "hedge"].iter().zip(outcomes) {
                        let tol = tolerance(o.theory_slow_share, reqs);
                        assert!(
                            (o.slow_share - o.theory_slow_share).abs() <= tol,
                            "{}: slow share {} vs {} (±{tol})",
                            what(fix, indep),
                            o.slow_share,
                            o.theory_slow_share
                        );
                    }
                }
                // The survival curves at four edges: past the body, in the gap, in the slow mode.
                let c = &r.curves;
                for t in [20.0, 100.0, 1000.0, 2000.0] {
                    let (_, edge) = snap_to_edge(t);
                    let i = c.t_ms.iter().position(|&x| x >= edge).unwrap();
                    for f in 0..3 {
                        for (sim, theory, indep) in [
                            (&c.sim, &c.theory, false),
                            (&c.sim_independent, &c.theory_independent, true),
                        ] {
                            let (s, th) = (sim[f][i], theory[f][i]);
                            assert!(
                                (s - th).abs() <= tolerance(th, reqs),
                                "{} at {} ms: {s} vs {th}",
                                what(["none", "drop", "hedge"][f], indep),
                                c.t_ms[i]
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn one_hedged_leaf_is_the_product_or_the_leaf() {
    let m = ServiceModel::default();
    let d = m.quantile(0.95);
    for seed in SEEDS {
        for (case, shared) in [(CASES[4], false), (CASES[5], true)] {
            let r = run(m.clone(), case, seed);
            let c = &r.curves;
            for (i, &t) in c.t_ms.iter().enumerate() {
                let s = m.survival(t);
                let want = if shared || t <= d {
                    s
                } else {
                    s * m.survival(t - d)
                };
                // The closed form is the textbook product (c_r = 0) or the leaf (c_r = 1).
                assert!((c.theory[2][i] - want).abs() < 1e-15, "{t}");
                // The simulation agrees where there are enough requests to tell.
                if want * r.requests as f64 > 20.0 {
                    assert!(
                        (c.sim[2][i] - want).abs() <= tolerance(want, r.requests as f64),
                        "seed {seed} cr={} at {t} ms: {} vs {want}",
                        r.cr,
                        c.sim[2][i]
                    );
                }
            }
        }
    }
}

#[test]
fn a_backup_in_the_same_episode_gains_nothing() {
    for seed in SEEDS {
        let r = run(ServiceModel::default(), CASES[0], seed);
        let g = &r.gain;
        // At c_r = 1 every backup is its primary's own draw: the hedged parent is the parent.
        assert_eq!(*g.cr.last().unwrap(), 1.0);
        assert_eq!(*g.sim_gain.last().unwrap(), 1.0);
        assert!((g.theory_gain.last().unwrap() - 1.0).abs() < 1e-9);
        // The closed-form gain falls as the replica correlation rises.
        assert!(
            g.theory_gain
                .windows(2)
                .all(|w| w[1] <= w[0] * (1.0 + 1e-9)),
            "{:?}",
            g.theory_gain
        );
        assert!(g.theory_gain[0] > 10.0, "{:?}", g.theory_gain);
    }
}

#[test]
fn every_leaf_keeps_its_own_law() {
    // One leaf per request (leaf k mod n of request k): N i.i.d. draws of the marginal.
    const N: u64 = 100_000;
    let eps = ((2.0f64 / 1e-6).ln() / (2.0 * N as f64)).sqrt();
    for model in [ServiceModel::default(), lognormal_only()] {
        let sampler = ServiceSampler::new(model.clone());
        for c in [0.0, 0.3, 1.0] {
            for seed in SEEDS {
                let p = params(model.clone(), (100, c, 0.5, 0.01, N), seed);
                let checked = p.check().unwrap();
                let mut leaves = Vec::new();
                let mut draws: Vec<f64> = (0..N)
                    .map(|k| {
                        request_leaves(&checked, &sampler, k, &mut leaves);
                        leaves[(k % 100) as usize]
                    })
                    .collect();
                draws.sort_unstable_by(f64::total_cmp);
                let n = N as f64;
                let sup = draws
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| {
                        let f = 1.0 - model.survival(x);
                        (f - i as f64 / n).abs().max((f - (i + 1) as f64 / n).abs())
                    })
                    .fold(0.0, f64::max);
                assert!(sup <= eps, "c={c} seed {seed}: sup |F̂ − F| = {sup} > {eps}");
            }
        }
    }
}

#[test]
fn correlation_helps_the_raw_parent_and_hurts_the_fixes() {
    // Source 002 against source 003, in the closed forms at n = 100, p = 1%.
    let m = ServiceModel::default();
    let (t_p, d) = (m.quantile(0.99), m.quantile(0.95));
    let share = |c, fix| slow_share(&m, Setting { n: 100, c, fix }, t_p);
    // The raw parent: P(all ≤ t) ≥ F(t)^n, so the slow share falls as c rises.
    for t in [10.0, 50.0, 500.0, 2000.0] {
        let indep = parent_survival(
            &m,
            Setting {
                n: 100,
                c: 0.0,
                fix: Fix::None,
            },
            t,
        );
        for c in [0.2, 0.5, 0.9] {
            assert!(
                parent_survival(
                    &m,
                    Setting {
                        n: 100,
                        c,
                        fix: Fix::None
                    },
                    t
                ) <= indep + 1e-15
            );
        }
    }
    // Dropping the slowest 5% cannot drop thirty leaves slow together: the floor is p.
    let drop5 = Fix::Drop { dropped: 5 };
    assert!(share(0.0, drop5) < 0.001);
    assert!(share(0.3, drop5) > 0.01);
    // A backup in the same episode: the hedge's cut shrinks as c_r rises.
    let hedge = |cr| Fix::Hedge { delay_ms: d, cr };
    assert!(share(0.0, hedge(0.0)) < 0.011);
    assert!(share(0.0, hedge(0.5)) > 0.39);
}
