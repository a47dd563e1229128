//! The Tail piece on a reader's own latencies (`LeafProfile::empirical`): its runs against the
//! closed forms of the same knots, over several seeds.
//!
//! Leaves are independent draws of the knots' distribution `F` (exact: the sampler reads the
//! quantile function the knots define), so at fan-out `n`
//! - no fix: `P(parent ≤ t) = F(t)^n`;
//! - "drop-5" at `n = 20` (the parent answers at the 19th of 20): `P(parent ≤ t) = F^n +
//!   n·F^(n−1)·(1 − F)`;
//! - a hedge at delay `d`: a leaf resolves after `t > d` only if its original and its duplicate
//!   (sent at `d`) both do, `S_res(t) = S(t)·S(t − d)`, and `P(parent ≤ t) = (1 − S_res(t))^n`.
//!
//! Each check is `common::assert_tail`: the fraction of parents at or above the shared-bin edge
//! nearest a quantile against the closed form's survival there, within `Z = 4.5` binomial
//! standard errors of the requests simulated (`sqrt(p(1 − p)/requests)`). There is no
//! interpolation or table error to add: counts above an edge are exact, and the sampler is the
//! distribution itself. The leaf histogram is checked the same way against `1 − F`, and the
//! calibration (2^22 draws) against `F` at the leaf levels the parent quantiles sit at.

use crate::common::{SEEDS, assert_tail};
use std::sync::Arc;
use tail_lab_core::lab::empirical::example;
use tail_lab_core::sampling::empirical::EmpiricalDistribution;
use tail_lab_core::tail::mitigation::Mitigation;
use tail_lab_core::tail::profile::{LeafProfile, ProfileId};
use tail_lab_core::tail::request::{TailConfig, TailModel};
use tail_lab_core::tail::tail_run::TailRun;

const FANOUT: u32 = 20;
const REQUESTS: u64 = 40_000;

/// A small sample with a repeated value (an atom) and a far tail, beside the bundled example.
fn small() -> EmpiricalDistribution {
    let mut x: Vec<f64> = (1..=400).map(|i| 2.0 + f64::from(i % 97) * 0.05).collect();
    x.extend([9.0; 30]);
    x.extend((1..=8).map(|i| 40.0 * f64::from(i)));
    EmpiricalDistribution::from_samples(x).unwrap()
}

fn run(d: &Arc<EmpiricalDistribution>, fix: &str, seed: u64) -> TailRun {
    let cfg = TailConfig::new(
        FANOUT,
        LeafProfile::empirical(Arc::clone(d)),
        Mitigation::from_name(fix).unwrap(),
        seed,
    )
    .unwrap();
    let mut run = TailRun::new(cfg);
    run.run(REQUESTS).unwrap();
    run
}

/// `t` at which `P(parent > t) = 1 − q` under `survival` (bisection on a non-increasing curve).
fn parent_quantile(survival: &dyn Fn(f64) -> f64, q: f64, hi: f64) -> f64 {
    tail_lab_core::theory::invert_survival(survival, 1.0 - q).min(hi)
}

#[test]
fn a_tail_run_on_your_latencies_matches_the_closed_forms_of_its_knots() {
    let n = f64::from(FANOUT);
    for d in [Arc::new(example()), Arc::new(small())] {
        let (_, max) = d.range_ms();
        let f = |t: f64| d.cdf(t);
        for &seed in &SEEDS {
            // No fix: F(t)^n.
            let r = run(&d, "none", seed);
            let survival = |t: f64| 1.0 - f(t).powf(n);
            for q in [0.5, 0.9, 0.99] {
                let t = d.quantile(libm::pow(q, 1.0 / n));
                assert_tail(
                    r.parent_histogram(),
                    t,
                    survival,
                    &format!("none seed {seed} parent q{q}"),
                );
            }
            for q in [0.5, 0.9, 0.99, 0.999] {
                assert_tail(
                    r.leaf_histogram(),
                    d.quantile(q),
                    |t| d.survival(t),
                    &format!("leaf seed {seed} q{q}"),
                );
            }
            // The calibration the hedge delay and the strip read: 2^22 draws of F.
            let cal = r.model().leaf_quantiles();
            for q in [0.5, 0.95, 0.99, 0.999] {
                let level = libm::pow(q, 1.0 / n);
                assert_tail(
                    cal.histogram(),
                    d.quantile(level),
                    |t| d.survival(t),
                    &format!("calibration seed {seed} level {level}"),
                );
            }

            // Partial results: the 19th of 20.
            let r = run(&d, "drop-5", seed);
            let survival = |t: f64| 1.0 - f(t).powf(n) - n * f(t).powf(n - 1.0) * (1.0 - f(t));
            for q in [0.5, 0.9, 0.99] {
                let t = parent_quantile(&survival, q, max);
                assert_tail(
                    r.parent_histogram(),
                    t,
                    survival,
                    &format!("drop-5 seed {seed} parent q{q}"),
                );
            }

            // A hedge at the measured leaf p95.
            let r = run(&d, "hedge-p95", seed);
            let delay = r.model().hedge_delay_ms().unwrap();
            let resolved = |t: f64| {
                if t > delay {
                    d.survival(t) * d.survival(t - delay)
                } else {
                    d.survival(t)
                }
            };
            let survival = |t: f64| 1.0 - (1.0 - resolved(t)).powf(n);
            for q in [0.5, 0.9, 0.99] {
                let t = parent_quantile(&survival, q, max + delay);
                assert_tail(
                    r.parent_histogram(),
                    t,
                    survival,
                    &format!("hedge seed {seed} parent q{q} (delay {delay} ms)"),
                );
            }
        }
    }
}

#[test]
fn a_profile_of_your_latencies_is_exact_and_named_by_its_knots() {
    let d = Arc::new(small());
    let p = LeafProfile::empirical(Arc::clone(&d));
    for t in [1.0, 2.5, 9.0, 100.0, 400.0] {
        assert_eq!(p.cdf(t), d.cdf(t));
        assert_eq!(p.survival(t), d.survival(t));
    }
    for q in [0.0, 0.3, 0.999, 1.0] {
        assert_eq!(p.quantile(q), d.quantile(q));
    }
    assert!(p.body().is_none() && p.pause().is_none());
    assert!(Arc::ptr_eq(p.as_empirical().unwrap(), &d));

    // A run's fingerprint covers the knots: a block from a run on other data is refused.
    let model = |d: &Arc<EmpiricalDistribution>| {
        let cfg = TailConfig::new(
            8,
            LeafProfile::empirical(Arc::clone(d)),
            Mitigation::None,
            1,
        )
        .unwrap();
        TailModel::with_calibration(cfg, 1 << 12)
    };
    let mut other_knots = d.knot_ms().to_vec();
    *other_knots.last_mut().unwrap() *= 1.0 + f64::EPSILON;
    let other =
        Arc::new(EmpiricalDistribution::from_knots(d.levels().to_vec(), other_knots).unwrap());
    let (a, b) = (model(&d), model(&other));
    assert_ne!(a.fingerprint(), b.fingerprint());
    assert_eq!(a.fingerprint(), model(&Arc::new(small())).fingerprint());
    assert_ne!(
        a.fingerprint(),
        TailModel::with_calibration(
            TailConfig::new(8, ProfileId::Default.profile(), Mitigation::None, 1).unwrap(),
            1 << 12
        )
        .fingerprint()
    );
    let mut worker = TailRun::from_model(b);
    worker.run_range(0, 10).unwrap();
    let mut main = TailRun::from_model(a.clone());
    assert_eq!(
        main.absorb(&worker.block()).unwrap_err().param(),
        "fingerprint"
    );
    // The same data from another worker merges, to the same bits as running here.
    let mut same = TailRun::from_model(a.clone());
    same.run_range(0, 10).unwrap();
    main.absorb(&same.block()).unwrap();
    let mut here = TailRun::from_model(a);
    here.run(10).unwrap();
    assert_eq!(main.parent_histogram(), here.parent_histogram());
    // Every leaf of a traced request is a value of the distribution, binned where it falls.
    let trace = here.request_at(3);
    let (lo, hi) = d.range_ms();
    assert!(
        trace
            .leaves
            .iter()
            .all(|l| (lo..=hi).contains(&l.original_ms))
    );
}
