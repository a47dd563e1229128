//! The single queue (M/M/c) against its closed forms, and one run pinned to the bit.
//!
//! Tolerances come from each run itself, by batch means: a run's measured requests are cut
//! into 20 batches of consecutive arrivals (`QueueConfig::run_batched`), and the spread of the
//! batch estimates gives the run's standard error. Queue outputs are autocorrelated only over
//! the time the queue takes to forget its state, its relaxation time, about
//! 1/(c(1 − √ρ)²) service times: 90 (72 arrivals) for M/M/1 at ρ = 0.8, 24 (1,500 arrivals)
//! for the heaviest case here, c = 64 at ρ = 0.95. Every batch holds 45,000 requests, 30 to
//! 600 of those times, so the batch estimates are nearly independent and nearly normal, and
//! (estimate − truth)/(s/√20) is Student t with 19 degrees of freedom. Each check allows
//! t_{19, 0.9995} = 3.883 standard errors (two-sided 0.1%), and nothing else, over 3 seeds:
//! - the mean sojourn and the share of requests that waited are exact averages: against
//!   `1 + C/(c(1 − ρ))` and Erlang C;
//! - the p99 comes from the shared histogram, whose geometric interpolation inside a 2% bin
//!   is a systematic error of its own: it is checked against what it converges to, the same
//!   interpolation applied to the exact distribution (`binned_quantile`), as `queueing.rs`
//!   does, and that correction is checked to be a small one (under 1% of the exact p99).

use crate::common::{T_19, binned_quantile, mean_se};
use tail_lab_core::lab::queue::{QueueConfig, QueueParams, STREAM, theory};

/// Batches per run.
const BATCHES: u32 = 20;

/// The standard error of the whole run's estimate from its batches' values: `s/√B`.
fn batch_se(xs: impl Iterator<Item = f64>) -> f64 {
    mean_se(&xs.collect::<Vec<f64>>()).1
}

#[test]
fn mean_p99_and_waiting_match_m_m_c_over_three_seeds() {
    let cases = [
        (1u32, 0.5),
        (1, 0.8),
        (2, 0.5),
        (4, 0.8),
        (16, 0.9),
        (64, 0.95),
    ];
    std::thread::scope(|scope| {
        for (c, rho) in cases {
            scope.spawn(move || {
                let survival = |t| theory::sojourn_survival(t, c, rho);
                let p99_binned = binned_quantile(survival, 0.99);
                for seed in 1..=3 {
                    let config = QueueConfig::new(QueueParams {
                        servers: c,
                        load: rho,
                        requests: 1_000_000,
                        seed,
                    })
                    .unwrap();
                    let (r, batches) = config.run_batched(BATCHES).unwrap();
                    assert!((p99_binned - r.theory_p99).abs() < 0.01 * r.theory_p99);
                    let checks = [
                        (
                            "mean",
                            r.mean,
                            r.theory_mean,
                            batch_se(batches.iter().map(|b| b.mean)),
                        ),
                        (
                            "P(wait)",
                            r.wait_probability,
                            r.theory_wait_probability,
                            batch_se(batches.iter().map(|b| b.wait_probability)),
                        ),
                        (
                            "p99",
                            r.p99,
                            p99_binned,
                            batch_se(batches.iter().map(|b| b.p99)),
                        ),
                    ];
                    for (what, got, want, se) in checks {
                        assert!(
                            (got - want).abs() <= T_19 * se,
                            "c={c} ρ={rho} seed {seed}: {what} {got:.5} vs {want:.5} ± {:.5}",
                            T_19 * se
                        );
                    }
                }
            });
        }
    });
}

#[test]
fn one_server_is_m_m_1_in_closed_form_too() {
    let r = QueueConfig::new(QueueParams {
        servers: 1,
        load: 0.75,
        requests: 1000,
        seed: 0,
    })
    .unwrap()
    .run();
    assert!((r.theory_mean - 4.0).abs() < 1e-12);
    assert!((r.theory_wait_probability - 0.75).abs() < 1e-15);
    assert!((r.theory_p99 - libm::log(100.0) / 0.25).abs() < 1e-9);
}

/// FNV-1a, as the value-stability digests use.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[test]
fn one_run_is_pinned_to_the_bit() {
    // The numbers of one run, as the value-stability tests pin the other models': any change
    // to the draws, the event order or the arithmetic moves them. Stream id 10.
    assert_eq!(STREAM.id(), 10);
    let r = QueueConfig::new(QueueParams {
        servers: 4,
        load: 0.8,
        requests: 200_000,
        seed: 7,
    })
    .unwrap()
    .run();
    let got = (
        r.mean.to_bits(),
        r.p99.to_bits(),
        r.wait_probability.to_bits(),
        // `intervals` came after the pin (batch means of the same sojourns, no draw of its
        // own): left out of the digested text, and pinned on its own below (taken again when
        // the intervals moved from twenty batches to five, issue 33).
        // `planned` came later still (how a run's length was chosen; `None` for a fixed one).
        fnv1a(
            &format!("{r:?}")
                .replace(&format!(", intervals: {:?}", r.intervals), "")
                .replace(", planned: None", ""),
        ),
    );
    assert_eq!(got, PINNED);
    assert_eq!(
        fnv1a(&format!("{:?}", r.intervals)),
        0x3329_af37_8a11_ea14,
        "the intervals' digest"
    );
}

/// `(mean, p99, wait_probability)` bits and the digest of the whole result's `{:?}` (which
/// prints every f64 exactly, so it pins the closed forms too). Taken when the model was added:
/// mean 1.755601927434018, p99 6.811225698621223, P(wait) 0.6017333333333333 (exact: 1.7455,
/// 6.8932, 0.5964).
const PINNED: (u64, u64, u64, u64) = (
    0x3ffc16f20bf1fa90,
    0x401b3eb1f31502fa,
    0x3fe3416643728d2d,
    0x832de102edb80f47,
);

/// The result's own 95% intervals (batch means, `sampling::batch`) cover the closed forms about
/// 95% of the time: over 40 seeds at each of M/M/1 at ρ = 0.5 and M/M/4 at ρ = 0.8, the count
/// that covers is Binomial(40, 0.95) (mean 38, sd 1.4) if the intervals are right; at least 33
/// (3.6 sd below) must cover. Intervals that ignored the correlation between consecutive
/// sojourns would cover far less (the iid standard error of an M/M/1 mean at ρ = 0.5 is about
/// a third of the true one), and the seeds are fixed, so this cannot flake.
#[test]
fn the_results_intervals_cover_the_closed_forms() {
    for (servers, load) in [(1u32, 0.5), (4, 0.8)] {
        let (theory_mean, theory_p99) = (
            theory::mean_sojourn(servers, load),
            theory::sojourn_quantile(servers, load, 0.99),
        );
        let (mut mean_hits, mut p99_hits) = (0, 0);
        for seed in 0..40 {
            let r = QueueConfig::new(QueueParams {
                servers,
                load,
                requests: 50_000,
                seed,
            })
            .unwrap()
            .run();
            let i = r.intervals.expect("a stable run has intervals");
            let (mean, p99) = (
                i.mean.expect("every batch"),
                i.p99.expect("50,000 requests"),
            );
            assert!(mean.lo <= r.mean && r.mean <= mean.hi);
            mean_hits += u32::from(mean.contains(theory_mean));
            p99_hits += u32::from(p99.contains(theory_p99));
        }
        assert!(
            mean_hits >= 33,
            "M/M/{servers} at {load}: mean covered {mean_hits} of 40"
        );
        assert!(
            p99_hits >= 33,
            "M/M/{servers} at {load}: p99 covered {p99_hits} of 40"
        );
    }
}
