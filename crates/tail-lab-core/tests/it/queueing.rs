//! The queueing models against their closed forms.
//!
//! Queue outputs are autocorrelated (a long wait is followed by another), so a binomial or
//! i.i.d. standard error would be far too small. Every statistical check here uses **independent
//! replications**: the same experiment under `R` seeds, whose estimates are independent. Their
//! spread gives the standard error, and the check allows `t_{R−1, 0.9995}` of it (two-sided
//! 0.1%): 4.78 for R = 10, 8.61 for R = 5. None of those checks adds an allowance on top: what
//! is systematic is computed instead (the histogram's interpolation applied to the exact CDF;
//! the supermarket's finite-N gap removed by extrapolating over N).
//!
//! One test is not statistical: `seed_figures_for_balancing` checks that single runs
//! reproduce the figures seed 000 printed (random ≈ 10.0, best of two ≈ 2.63), with hand-set
//! allowances of 0.6 and 0.08: 6% and 3% of the figures, about 4 and 5 times the run-to-run
//! standard deviation of such a run (0.155 and 0.015, measured once over 8 seeds of the same
//! 2,000,000-arrival runs; the best-of-two runs also average 2.643, 0.013 above the seed's
//! 2.63). They are set by hand, not derived; the statistical claims behind those figures are
//! the replication checks above.

use crate::common::{T_4, T_9, binned_quantile, mean_se};
use tail_lab_core::lab::loaded::{
    Cancellation, LoadedConfig, LoadedParams, LoadedPolicy, LoadedResult, exponential,
};
use tail_lab_core::lab::supermarket::{
    SupermarketConfig, SupermarketParams, fixed_point_mean_time,
};
use tail_lab_core::theory;

/// Ten independent replications of a loaded run, with seeds `first_seed..first_seed + 10`.
fn replicate(first_seed: u64, config: impl Fn(u64) -> LoadedConfig) -> Vec<LoadedResult> {
    (first_seed..first_seed + 10)
        .map(|seed| config(seed).run())
        .collect()
}

#[test]
fn without_hedging_each_replica_is_m_m_1() {
    let mean_service = 10.0;
    for rho in [0.3, 0.6, 0.8] {
        let runs = replicate(1000, |seed| {
            LoadedConfig::new(LoadedParams {
                replicas: 10,
                load: rho,
                policy: LoadedPolicy::None,
                requests: 100_000,
                seed,
            })
            .unwrap()
            .with_service(exponential(mean_service).unwrap())
        });
        assert!(runs.iter().all(|r| r.stable));
        let (m, se) = mean_se(&runs.iter().map(|r| r.mean_ms.unwrap()).collect::<Vec<_>>());
        let want = theory::mm1_mean_sojourn(mean_service, rho).unwrap();
        assert!(
            (m - want).abs() <= T_9 * se,
            "ρ={rho}: mean {m:.3} vs 1/(μ−λ) = {want:.3} ± {:.3}",
            T_9 * se
        );
        // The sojourn time is exponential with rate μ − λ (`theory::mm1_sojourn_survival`).
        // Checked on the histogram quantiles against the same interpolation of the exact CDF
        // (`binned_quantile`), which is what they converge to.
        for (q, get) in [(0.5, 0usize), (0.99, 1)] {
            let xs: Vec<f64> = runs
                .iter()
                .map(|r| {
                    let p = r.latency.unwrap();
                    [p.p50, p.p99][get]
                })
                .collect();
            let (m, se) = mean_se(&xs);
            let survival = |t| theory::mm1_sojourn_survival(t, mean_service, rho).unwrap();
            let want = binned_quantile(survival, q);
            let exact = theory::invert_survival(survival, 1.0 - q);
            // The interpolation is a small correction, not the whole answer.
            assert!((want - exact).abs() < 0.01 * exact);
            assert!(
                (m - want).abs() <= T_9 * se,
                "ρ={rho} q={q}: {m:.3} vs {want:.3} ± {:.3} (exact {exact:.3})",
                T_9 * se
            );
        }
    }
}

#[test]
fn duplicating_without_cancelling_doubles_the_load() {
    // Every request puts a second full copy on another random replica: each replica sees
    // Poisson arrivals at twice the rate, so each copy's time in system is M/M/1 at 2ρ, and the
    // boundary (1 + h)ρ < 1 with h = 1 sits at ρ = 0.5.
    let mean_service = 10.0;
    for rho in [0.15, 0.3, 0.4] {
        let runs = replicate(2000, |seed| {
            LoadedConfig::new(LoadedParams {
                replicas: 10,
                load: rho,
                policy: LoadedPolicy::Duplicate,
                requests: 100_000,
                seed,
            })
            .unwrap()
            .with_service(exponential(mean_service).unwrap())
            .with_cancellation(Cancellation::Never)
        });
        let xs: Vec<f64> = runs.iter().map(|r| r.copy_sojourn_ms.unwrap()).collect();
        let (m, se) = mean_se(&xs);
        let want = theory::mm1_mean_sojourn(mean_service, theory::duplicated_utilisation(rho, 1.0))
            .unwrap();
        assert!(
            (m - want).abs() <= T_9 * se,
            "ρ={rho}: copy sojourn {m:.3} vs {want:.3} ± {:.3}",
            T_9 * se
        );
        // Consumed capacity: the duplicates add one full load, ρ, on top of the offered ρ. Every
        // copy's service is counted in full (also those finishing after the last arrival), over
        // the span of arrivals: a ratio of two sums, whose only bias is the ratio estimator's,
        // O(1/requests) relative (10^-5 here), far inside the replication error.
        let (c, se) = mean_se(&runs.iter().map(|r| r.capacity_cost).collect::<Vec<_>>());
        assert!(
            (c - rho).abs() <= T_9 * se,
            "capacity {c} vs {rho} ± {}",
            T_9 * se
        );
    }
    for rho in [0.5, 0.7] {
        let r = LoadedConfig::new(LoadedParams {
            replicas: 10,
            load: rho,
            policy: LoadedPolicy::Duplicate,
            requests: 20_000,
            seed: 1,
        })
        .unwrap()
        .with_service(exponential(mean_service).unwrap())
        .with_cancellation(Cancellation::Never)
        .run();
        assert!(!r.stable && r.latency.is_none(), "ρ={rho} must be unstable");
    }
}

#[test]
fn random_assignment_is_m_m_1_in_the_supermarket() {
    for lambda in [0.5, 0.8, 0.9] {
        let xs: Vec<f64> = (0..5u64)
            .map(|seed| {
                SupermarketConfig::new(SupermarketParams {
                    servers: 100,
                    lambda,
                    d: 1,
                    arrivals: 1_000_000,
                    seed: 300 + seed,
                })
                .unwrap()
                .run()
                .mean_time
                .unwrap()
            })
            .collect();
        let (m, se) = mean_se(&xs);
        let want = 1.0 / (1.0 - lambda);
        assert!(
            (m - want).abs() <= T_4 * se,
            "λ={lambda}: {m:.4} vs {want:.4} ± {:.4}",
            T_4 * se
        );
    }
}

#[test]
#[ignore = "slow: run by cargo xtask ci's slow step"] // 1.2·10^8 arrivals
fn best_of_d_matches_the_fixed_point() {
    // The fixed point is the N → ∞ limit; a chain of N servers sits above it by a gap of order
    // 1/N (seed 000's own 100-server run gave 2.63 against 2.61). Rather than allow a stated
    // slack, the gap is removed: with T(N) = T∞ + c/N + o(1/N), Richardson extrapolation from
    // N = 100 and N = 400 gives T∞ ≈ (4·T(400) − T(100))/3, with standard error
    // √(16·se₄₀₀² + se₁₀₀²)/3 from ten independent replications at each N. That must match the
    // fixed point within the replication error alone. At λ = 0.9 the 100-server gap must also
    // be there (positive, several standard errors): the page's N = 100 is above the limit.
    let cases = [
        (2u32, 0.5),
        (2, 0.7),
        (2, 0.9),
        (3, 0.5),
        (3, 0.7),
        (3, 0.9),
    ];
    let mean_time = |n: u32, d: u32, lambda: f64, first_seed: u64| {
        let xs: Vec<f64> = (first_seed..first_seed + 10)
            .map(|seed| {
                SupermarketConfig::new(SupermarketParams {
                    servers: n,
                    lambda,
                    d,
                    arrivals: 1_000_000,
                    seed,
                })
                .unwrap()
                .run()
                .mean_time
                .unwrap()
            })
            .collect();
        mean_se(&xs)
    };
    std::thread::scope(|scope| {
        for (i, &(d, lambda)) in cases.iter().enumerate() {
            scope.spawn(move || {
                let want = fixed_point_mean_time(lambda, d).unwrap();
                let seeds = 500 + 100 * i as u64;
                let (t100, se100) = mean_time(100, d, lambda, seeds);
                let (t400, se400) = mean_time(400, d, lambda, seeds + 50);
                let limit = (4.0 * t400 - t100) / 3.0;
                let se = (16.0 * se400 * se400 + se100 * se100).sqrt() / 3.0;
                assert!(
                    (limit - want).abs() <= T_9 * se,
                    "d={d} λ={lambda}: extrapolated {limit:.4} vs fixed point {want:.4} ± {:.4} \
                     (N=100: {t100:.4}, N=400: {t400:.4})",
                    T_9 * se
                );
                if lambda == 0.9 {
                    assert!(
                        t100 - want > 3.0 * se100,
                        "d={d}: the N = 100 gap {} is not resolved (se {se100})",
                        t100 - want
                    );
                }
            });
        }
    });
}

#[test]
fn seed_figures_for_balancing() {
    // Seed 000: at λ = 0.9, random ≈ 10.0 and best of two ≈ 2.63 against a predicted 2.61.
    let random = SupermarketConfig::new(SupermarketParams {
        servers: 100,
        lambda: 0.9,
        d: 1,
        arrivals: 2_000_000,
        seed: 1,
    })
    .unwrap()
    .run();
    let two = SupermarketConfig::new(SupermarketParams {
        servers: 100,
        lambda: 0.9,
        d: 2,
        arrivals: 2_000_000,
        seed: 1,
    })
    .unwrap()
    .run();
    // Hand-set allowances (see the header): about 4 and 5 run-to-run standard deviations.
    assert!(
        (random.mean_time.unwrap() - 10.0).abs() < 0.6,
        "{:?}",
        random.mean_time
    );
    assert!(
        (two.mean_time.unwrap() - 2.63).abs() < 0.08,
        "{:?}",
        two.mean_time
    );
    assert!((two.theory.unwrap() - 2.61).abs() < 0.01);
    // A third choice adds only a constant factor: far less than the first extra choice did.
    let three = SupermarketConfig::new(SupermarketParams {
        servers: 100,
        lambda: 0.9,
        d: 3,
        arrivals: 2_000_000,
        seed: 1,
    })
    .unwrap()
    .run();
    let (g1, g2) = (
        random.mean_time.unwrap() / two.mean_time.unwrap(),
        two.mean_time.unwrap() / three.mean_time.unwrap(),
    );
    assert!(g1 > 3.0 && g2 < 1.5, "gains {g1} then {g2}");
}
