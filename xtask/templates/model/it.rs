//! The new model against its closed forms, over several seeds. Tolerances come from the
//! sample size: the mean within 4.5 standard errors (a two-sided miss of about 7e-6 per check),
//! the p99 within the order statistic's binomial band at the same z.

use tail_lab_core::lab::new_model::{NewModelParams, simulate};

const SEEDS: [u64; 4] = [1, 2, 3, 12345];
const Z: f64 = 4.5;

#[test]
fn the_mean_and_p99_follow_the_exponential_closed_forms() {
    let requests: u64 = 200_000;
    for seed in SEEDS {
        for mean_ms in [0.5, 10.0, 2_000.0] {
            let r = simulate(NewModelParams {
                mean_ms,
                requests,
                seed,
            })
            .unwrap();
            assert!(
                (r.mean - r.mean_theory).abs() <= Z * r.mean_std_err,
                "seed {seed}, mean {mean_ms}: {} against {} ± {}",
                r.mean,
                r.mean_theory,
                Z * r.mean_std_err
            );
            // The empirical p99 lies between the quantiles at 0.99 ∓ z·sqrt(0.99·0.01/n).
            let half = Z * (0.99_f64 * 0.01 / requests as f64).sqrt();
            let quantile = |q: f64| -mean_ms * (1.0 - q).ln();
            let (lo, hi) = (quantile(0.99 - half), quantile(0.99 + half));
            assert!(
                lo <= r.p99 && r.p99 <= hi,
                "seed {seed}, mean {mean_ms}: p99 {} outside [{lo}, {hi}] (theory {})",
                r.p99,
                r.p99_theory
            );
        }
    }
}
