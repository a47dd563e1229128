//! Coverage: how often a model's stated 95% interval holds its closed form, over 200 seeds a
//! case, for the queue (M/M/1 and M/M/4), balance (random assignment), balancer (random) and
//! loaded (no backups, Pollaczek–Khinchine's mean) models, at a low, a middle and a high load.
//!
//! **The tolerance.** A method that covers a true 95% of the time holds the truth in
//! Binomial(200, 0.95) runs: 190 ± 3.1. The band 176..=199 accepts a method whose coverage is
//! 93% or more by 3 standard deviations (186 − 3 × 3.6 = 175.2), and refuses one that covers
//! 88% or less with the same confidence (176 + 3 × 4.6 = 189.8 would be its top). It cannot tell
//! 93% from 95% on 200 runs; that takes thousands. Every seed is fixed: the counts are exact,
//! not flaky.
//!
//! **The old method fails.** The balance model at 95% load over 40,000 sojourns a server is run
//! once more with intervals over twenty batches (the Lab's count before issue 33, through
//! [`with_interval_batches`]): they hold the closed form in fewer than 176 runs, where five
//! batches' hold it in 176 or more.

use tail_lab_core::lab::balancer_signals::{self, BalancerParams, Signal};
use tail_lab_core::lab::loaded::theory::no_backup_mean_ms;
use tail_lab_core::lab::loaded::{LoadedConfig, LoadedParams, LoadedPolicy};
use tail_lab_core::lab::precision::{LengthChoice, LimitedBy};
use tail_lab_core::lab::queue::{QueueConfig, QueueParams};
use tail_lab_core::lab::service::ServiceModel;
use tail_lab_core::lab::supermarket::{SupermarketConfig, SupermarketParams};
use tail_lab_core::sampling::batch::{Interval, RunIntervals, with_interval_batches};

const RUNS: u64 = 200;
const COVERED: std::ops::RangeInclusive<u64> = 176..=199;

/// One run's intervals and the truths they should hold (mean, and p99 where known).
struct Outcome {
    intervals: Option<RunIntervals>,
    mean: f64,
    p99: Option<f64>,
}

/// Held counts over seeds `0..RUNS` (split over two threads): (mean held, mean given, p99
/// held, p99 given).
fn coverage(run: impl Fn(u64) -> Outcome + Sync) -> (u64, u64, u64, u64) {
    let held = |i: Option<Interval>, truth: Option<f64>| match (i, truth) {
        (Some(i), Some(t)) => (u64::from(i.contains(t)), 1),
        _ => (0, 0),
    };
    let half = |range: std::ops::Range<u64>| {
        let mut c = (0, 0, 0, 0);
        for seed in range {
            let o = run(seed);
            let i = o.intervals.unwrap_or(RunIntervals::NONE);
            let (a, b) = held(i.mean, Some(o.mean));
            let (x, y) = held(i.p99, o.p99);
            c = (c.0 + a, c.1 + b, c.2 + x, c.3 + y);
        }
        c
    };
    let half = &half;
    std::thread::scope(|s| {
        let first = s.spawn(move || half(0..RUNS / 2));
        let second = half(RUNS / 2..RUNS);
        let first = first.join().unwrap();
        (
            first.0 + second.0,
            first.1 + second.1,
            first.2 + second.2,
            first.3 + second.3,
        )
    })
}

fn assert_covers(what: &str, (mh, mg, ph, pg): (u64, u64, u64, u64), with_p99: bool) {
    println!("{what}: mean {mh} of {mg}, p99 {ph} of {pg}");
    assert_eq!(mg, RUNS, "{what}: every run gives its mean's interval");
    assert!(
        COVERED.contains(&mh),
        "{what}: the mean's interval held {mh} of {mg}"
    );
    if with_p99 {
        assert_eq!(pg, RUNS, "{what}: every run gives its p99's interval");
        assert!(
            COVERED.contains(&ph),
            "{what}: the p99's interval held {ph} of {pg}"
        );
    }
}

fn queue(servers: u32, load: f64, requests: u64) -> impl Fn(u64) -> Outcome + Sync {
    move |seed| {
        let r = QueueConfig::new(QueueParams {
            servers,
            load,
            requests,
            seed: 10_000 + seed,
        })
        .unwrap()
        .run();
        Outcome {
            intervals: r.intervals,
            mean: r.theory_mean,
            p99: Some(r.theory_p99),
        }
    }
}

#[test]
#[ignore = "slow: run by cargo xtask ci's slow step"]
fn queue_intervals_cover_m_m_1_and_m_m_4() {
    for servers in [1, 4] {
        for load in [0.5, 0.8, 0.95] {
            let what = format!("queue c = {servers}, ρ = {load}, 200,000 requests");
            assert_covers(&what, coverage(queue(servers, load, 200_000)), true);
        }
    }
}

/// The queue section's dots as the page runs them, planned to the queue's run-length rule
/// (`requests: "auto"`, issue 33): each length comes from a pilot on another seed, so the run's
/// interval covers as a fixed run of that length does. Four servers at 70%, where the targets
/// decide most runs' lengths (asserted: at least 120 of 200), and one at 95%, where the cap
/// decides them all.
#[test]
#[ignore = "slow: run by cargo xtask ci's slow step"]
fn planned_queue_runs_cover_m_m_1_and_m_m_4() {
    use std::sync::atomic::{AtomicU64, Ordering};
    for (servers, load) in [(4, 0.7), (1, 0.95)] {
        let by_target = AtomicU64::new(0);
        {
            let by_target = &by_target;
            let what = format!("queue c = {servers}, ρ = {load}, planned");
            let run = move |seed| {
                let r = QueueConfig::new(QueueParams {
                    servers,
                    load,
                    requests: 200_000,
                    seed: 50_000 + seed,
                })
                .unwrap()
                .run_by(LengthChoice::Planned);
                let plan = r
                    .planned
                    .and_then(|p| p.plan)
                    .expect("a planned run has a plan");
                if plan.limited_by == LimitedBy::Target {
                    by_target.fetch_add(1, Ordering::Relaxed);
                }
                Outcome {
                    intervals: r.intervals,
                    mean: r.theory_mean,
                    p99: Some(r.theory_p99),
                }
            };
            assert_covers(&what, coverage(run), true);
        }
        let decided = by_target.into_inner();
        println!("queue c = {servers}, ρ = {load}: {decided} of {RUNS} lengths set by the targets");
        if load < 0.9 {
            assert!(decided >= 120, "{decided} of {RUNS} planned by the targets");
        }
    }
}

fn balance(lambda: f64, arrivals: u64) -> impl Fn(u64) -> Outcome + Sync {
    move |seed| {
        let r = SupermarketConfig::new(SupermarketParams {
            servers: 10,
            lambda,
            d: 1,
            arrivals,
            seed: 20_000 + seed,
        })
        .unwrap()
        .run();
        Outcome {
            intervals: r.intervals,
            mean: 1.0 / (1.0 - lambda),
            p99: Some(libm::log(100.0) / (1.0 - lambda)),
        }
    }
}

/// Random assignment on 10 servers: every server M/M/1, so the closed forms are exact. A run of
/// `n` arrivals here is, server by server, the page's run of `10n` on 100 servers.
#[test]
#[ignore = "slow: run by cargo xtask ci's slow step"]
fn balance_intervals_cover_random_assignment_and_twenty_batches_did_not() {
    for (lambda, arrivals) in [(0.5, 100_000), (0.8, 100_000), (0.95, 400_000)] {
        let what = format!("balance λ = {lambda}, {arrivals} arrivals");
        assert_covers(&what, coverage(balance(lambda, arrivals)), true);
    }
    let old = with_interval_batches(20, || coverage(balance(0.95, 400_000))).unwrap();
    println!(
        "balance λ = 0.95, twenty batches: mean {} of {}, p99 {} of {}",
        old.0, old.1, old.2, old.3
    );
    assert!(
        old.0 < *COVERED.start(),
        "twenty batches held the mean {} times",
        old.0
    );
}

#[test]
#[ignore = "slow: run by cargo xtask ci's slow step"]
fn balancer_intervals_cover_random_assignment() {
    for (lambda, arrivals) in [(0.5, 100_000), (0.8, 100_000), (0.95, 400_000)] {
        let what = format!("balancer λ = {lambda}, {arrivals} arrivals");
        let run = move |seed| {
            let r = balancer_signals::simulate(&BalancerParams {
                servers: 10,
                lambda,
                signal: Signal::Random,
                arrivals,
                seed: 30_000 + seed,
                ..BalancerParams::default()
            })
            .unwrap();
            assert!(r.settled, "{lambda}: {r:?}");
            Outcome {
                intervals: Some(r.intervals),
                mean: r.random_theory.unwrap(),
                p99: r.random_theory_p99,
            }
        };
        assert_covers(&what, coverage(run), true);
    }
}

/// The balancer section's own run at λ = 0.9 (100 servers, 600,000 arrivals: 17.6 relaxation
/// times, past `BAR_RELAXATIONS`; measured 189 and 186 of 200. Its 200,000 before, one
/// relaxation time a batch, held the mean in 177 and the p99 in 173 of these seeds; 500,000,
/// 2.6 a batch, in 186 and 182).
#[test]
#[ignore = "slow: run by cargo xtask ci's slow step"]
fn the_balancer_page_run_at_lambda_0_9_covers() {
    let run = |seed| {
        let r = balancer_signals::simulate(&BalancerParams {
            lambda: 0.9,
            signal: Signal::Random,
            arrivals: 600_000,
            seed: 60_000 + seed,
            ..BalancerParams::default()
        })
        .unwrap();
        Outcome {
            intervals: Some(r.intervals),
            mean: r.random_theory.unwrap(),
            p99: r.random_theory_p99,
        }
    };
    assert_covers(
        "balancer λ = 0.9, 600,000 arrivals on 100 servers",
        coverage(run),
        true,
    );
}

/// No backups: each of the ten replicas is an M/G/1 queue on the Lab's service model, with
/// Pollaczek–Khinchine's mean. The one-second hiccups make its samples heavy-tailed.
#[test]
#[ignore = "slow: run by cargo xtask ci's slow step"]
fn loaded_intervals_cover_pollaczek_khinchine() {
    for load in [0.2, 0.5, 0.8] {
        let want = no_backup_mean_ms(&ServiceModel::default(), load)
            .unwrap()
            .unwrap();
        let what = format!("loaded none, load {load}, 200,000 requests");
        let run = move |seed| {
            let r = LoadedConfig::new(LoadedParams {
                replicas: 10,
                load,
                policy: LoadedPolicy::None,
                requests: 200_000,
                seed: 40_000 + seed,
            })
            .unwrap()
            .run();
            Outcome {
                intervals: r.intervals,
                mean: want,
                p99: None,
            }
        };
        assert_covers(&what, coverage(run), false);
    }
}
