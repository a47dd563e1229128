//! The seed documents' figures, reproduced.
//!
//! Two separate claims per figure:
//! 1. **theory ≈ seed**: the exact value (closed form, or the profile's numerically exact CDF
//!    pushed through the closed form) agrees with the seed's figure within the precision the
//!    seed quotes it at. The seeds quote single runs to two or three digits and disagree with
//!    themselves by about 2% (seed 002 gives both 305 and 310 ms for the default parent p99), so
//!    the bound is 6% of the figure, or 0.6 ms for figures near 10 ms quoted as whole numbers.
//! 2. **simulation ≈ theory**: the report's simulated quantile puts the right fraction of
//!    requests beyond the exact value, within the binomial tolerance of its request count
//!    (checked at the exact value snapped to a bin edge, where counts are exact).

use crate::common::{self, SEEDS, assert_tail};

use tail_lab_core::lab::hedge_idle::IdleHedge;
use tail_lab_core::lab::service::ServiceModel;
use tail_lab_core::report::{self, seed_figures as seed};
use tail_lab_core::tail::profile::{LeafProfile, ProfileId};
use tail_lab_core::theory;

fn close(what: &str, exact: f64, figure: f64) {
    let tol = (0.06 * figure).max(0.6);
    assert!(
        (exact - figure).abs() <= tol,
        "{what}: exact {exact:.3} vs seed figure {figure} (± {tol:.2})"
    );
}

/// Exact parent survival at fan-out 100 for a fix, given the model's hedge delay when hedging.
fn parent_survival(prof: LeafProfile, fix: &str, delay: Option<f64>) -> impl Fn(f64) -> f64 {
    let fix = fix.to_string();
    move |t| {
        let leaf = match delay {
            Some(d) => theory::hedged_survival(|x| prof.survival(x), t, d),
            None => prof.survival(t),
        };
        match fix.as_str() {
            "drop-1" => theory::partial_parent_survival(leaf, 100, 1),
            "drop-5" => theory::partial_parent_survival(leaf, 100, 5),
            _ => 1.0 - (1.0 - leaf).powi(100),
        }
    }
}

#[test]
fn fanout_and_crossover() {
    close(
        "slowShare(0.01, 100)",
        theory::slow_share(0.01, 100).unwrap(),
        seed::SLOW_SHARE,
    );
    assert_eq!(theory::crossover(0.5, 0.99).unwrap(), 69);
    // "the parent's median is the leaf's 99.31st percentile and the parent's p99 the 99.99th".
    assert_eq!(
        (theory::parent_level(0.5, 100).unwrap() * 1e4).round(),
        9931.0
    );
    assert_eq!(
        (theory::parent_level(0.99, 100).unwrap() * 1e4).round(),
        9999.0
    );
}

#[test]
fn tail_piece_figures() {
    let requests = report::DEFAULT_REQUESTS;
    let cases: [(&str, ProfileId, &str, f64); 7] = [
        (
            "default parent p99",
            ProfileId::Default,
            "none",
            seed::PARENT_P99,
        ),
        (
            "hedge@p95 parent p99",
            ProfileId::Default,
            "hedge-p95",
            seed::HEDGE_PARENT_P99,
        ),
        (
            "drop 1% parent p99",
            ProfileId::Default,
            "drop-1",
            seed::DROP1_PARENT_P99,
        ),
        (
            "drop 5% parent p99",
            ProfileId::Default,
            "drop-5",
            seed::DROP5_PARENT_P99,
        ),
        (
            "GC parent p99",
            ProfileId::GcPause,
            "none",
            seed::GC_PARENT_P99,
        ),
        (
            "GC hedge parent p99",
            ProfileId::GcPause,
            "hedge-p95",
            seed::GC_HEDGE_PARENT_P99,
        ),
        (
            "tight parent p99",
            ProfileId::Tight,
            "none",
            seed::TIGHT_PARENT_P99,
        ),
    ];
    for (what, profile, fix, figure) in cases {
        let prof = profile.profile();
        for &s in &SEEDS[..2] {
            let run = tail_lab_core::tail::section::tail_run(profile, fix, s, requests).unwrap();
            let survival = parent_survival(prof.clone(), fix, run.model().hedge_delay_ms());
            let exact = theory::invert_survival(&survival, 0.01);
            close(what, exact, figure);
            assert_tail(run.parent_histogram(), exact, &survival, what);
        }
    }
    // Leaf p99s: exact quantiles of the profiles.
    close(
        "leaf p99",
        ProfileId::Default.profile().quantile(0.99),
        seed::LEAF_P99,
    );
    close(
        "tight leaf p99",
        ProfileId::Tight.profile().quantile(0.99),
        seed::TIGHT_LEAF_P99,
    );
    // "parent p99 twenty-six times the leaf p99" on the default, "about 1.4x" on tight.
    let ratio = theory::invert_survival(
        parent_survival(ProfileId::Default.profile(), "none", None),
        0.01,
    ) / ProfileId::Default.profile().quantile(0.99);
    assert!((ratio - 26.0).abs() < 1.5, "default ratio {ratio}");
    let tight = ProfileId::Tight.profile();
    let ratio = theory::invert_survival(parent_survival(tight.clone(), "none", None), 0.01)
        / tight.quantile(0.99);
    assert!((ratio - 1.4).abs() < 0.05, "tight ratio {ratio}");
}

#[test]
fn idle_hedge_figures() {
    let model = ServiceModel::default();
    for &s in &SEEDS {
        let r = IdleHedge::new(model.clone(), 0.95, s)
            .unwrap()
            .run(200_000)
            .unwrap();
        close(
            "idle p99.9 before",
            r.theory_p999_before,
            seed::IDLE_P999_BEFORE,
        );
        close(
            "idle p99.9 after",
            r.theory_p999_after,
            seed::IDLE_P999_AFTER,
        );
        // The exact costs at the calibrated delay against the seed's rounded figures: the
        // seed's 4.7% and 1.5% come from its own calibration draw, so allow 0.5 points.
        assert!((r.theory_extra_requests - seed::IDLE_EXTRA_REQUESTS).abs() < 0.005);
        assert!((r.theory_extra_work - seed::IDLE_EXTRA_WORK).abs() < 0.005);
    }
}

#[test]
#[ignore = "slow: run by cargo xtask ci's slow step"] // 3·10^7 requests
fn idle_hedge_costs_match_their_expectations() {
    // Extra requests: a binomial share of fired backups with expectation S(d), so the binomial
    // tolerance applies directly.
    //
    // Extra work: the report's ratio of sums is dominated by the 1% one-second slow mode in its
    // denominator, far too noisy to test against. Its numerator is not: the mean backup work
    // per request has expectation ∫ S(s)·S(s + d) ds (`theory::idle_hedge_extra_work` times the
    // mean), and requests are independent (addressed), so its standard error is the sample
    // standard deviation over √R. That deviation is set by the rare requests whose primary
    // *and* backup both hit the slow mode (about 1 in 10^4, ~1 s of backup work each): about
    // 2.8% of the mean at 10^6 requests. Hence 10^7 requests per seed, checked per seed and
    // pooled over the three independent seeds (about 0.55% per standard error pooled), which
    // catches a 5% error in the backup work at about 9 standard errors.
    let model = ServiceModel::default();
    let requests = 10_000_000u64;
    let (mut pooled_diff, mut pooled_var) = (0.0, 0.0);
    for &s in &SEEDS {
        let h = IdleHedge::new(model.clone(), 0.95, s).unwrap();
        let d = h.delay_ms();
        let (mut fired, mut sum, mut sum_sq) = (0u64, 0.0, 0.0);
        for k in 0..requests {
            let o = h.request_at(k);
            fired += u64::from(o.fired);
            sum += o.backup_work_ms;
            sum_sq += o.backup_work_ms * o.backup_work_ms;
        }
        let r = requests as f64;
        let want = model.survival(d);
        let share = fired as f64 / r;
        let tol = common::tolerance(want, r);
        assert!(
            (share - want).abs() <= tol,
            "seed {s}: {share} vs S(d) = {want} ± {tol}"
        );
        let mean = sum / r;
        let var_of_mean = (sum_sq / r - mean * mean) / r;
        let exact = theory::idle_hedge_extra_work(|t| model.survival(t), d, model.mean_ms())
            * model.mean_ms();
        assert!(
            (mean - exact).abs() <= common::Z * var_of_mean.sqrt(),
            "seed {s}: backup work {mean} ms/request vs {exact} ± {}",
            common::Z * var_of_mean.sqrt()
        );
        pooled_diff += mean - exact;
        pooled_var += var_of_mean;
    }
    let n = SEEDS.len() as f64;
    let (diff, se) = (pooled_diff / n, pooled_var.sqrt() / n);
    assert!(
        diff.abs() <= common::Z * se,
        "pooled: backup work off by {diff} ± {se}"
    );
}
