//! Hedging on loaded replicas under the seed's reading (the default): the three findings of
//! seed 000/001 §3, the flip under another cancellation rule, and each cancellation rule
//! against the property that defines it.
//!
//! Queue outputs are autocorrelated, so every tolerance comes from **independent
//! replications** (the same experiment under R seeds): the check allows `t_{R−1, 0.9995}`
//! standard errors of the replication mean (two-sided 0.1%), plus, where a seed figure is
//! compared, the seed's own rounding, stated beside it. Differences between policies are
//! paired by seed (the same arrivals and work under every policy).

use crate::common::{T_4, T_9, mean_se};
use tail_lab_core::lab::loaded::{
    Cancellation, DelayBasis, LoadedConfig, LoadedParams, LoadedPolicy, LoadedResult, SWEEP_LOADS,
    exponential,
};
use tail_lab_core::theory;

fn policy(name: &str) -> LoadedPolicy {
    LoadedPolicy::from_name(name, DelayBasis::Loaded).unwrap()
}

/// The Lab run (10 replicas, the Lab's service) under `cancellation`.
fn lab(load: f64, name: &str, requests: u64, seed: u64, c: Cancellation) -> LoadedResult {
    LoadedConfig::new(LoadedParams {
        replicas: 10,
        load,
        policy: policy(name),
        requests,
        seed,
    })
    .unwrap()
    .with_cancellation(c)
    .run()
}

const SEEDS: [u64; 5] = [11, 12, 13, 14, 15];

/// `f(none, hedge, duplicate)` at `load` for each of [`SEEDS`].
fn per_seed(
    load: f64,
    requests: u64,
    c: Cancellation,
    f: impl Fn(&LoadedResult, &LoadedResult, &LoadedResult) -> f64,
) -> Vec<f64> {
    SEEDS
        .iter()
        .map(|&s| {
            let run = |name| lab(load, name, requests, s, c);
            f(&run("none"), &run("hedge"), &run("duplicate"))
        })
        .collect()
}

/// Asserts a paired difference is positive beyond its replication error.
fn assert_positive(xs: &[f64], what: &str) {
    let (m, se) = mean_se(xs);
    assert!(
        m - T_4 * se > 0.0,
        "{what}: {m:.3} ± {:.3} is not > 0 ({xs:?})",
        T_4 * se
    );
}

#[test]
fn a_delayed_hedge_costs_about_three_percent_up_to_half_load_run_by_run() {
    // Seed 000: "about 3% ... at every load", read as extra work (backup time over primary time,
    // the idle section's definition). Up to 50% load it holds for every run, not only on
    // average: each seed's extra work is 3 ± 1 points, and the hedge fires on 4–7.5% of
    // requests, about the 5% a p95 delay should (the delay is calibrated on a run of its own, so
    // the share strays from 5% more as the load grows; see the next test).
    for load in SWEEP_LOADS.into_iter().filter(|&l| l <= 0.5) {
        for &s in &SEEDS {
            let r = lab(load, "hedge", 200_000, s, Cancellation::Backup);
            assert!(
                (0.02..=0.04).contains(&r.extra_work),
                "load {load} seed {s}: hedge extra work {:.2}%",
                100.0 * r.extra_work
            );
            assert!(
                (0.04..=0.075).contains(&r.extra_requests),
                "load {load} seed {s}: backups on {:.2}% of requests",
                100.0 * r.extra_requests
            );
        }
    }
}

#[test]
fn near_saturation_the_hedges_cost_rests_on_its_calibration_run() {
    // Why the pages say "about 3%" only up to about half load: the delay is the p95 of a
    // separate run without backups, and at 90% load that run's p95 rests on a few long busy
    // periods. From seed to seed the delay, and with it the share of requests that fire a
    // backup, strays far from 5%: these five runs span more than 5 points.
    let fired: Vec<f64> = SEEDS
        .iter()
        .map(|&s| lab(0.9, "hedge", 200_000, s, Cancellation::Backup).extra_requests)
        .collect();
    let lo = fired.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = fired.iter().copied().fold(0.0, f64::max);
    assert!(hi - lo > 0.05, "backup shares at 90% load: {fired:?}");
}

#[test]
fn duplicating_wins_at_twenty_percent_load() {
    let gap = |pick: fn(&LoadedResult) -> f64| {
        per_seed(0.2, 200_000, Cancellation::Backup, move |n, h, d| {
            pick(n).min(pick(h)) - pick(d)
        })
    };
    assert_positive(
        &gap(|r| r.latency.unwrap().p50),
        "p50 of the others − duplicate's",
    );
    assert_positive(
        &gap(|r| r.latency.unwrap().p99),
        "p99 of the others − duplicate's",
    );
}

#[test]
fn duplicating_reaches_capacity_at_seventy_percent_and_is_unstable_beyond() {
    // h ≈ 0.43 (the independent simulation's figure, ±0.02 for its rounding) puts
    // 0.7 × (1 + h) at capacity.
    let runs: Vec<(LoadedResult, LoadedResult)> = SEEDS
        .iter()
        .map(|&s| {
            let run = |name| lab(0.7, name, 1_000_000, s, Cancellation::Backup);
            (run("none"), run("duplicate"))
        })
        .collect();
    let (h, se) = mean_se(&runs.iter().map(|(_, d)| d.extra_work).collect::<Vec<_>>());
    assert!(
        (h - 0.43).abs() <= 0.02 + T_4 * se,
        "h = {h:.3} ± {:.3}",
        T_4 * se
    );
    for (none, dup) in &runs {
        assert!(dup.stable && dup.at_capacity(), "{dup:?}");
        // At capacity the median grows with the run's length: the seed's 26× and the
        // independent simulation's 19× at 10^6 requests are both inside "10 to 50×".
        let ratio = dup.latency.unwrap().p50 / none.latency.unwrap().p50;
        assert!(ratio >= 10.0, "duplicate p50 only {ratio:.1}× none's");
        assert!(none.stable && !none.at_capacity());
    }
    for load in [0.8, 0.9] {
        for &s in &SEEDS {
            let d = lab(load, "duplicate", 200_000, s, Cancellation::Backup);
            assert!(
                !d.stable && d.latency.is_none(),
                "load {load} seed {s}: {d:?}"
            );
            assert!(d.utilisation > 1.0);
        }
    }
}

/// The loads of the loaded section's sweep (`LOADS` in web/lab/sections/loaded/section.js):
/// 0.05..=0.95 in steps of 0.05, each the double nearest its two-decimal value, as the page
/// makes them. The report's sweep ([`SWEEP_LOADS`], 0.1..=0.9) is every other one of these.
fn page_loads() -> Vec<f64> {
    (1..=19).map(|i| f64::from(i) / 20.0).collect()
}

/// Under `either-any` at `load`: duplicating is stable under every seed, and its p50 and p99
/// are below those of no backups and of the hedge beyond the replication error (the smaller
/// of the two relative gaps, paired by seed). A policy that is itself unstable under a seed
/// (no latencies: the hedge at 95% load, once) has lost there, and only the stable ones are
/// compared.
fn assert_duplicating_wins_under_either_any(load: f64) {
    let gaps: Vec<f64> = SEEDS
        .iter()
        .filter_map(|&s| {
            let run = |name| lab(load, name, 200_000, s, Cancellation::EitherAny);
            let d = run("duplicate");
            let d = d
                .latency
                .unwrap_or_else(|| panic!("load {load} seed {s}: duplicate unstable {d:?}"));
            let others: Vec<_> = [run("none"), run("hedge")]
                .iter()
                .filter_map(|r| r.latency)
                .collect();
            let best = |f: fn(&tail_lab_core::lab::hedge_idle::Percentiles) -> f64| {
                others.iter().map(f).reduce(f64::min)
            };
            // The smaller relative gap of p50 and p99: one number per seed.
            Some(((best(|p| p.p50)? - d.p50) / d.p50).min((best(|p| p.p99)? - d.p99) / d.p99))
        })
        .collect();
    assert!(
        gaps.len() >= 4,
        "load {load}: too few seeds with a stable rival"
    );
    assert_positive(
        &gaps,
        &format!("either-any, load {load}: relative p50/p99 gap"),
    );
}

#[test]
fn when_either_copy_is_freed_even_mid_hiccup_duplicating_wins_everywhere() {
    // Seed 003 §7: cancellation decides the result. Three loads here; the rest of the page's
    // sweep in the slow test below.
    for load in [0.2, 0.5, 0.8] {
        assert_duplicating_wins_under_either_any(load);
    }
}

#[test]
#[ignore = "slow: run by cargo xtask ci's slow step"] // 16 loads × 5 seeds × 4 runs of 2·10^5
fn under_either_any_duplicating_wins_at_every_load_of_the_pages_sweep() {
    // Measured (seeds 11–15, 2·10^5 requests): the smaller relative gap is at least 0.31 (p50
    // at 5% load: duplicate 6.0 ms against 7.8 ms for the hedge) and grows with the load (p50
    // 8 ms against 3.4 s at 95%).
    for load in page_loads() {
        if ![0.2, 0.5, 0.8].contains(&load) {
            assert_duplicating_wins_under_either_any(load);
        }
    }
}

#[test]
fn under_the_default_rule_a_primary_is_never_cut_short() {
    // `backup`: every primary runs to completion, so the server time consumed beyond the
    // primaries is exactly the backups' work: capacity_cost / (utilisation − capacity_cost)
    // = extra_work up to rounding. Rules that cut primaries break the identity.
    let identity_gap = |r: &LoadedResult| {
        (r.capacity_cost / (r.utilisation - r.capacity_cost) - r.extra_work).abs()
    };
    for name in ["hedge", "duplicate"] {
        for load in [0.2, 0.5] {
            let r = lab(load, name, 100_000, 3, Cancellation::Backup);
            assert!(identity_gap(&r) < 1e-9, "{name} at {load}: {r:?}");
        }
    }
    for c in [
        Cancellation::Either,
        Cancellation::EitherAny,
        Cancellation::Queued,
    ] {
        let r = lab(0.5, "duplicate", 100_000, 3, c);
        assert!(identity_gap(&r) > 1e-3, "{c:?} should cut primaries: {r:?}");
    }
}

#[test]
fn cancelling_the_loser_at_once_turns_two_replicas_into_one_fast_m_m_1() {
    // Two replicas, every request duplicated to both, exponential service of mean m: both
    // queues hold the same requests in the same order, so both servers work on the same
    // request and the first to finish ends it (memoryless: the time is exp with rate 2/m).
    // With the loser freed at once the system is M/M/1 at rate 2μ and utilisation ρ:
    // mean time (m/2)/(1 − ρ). Exponential service has no hiccup, so `either` and
    // `either-any` agree; `queued` lets an in-service loser finish and gives another number.
    let m = 10.0;
    for rho in [0.3, 0.6] {
        let want = theory::mm1_mean_sojourn(m / 2.0, rho).unwrap();
        let mean_of = |c: Cancellation| {
            let xs: Vec<f64> = (0..10u64)
                .map(|s| {
                    LoadedConfig::new(LoadedParams {
                        replicas: 2,
                        load: rho,
                        policy: LoadedPolicy::Duplicate,
                        requests: 100_000,
                        seed: 500 + s,
                    })
                    .unwrap()
                    .with_service(exponential(m).unwrap())
                    .with_cancellation(c)
                    .run()
                    .mean_ms
                    .unwrap()
                })
                .collect();
            mean_se(&xs)
        };
        for c in [Cancellation::Either, Cancellation::EitherAny] {
            let (got, se) = mean_of(c);
            assert!(
                (got - want).abs() <= T_9 * se,
                "{c:?} ρ={rho}: {got:.3} vs (m/2)/(1−ρ) = {want:.3} ± {:.3}",
                T_9 * se
            );
        }
        // An in-service loser keeps its server busy, so `queued` waits far longer (ρ = 0.3:
        // about 1.6× the prediction; ρ = 0.6 is nearly saturated).
        let (queued, se) = mean_of(Cancellation::Queued);
        assert!(
            queued - T_9 * se > 1.3 * want,
            "queued ρ={rho}: {queued:.3} ± {:.3} should be well above {want:.3}",
            T_9 * se
        );
    }
}
