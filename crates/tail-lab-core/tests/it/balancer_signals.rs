//! Balancer signals against their checks: staleness 0 is fresh and staleness past the run is
//! random (both bit for bit), random on identical servers is M/M/1, fresh best of two is the
//! supermarket model (same N) and its fixed point (N → ∞).

use crate::common::{T_9, mean_se};
use tail_lab_core::describe::Describe;
use tail_lab_core::lab::balancer_signals::{BalancerParams, BalancerResult, Signal, simulate};
use tail_lab_core::lab::supermarket::{
    SupermarketConfig, SupermarketParams, fixed_point_mean_time,
};

fn run(p: BalancerParams) -> BalancerResult {
    simulate(&p).unwrap()
}

/// Every described field but the two that name the setting (`signal`, `staleness`).
fn numbers(r: &BalancerResult) -> Vec<tail_lab_core::describe::Field> {
    r.describe()
        .into_iter()
        .filter(|f| f.key != "signal" && f.key != "staleness")
        .collect()
}

#[test]
fn staleness_zero_is_the_fresh_model_bit_for_bit() {
    for (d, clients, slow_factor) in [(2, 1, 1.0), (3, 4, 5.0), (1, 2, 2.0)] {
        let fresh = BalancerParams {
            d,
            clients,
            slow_factor,
            lambda: 0.8,
            arrivals: 20_000,
            ..Default::default()
        };
        let stale = BalancerParams {
            signal: Signal::Stale,
            staleness: 0.0,
            ..fresh
        };
        assert_eq!(
            numbers(&run(fresh)),
            numbers(&run(stale)),
            "d={d} K={clients}"
        );
        // And a positive staleness is not (so the comparison can fail).
        let later = BalancerParams {
            staleness: 1.0,
            ..stale
        };
        if d > 1 {
            assert_ne!(run(fresh).mean, run(later).mean);
        }
    }
}

#[test]
fn staleness_past_the_run_is_random() {
    // A run of 50,000 arrivals at λ·N = 50 lasts about 1,000 service times: with T = 10⁶ no
    // refresh happens, every view reads 0, and the first sample wins, which is what random
    // does, bit for bit. T = 10 (a hundred refreshes) is not random.
    let random = BalancerParams {
        signal: Signal::Random,
        lambda: 0.5,
        slow_factor: 3.0,
        ..Default::default()
    };
    let stale = BalancerParams {
        signal: Signal::Stale,
        staleness: 1.0e6,
        ..random
    };
    assert_eq!(numbers(&run(random)), numbers(&run(stale)));
    assert_ne!(
        run(random).mean,
        run(BalancerParams {
            staleness: 10.0,
            ..stale
        })
        .mean
    );
}

#[test]
fn random_on_identical_servers_is_mm1() {
    // Ten independent replications (seeds 1..=10) of 100,000 arrivals: the mean of their
    // means must be within t₉(0.1%) = 4.78 standard errors of 1/(1 − λ).
    for lambda in [0.5, 0.8] {
        for signal in [Signal::Random, Signal::Stale] {
            let xs: Vec<f64> = (1..=10)
                .map(|seed| {
                    run(BalancerParams {
                        signal,
                        staleness: 1.0e6,
                        lambda,
                        arrivals: 100_000,
                        seed,
                        ..Default::default()
                    })
                    .mean
                })
                .collect();
            let (m, se) = mean_se(&xs);
            let want = 1.0 / (1.0 - lambda);
            assert!(
                (m - want).abs() <= T_9 * se,
                "{signal:?} λ={lambda}: {m:.4} vs {want:.4} ± {:.4}",
                T_9 * se
            );
        }
    }
}

/// Mean and standard error of the fresh best-of-two mean over ten seeds from `first`.
fn fresh_mean(servers: u32, lambda: f64, first: u64) -> (f64, f64) {
    let xs: Vec<f64> = (first..first + 10)
        .map(|seed| {
            run(BalancerParams {
                servers,
                lambda,
                arrivals: 100_000,
                seed,
                ..Default::default()
            })
            .mean
        })
        .collect();
    mean_se(&xs)
}

#[test]
fn fresh_best_of_two_is_the_supermarket_model() {
    // Same N = 100 as the supermarket's chain (a different engine and different draws): ten
    // replications each, the difference within t₉(0.1%) of its standard error
    // √(se₁² + se₂²).
    for lambda in [0.5, 0.9] {
        let (mine, se1) = fresh_mean(100, lambda, 1);
        let xs: Vec<f64> = (1..=10)
            .map(|seed| {
                SupermarketConfig::new(SupermarketParams {
                    servers: 100,
                    lambda,
                    d: 2,
                    arrivals: 100_000,
                    seed,
                })
                .unwrap()
                .run()
                .mean_time
                .unwrap()
            })
            .collect();
        let (theirs, se2) = mean_se(&xs);
        let tol = T_9 * (se1 * se1 + se2 * se2).sqrt();
        assert!(
            (mine - theirs).abs() <= tol,
            "λ={lambda}: {mine:.4} vs the supermarket's {theirs:.4} ± {tol:.4}"
        );
    }
}

#[test]
fn fresh_best_of_two_extrapolates_to_the_fixed_point() {
    // The fixed point is the N → ∞ limit, and N servers sit above it by a gap of order 1/N
    // (as in the supermarket's own test, queueing.rs): Richardson extrapolation from N = 100
    // and N = 400, T∞ ≈ (4·T(400) − T(100))/3, with standard error √(16·se₄₀₀² + se₁₀₀²)/3 from
    // ten replications at each N, must match the fixed point within t₉(0.1%) of it.
    let lambda = 0.7;
    let want = fixed_point_mean_time(lambda, 2).unwrap();
    let (t100, se100) = fresh_mean(100, lambda, 100);
    let (t400, se400) = fresh_mean(400, lambda, 200);
    let limit = (4.0 * t400 - t100) / 3.0;
    let se = (16.0 * se400 * se400 + se100 * se100).sqrt() / 3.0;
    assert!(
        (limit - want).abs() <= T_9 * se,
        "extrapolated {limit:.4} vs {want:.4} ± {:.4} (N=100 {t100:.4}, N=400 {t400:.4})",
        T_9 * se
    );
}

#[test]
fn long_staleness_herds_worse_than_random_and_ewma_avoids_the_slow_server() {
    // At λ = 0.9 with T = 50 the stale best of two is worse than random (seed 1: 12.8 against
    // 9.5); with T = 5 it is better (4.1). With a server 5× slower, random sends it 1% of the
    // arrivals (load 4.5: its queue grows all run); the fresh signal keeps it at about its
    // capacity (load ≈ 1: its queue stays as short as the others'), the peak-EWMA below it
    // (seed 1: 0.63), and both keep the p99 a fifth of random's or less.
    let base = BalancerParams::default();
    let stale = |staleness| {
        run(BalancerParams {
            signal: Signal::Stale,
            staleness,
            ..base
        })
        .mean
    };
    let random = run(BalancerParams {
        signal: Signal::Random,
        ..base
    })
    .mean;
    assert!(stale(50.0) > random * 1.2, "{} vs {random}", stale(50.0));
    assert!(stale(5.0) < random * 0.6, "{} vs {random}", stale(5.0));
    let slow = |signal| {
        run(BalancerParams {
            signal,
            slow_factor: 5.0,
            ..base
        })
    };
    let r = slow(Signal::Random);
    assert!(r.slow_load > 3.0, "{}", r.slow_load);
    assert!(slow(Signal::Ewma).slow_load < 0.8);
    for signal in [Signal::Fresh, Signal::Ewma] {
        let s = slow(signal);
        assert!(s.slow_load < 1.1, "{signal:?}: {}", s.slow_load);
        assert!(s.p99 < r.p99 / 5.0, "{signal:?}: {} vs {}", s.p99, r.p99);
    }
}
