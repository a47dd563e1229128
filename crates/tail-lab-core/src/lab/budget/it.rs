//! Hedge budgets and a disable switch (`lab::budget`): the budget's bound, the two switches
//! that must leave the plain hedge alone bit for bit, the disable rule at threshold 0, the
//! M/G/1 mean without backups or outage, and the runaway cap.

use tail_lab_core::lab::budget::theory::max_budgeted_hedges;
use tail_lab_core::lab::budget::*;
use tail_lab_core::lab::service::ServiceModel;
use tail_lab_core::sampling::lognormal::LogNormalMs;

fn short(load: f64, slowdown: f64, seed: u64) -> BudgetParams {
    BudgetParams {
        load,
        slowdown,
        span_ms: 12_000.0,
        outage_start_ms: 4_000.0,
        outage_end_ms: 8_000.0,
        windows: 12,
        seed,
        ..BudgetParams::default()
    }
}

/// A run's every field, as text (NaN prints as NaN, so equal texts are equal bits up to the
/// shortest round-trip form Rust prints, which is exact), with the policy's name taken out.
fn text(run: &PolicyRun) -> String {
    format!("{run:?}").replacen(&format!("policy: {:?}", run.policy), "", 1)
}

#[test]
fn the_budgeted_hedge_fraction_never_exceeds_the_ratio_plus_half_a_bucket() {
    // The bound is exact (theory::max_budgeted_hedges): H ≤ ⌊(r·N + 500·max + 999) / 1000⌋
    // in thousandths of a token. No tolerance: it is an inequality on counts.
    let mut binding = 0;
    for (ratio, max) in [(0.02, 10), (0.1, 10), (0.3, 4), (0.05, 100)] {
        for load in [0.3, 0.7, 0.9] {
            for slowdown in [1.0, 10.0, 50.0] {
                for seed in [1, 2] {
                    for delay_rule in [DelayRule::Fixed, DelayRule::Tracking] {
                        let p = BudgetParams {
                            token_ratio: ratio,
                            max_tokens: Some(max),
                            delay_rule,
                            ..short(load, slowdown, seed)
                        };
                        let config = BudgetConfig::new(p).unwrap();
                        let run = config.run_policy(BudgetPolicy::Budgeted);
                        let ratio_milli = (ratio * 1000.0).round() as u64;
                        let bound = max_budgeted_hedges(max, ratio_milli, run.requests);
                        assert!(
                            run.backups <= bound,
                            "ratio {ratio}, max {max}, load {load}, slowdown {slowdown}, seed {seed}: \
                             {} backups over {} requests, bound {bound}",
                            run.backups,
                            run.requests
                        );
                        assert!(
                            run.hedge_fraction
                                <= ratio
                                    + (500.0 * f64::from(max) + 999.0)
                                        / 1000.0
                                        / run.requests as f64
                        );
                        // Within one bucket of the bound: the budget is what held it back.
                        binding += usize::from(run.backups + u64::from(max) >= bound);
                    }
                }
            }
        }
    }
    assert!(
        binding >= 20,
        "the budget binds in {binding} runs: the bound is tested where it matters"
    );
}

#[test]
fn an_unlimited_budget_is_the_plain_hedge_bit_for_bit() {
    for (load, slowdown, seed, rule) in [
        (0.5, 10.0, 1, DelayRule::Fixed),
        (0.8, 20.0, 2, DelayRule::Tracking),
        (0.3, 1.0, 3, DelayRule::Fixed),
        (0.9, 10.0, 4, DelayRule::Tracking),
    ] {
        let p = BudgetParams {
            max_tokens: None,
            delay_rule: rule,
            ..short(load, slowdown, seed)
        };
        let r = BudgetConfig::new(p).unwrap().run();
        assert!(r.hedge.backups > 0);
        assert_eq!(text(&r.budgeted), text(&r.hedge), "load {load} seed {seed}");
        assert!(r.budgeted.window_tokens.is_empty());
        assert_eq!(r.hedge_fraction_bound, None);
    }
}

#[test]
fn the_disable_switch_at_infinity_is_the_plain_hedge_and_at_zero_only_hedges_to_idle_replicas() {
    for (load, slowdown, seed, rule) in [
        (0.5, 10.0, 1, DelayRule::Fixed),
        (0.8, 20.0, 2, DelayRule::Tracking),
        (0.9, 10.0, 3, DelayRule::Fixed),
    ] {
        let p = BudgetParams {
            disable_depth: f64::INFINITY,
            disable_utilisation: false,
            delay_rule: rule,
            ..short(load, slowdown, seed)
        };
        let r = BudgetConfig::new(p).unwrap().run();
        assert_eq!(text(&r.disabled), text(&r.hedge), "load {load} seed {seed}");
        assert_eq!(r.disabled.suppressed, 0);
        // Threshold 0: a backup goes only to a replica with nothing queued or in service, so
        // none ever waits; the plain hedge's do.
        let zero = BudgetConfig::new(BudgetParams {
            disable_depth: 0.0,
            ..p
        })
        .unwrap();
        let run = zero.run_policy(BudgetPolicy::Disabled);
        assert!(
            run.backups > 0 && run.suppressed > 0,
            "load {load}: {run:?}"
        );
        assert_eq!(run.backups_queued, Some(0.0), "load {load}");
        assert!(r.hedge.backups_queued.unwrap() > 0.05, "load {load}");
    }
    // The utilisation rule bites where the hedges push the offered utilisation (1 + h)·0.9
    // past one, and never at load 0.3, where that would take h > 2.
    let hot = BudgetParams {
        disable_depth: f64::INFINITY,
        ..short(0.9, 10.0, 1)
    };
    let hot = BudgetConfig::new(hot)
        .unwrap()
        .run_policy(BudgetPolicy::Disabled);
    assert!(hot.suppressed > 0, "{hot:?}");
    let calm = BudgetParams {
        disable_depth: f64::INFINITY,
        ..short(0.3, 1.0, 1)
    };
    let calm = BudgetConfig::new(calm)
        .unwrap()
        .run_policy(BudgetPolicy::Disabled);
    assert_eq!(calm.suppressed, 0);
}

#[test]
fn without_outage_or_backups_the_mean_is_pollaczek_khinchines() {
    // Each replica an M/G/1 queue. The run's 95% batch-means interval (5 batches, t with 4
    // degrees of freedom, 2.776) is widened to 99.9% (t = 8.610, a factor 3.101), so that all
    // six checks hold together with probability ≥ 99.4% if the model is right.
    let body = ServiceModel::new(
        LogNormalMs::new(7.7, 0.5).unwrap(),
        0.0,
        LogNormalMs::new(1000.0, 0.35).unwrap(),
    )
    .unwrap();
    let widen = 8.610 / 2.776;
    for (service, load, seed) in [
        (body.clone(), 0.3, 1),
        (body.clone(), 0.6, 2),
        (body.clone(), 0.8, 3),
        (body, 0.5, 4),
        (ServiceModel::default(), 0.3, 5),
        (ServiceModel::default(), 0.5, 6),
    ] {
        let p = BudgetParams {
            load,
            slowdown: 1.0,
            span_ms: 300_000.0,
            outage_start_ms: 0.0,
            outage_end_ms: 0.0,
            seed,
            ..BudgetParams::default()
        };
        let config = BudgetConfig::with_service(p, service.clone()).unwrap();
        let run = config.run_policy(BudgetPolicy::None);
        let theory = theory::no_backup_mean_ms(&service, load).unwrap().unwrap();
        let mean = run.mean_ms.unwrap();
        let i = run.mean_interval.unwrap();
        let half = (i.hi - i.lo) / 2.0 * widen;
        assert!(
            (mean - theory).abs() <= half,
            "load {load} seed {seed}: simulated {mean} ± {half}, Pollaczek–Khinchine {theory}"
        );
    }
}

#[test]
fn a_runaway_is_reported_with_no_latencies_and_bounded_memory() {
    let p = BudgetParams {
        replicas: 1000,
        load: 2.0,
        slowdown: 1.0,
        span_ms: 4_000.0,
        outage_start_ms: 0.0,
        outage_end_ms: 0.0,
        ..BudgetParams::default()
    };
    let run = BudgetConfig::new(p).unwrap().run_policy(BudgetPolicy::None);
    assert!(!run.stable);
    assert_eq!(run.latency, None);
    assert_eq!(run.mean_ms, None);
    assert!(run.window_p99_ms.is_empty());
    assert!(matches!(run.unstable, Some(Unstable::Runaway { .. })));
    assert!(run.peak_in_flight <= MAX_IN_FLIGHT as u64 + 1);
}

#[test]
fn the_windows_add_up_to_the_run() {
    let r = BudgetConfig::new(short(0.6, 10.0, 9)).unwrap().run();
    for run in r.runs() {
        assert_eq!(run.window_requests.iter().sum::<f64>(), run.requests as f64);
        // Backups sent after the span (the last requests' timers) fall outside the windows.
        assert!(run.window_backups.iter().sum::<f64>() <= run.backups as f64);
        assert_eq!(run.window_p99_ms.len(), 12);
    }
    // Every policy saw the same arrivals.
    assert!(
        r.runs()
            .iter()
            .all(|run| run.window_requests == r.none.window_requests)
    );
}
