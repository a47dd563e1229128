//! Every simulation against its closed form, over several seeds.
//!
//! Heavy: run with `cargo test --release` (the README's test command does). Tolerances are
//! binomial, derived from the sample size in `common`.

use crate::common::{SEEDS, Z, assert_tail, tolerance};
use rand_distr::Distribution;
use tail_lab_core::lab::fanout::simulate_slow_share;
use tail_lab_core::lab::hedge_idle::IdleHedge;
use tail_lab_core::lab::service::{ServiceModel, ServiceSampler};
use tail_lab_core::sampling::address::{SampleStream, Stream};
use tail_lab_core::sampling::histogram::Histogram;
use tail_lab_core::sampling::histogram::shared_bins;
use tail_lab_core::sampling::lognormal::LogNormalMs;
use tail_lab_core::tail::leaf_quantiles::LeafQuantiles;
use tail_lab_core::tail::mitigation::Mitigation;
use tail_lab_core::tail::profile::{LeafSampler, ProfileId};
use tail_lab_core::tail::request::{TailConfig, TailModel};
use tail_lab_core::tail::tail_run::TailRun;
use tail_lab_core::theory;

#[test]
fn fanout_share_matches_one_minus_one_minus_p_to_the_n() {
    let r = 200_000;
    for (i, &seed) in SEEDS.iter().enumerate() {
        for (p, n) in [(0.01, 100), (0.005, 10), (0.02, 50), (0.001, 256), (0.3, 3)] {
            let want = theory::slow_share(p, n).unwrap();
            let got = simulate_slow_share(p, n, r, seed + i as u64).unwrap();
            let tol = tolerance(want, r as f64);
            assert!(
                (got - want).abs() <= tol,
                "p={p} n={n} seed={seed}: {got} vs {want} ± {tol}"
            );
        }
    }
}

/// Kolmogorov–Smirnov distance between sorted samples and a CDF.
fn ks_distance(sorted: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let n = sorted.len() as f64;
    sorted
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).abs().max((f - (i + 1) as f64 / n).abs())
        })
        .fold(0.0, f64::max)
}

#[test]
fn table_sampler_passes_ks_against_the_exact_cdf_and_rand_distr() {
    // One-sample KS at α = 0.001: critical value 1.95/√n (as rand_distr's own KS tests use).
    // Two-sample KS against rand_distr's LogNormal-based reference at α = 0.001:
    // 1.95 · sqrt((n + m)/(n m)).
    let n = 200_000;
    for profile in ProfileId::ALL {
        let prof = profile.profile();
        let sampler = LeafSampler::new(prof.clone());
        for &seed in &SEEDS {
            let mut table: Vec<f64> = (0..n as u64)
                .map(|j| {
                    sampler.sample(SampleStream::at(
                        seed,
                        tail_lab_core::tail::request::REQUEST_STREAM,
                        j,
                        0,
                        0,
                    ))
                })
                .collect();
            table.sort_by(f64::total_cmp);
            // The exact CDF costs a quadrature: evaluate it on a thinned set of order statistics
            // (every 20th), which can only understate D by at most 20/n.
            let thinned: Vec<f64> = table.iter().step_by(20).copied().collect();
            let d_exact = thinned
                .iter()
                .enumerate()
                .map(|(i, &x)| (prof.cdf(x) - (20 * i) as f64 / n as f64).abs())
                .fold(0.0, f64::max);
            let crit = 1.95 / (n as f64).sqrt();
            assert!(
                d_exact < crit + 20.0 / n as f64,
                "{profile:?} seed {seed}: D = {d_exact} vs {crit}"
            );
            let mut reference: Vec<f64> = {
                let mut rng = SampleStream::from_state(seed ^ 0x5EED);
                (0..n).map(|_| prof.sample_reference(&mut rng)).collect()
            };
            reference.sort_by(f64::total_cmp);
            // Two-sample D: sup |F_table − F_ref| over the reference points.
            let d_two = reference
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    let ft = table.partition_point(|&t| t <= x) as f64 / n as f64;
                    (ft - (i + 1) as f64 / n as f64).abs()
                })
                .fold(0.0, f64::max);
            let crit2 = 1.95 * (2.0 / n as f64).sqrt();
            assert!(
                d_two < crit2,
                "{profile:?} seed {seed}: two-sample D = {d_two} vs {crit2}"
            );
        }
    }
}

#[test]
fn lognormal_table_passes_ks_with_a_million_draws() {
    let body = ProfileId::Default.profile().body().unwrap();
    let table = body.table();
    let reference = body.reference();
    let n = 1_000_000;
    for &seed in &SEEDS {
        let mut s = SampleStream::from_state(seed);
        let mut draws: Vec<f64> = (0..n).map(|_| table.sample(s.next_bits())).collect();
        draws.sort_by(f64::total_cmp);
        let d = ks_distance(&draws, |x| body.cdf(x));
        assert!(d < 1.95 / (n as f64).sqrt(), "seed {seed}: D = {d}");
        // The same test applied to rand_distr's own sampler, as a control on the harness.
        let mut rng = SampleStream::from_state(seed);
        let mut naive: Vec<f64> = (0..n).map(|_| reference.sample(&mut rng)).collect();
        naive.sort_by(f64::total_cmp);
        assert!(ks_distance(&naive, |x| body.cdf(x)) < 1.95 / (n as f64).sqrt());
    }
}

#[test]
fn measured_leaf_cdf_matches_the_exact_cdf() {
    // At bin edges the histogram CDF is an exact count of 2^22 draws: binomial tolerance.
    for profile in ProfileId::ALL {
        let prof = profile.profile();
        let sampler = LeafSampler::new(prof.clone());
        for &seed in &SEEDS {
            let q = LeafQuantiles::measure(&sampler, seed, 1 << 22);
            for level in [0.5, 0.95, 0.99, 0.999, 0.9999, 0.99999] {
                assert_tail(
                    q.histogram(),
                    prof.quantile(level),
                    |t| prof.survival(t),
                    &format!("{profile:?} leaf level {level} seed {seed}"),
                );
            }
        }
    }
}

/// Runs `requests` parents and returns the run.
fn run(profile: ProfileId, fix: &str, fanout: u32, seed: u64, requests: u64) -> TailRun {
    let cfg = TailConfig::new(
        fanout,
        profile.profile(),
        Mitigation::from_name(fix).unwrap(),
        seed,
    )
    .unwrap();
    let mut r = TailRun::new(cfg);
    r.run(requests).unwrap();
    r
}

#[test]
fn parent_follows_f_to_the_n_at_several_fanouts() {
    // P(parent ≤ t) = F(t)^n with F the exact leaf CDF; checked at the parent's 50th, 90th and
    // 99th percentiles, for each profile and three fan-outs.
    let requests = 100_000;
    for profile in ProfileId::ALL {
        let prof = profile.profile();
        for (i, &seed) in SEEDS.iter().enumerate() {
            let n = [8, 100, 256][i];
            let r = run(profile, "none", n, seed, requests);
            let parent_survival = |t: f64| 1.0 - prof.cdf(t).powi(n as i32);
            for q in [0.5, 0.9, 0.99] {
                let t = theory::invert_survival(parent_survival, 1.0 - q);
                assert_tail(
                    r.parent_histogram(),
                    t,
                    parent_survival,
                    &format!("{profile:?} n={n} q={q} seed={seed}"),
                );
            }
        }
    }
}

#[test]
fn parent_quantile_from_measured_leaves_is_the_q_to_the_one_over_n_leaf_quantile() {
    // The measured table's parent quantile t* = F̂⁻¹(q^(1/n)) must put a fraction q of simulated
    // parents at or below it. Two errors add: the parent sample (binomial, r requests) and the
    // leaf table (binomial in the leaf CDF, M draws, amplified by d(F^n)/dF = n F^(n−1)).
    let (requests, m) = (100_000u64, (1u64 << 22) as f64);
    for &seed in &SEEDS {
        for n in [10u32, 100, 256] {
            let r = run(ProfileId::Default, "none", n, seed, requests);
            let table = r.model().leaf_quantiles();
            for q in [0.5, 0.99] {
                let t = table.parent_quantile(q, n).unwrap();
                let got = 1.0 - r.parent_histogram().survival(shared_bins(), t);
                let leaf = theory::parent_level(q, n).unwrap();
                let leaf_se = (leaf * (1.0 - leaf) / m).sqrt() * f64::from(n) * q / leaf;
                let parent_se = (q * (1.0 - q) / requests as f64).sqrt();
                // Both sides interpolate inside one 2% bin; allow the parent mass of half a bin.
                let bin_mass = f64::from(n) * q / leaf
                    * (table.cdf(t * 1.01) - table.cdf(t / 1.01)).abs()
                    / 2.0;
                let tol = Z * (leaf_se.powi(2) + parent_se.powi(2)).sqrt() + bin_mass;
                assert!(
                    (got - q).abs() <= tol,
                    "seed {seed} n {n} q {q}: {got} vs {q} ± {tol}"
                );
            }
        }
    }
}

#[test]
fn hedged_leaves_follow_the_survival_product() {
    // Each hedged leaf resolves at min(L0, d + L1): P(> t) = S(t)·S(t − d).
    for profile in ProfileId::ALL {
        let prof = profile.profile();
        for &seed in &SEEDS {
            let r = run(profile, "hedge-p95", 100, seed, 20_000);
            let d = r.model().hedge_delay_ms().unwrap();
            // The delay is the leaf p95 measured on 2^22 calibration draws: binomial error plus
            // half the mass of the 2% bin it was interpolated in.
            let half_bin = (prof.survival(d / 1.01) - prof.survival(d * 1.01)) / 2.0;
            let tol = tolerance(0.05, (1u64 << 22) as f64) + half_bin;
            assert!(
                (prof.survival(d) - 0.05).abs() <= tol,
                "{profile:?}: S(d) = {} vs 0.05 ± {tol}",
                prof.survival(d)
            );
            let hedged = |t: f64| theory::hedged_survival(|x| prof.survival(x), t, d);
            for t in [0.5 * d, d * 1.2, 2.0 * d, 4.0 * d] {
                assert_tail(
                    r.leaf_histogram(),
                    t,
                    hedged,
                    &format!("{profile:?} hedged leaf t={t} seed={seed}"),
                );
            }
            // And the parent: 1 − (1 − S(t)S(t−d))^n.
            let parent = |t: f64| 1.0 - (1.0 - hedged(t)).powi(100);
            for q in [0.5, 0.99] {
                let t = theory::invert_survival(parent, 1.0 - q);
                assert_tail(
                    r.parent_histogram(),
                    t,
                    parent,
                    &format!("{profile:?} hedged parent q={q} seed={seed}"),
                );
            }
        }
    }
}

#[test]
fn idle_hedge_follows_the_survival_product() {
    let model = ServiceModel::default();
    let requests = 1_000_000;
    for &seed in &SEEDS {
        let h = IdleHedge::new(model.clone(), 0.95, seed).unwrap();
        let d = h.delay_ms();
        let bins = shared_bins();
        let (mut before, mut after) = (Histogram::new(), Histogram::new());
        for k in 0..requests {
            let o = h.request_at(k);
            before.record(bins, o.first_ms);
            after.record(bins, o.completion_ms);
        }
        for t in [d, 25.0, 34.0, 60.0, 1000.0] {
            assert_tail(&before, t, |x| model.survival(x), "unhedged");
            assert_tail(
                &after,
                t,
                |x| theory::hedged_survival(|y| model.survival(y), x, d),
                &format!("hedged t={t} seed={seed}"),
            );
        }
        // The delay itself is the calibration's p95: exact survival 5% within 2^18 draws' error.
        let s = model.survival(d);
        assert!((s - 0.05).abs() < tolerance(0.05, (1 << 18) as f64) + 1e-3 * 0.05);
    }
}

#[test]
fn partial_results_follow_the_binomial_tail() {
    // Answering without the slowest k of n: P(parent > t) = P(at least k+1 leaves > t).
    let prof = ProfileId::Default.profile();
    for (fix, k) in [("drop-1", 1u32), ("drop-5", 5)] {
        for &seed in &SEEDS {
            let r = run(ProfileId::Default, fix, 100, seed, 100_000);
            let parent = |t: f64| theory::partial_parent_survival(prof.survival(t), 100, k);
            for q in [0.5, 0.9, 0.99] {
                let t = theory::invert_survival(parent, 1.0 - q);
                assert_tail(
                    r.parent_histogram(),
                    t,
                    parent,
                    &format!("{fix} q={q} seed={seed}"),
                );
            }
        }
    }
}

#[test]
fn parents_at_smaller_fanouts_are_maxima_over_the_same_first_leaves() {
    // Addressed sampling: a fan-out-n parent is exactly the max of the first n leaves of the
    // fan-out-256 request with the same index.
    let full = TailModel::with_calibration(
        TailConfig::new(256, ProfileId::Default.profile(), Mitigation::None, 5).unwrap(),
        1 << 12,
    );
    for n in [1u32, 8, 69, 100] {
        let small = TailModel::with_calibration(
            TailConfig::new(n, ProfileId::Default.profile(), Mitigation::None, 5).unwrap(),
            1 << 12,
        );
        for k in 0..2000 {
            let big = full.request_at(k);
            let want = big.leaves[..n as usize]
                .iter()
                .map(|l| l.resolved_ms)
                .fold(0.0, f64::max);
            assert_eq!(small.request_at(k).parent_ms, want);
        }
    }
}

#[test]
fn seed_004_hedge_example_forgets_the_delay() {
    // Seed 004's Python hedges with `results.append(min(first, second))`: the backup is timed
    // from zero, as if it had been sent with the original. It sends the backup only for a slow
    // first copy, yet starts it at once: an oracle, which neither a hedge nor Dean and Barroso's
    // tied request (both servers queue it; the copy that starts service cancels its sibling)
    // can be. Past d its tail is S(t)², not S(t)·S(t − d). The lab completes at
    // min(first, d + second). Between d and 2d the two differ by a factor S(t − d)/S(t),
    // which is large, so the simulation must match one and clearly reject the other.
    let model = ServiceModel::default();
    let requests = 1_000_000u64;
    let h = IdleHedge::new(model.clone(), 0.95, 21).unwrap();
    let d = h.delay_ms();
    for t in [1.2 * d, 1.6 * d] {
        let late = (0..requests)
            .filter(|&k| h.request_at(k).completion_ms > t)
            .count() as f64
            / requests as f64;
        let right = theory::hedged_survival(|x| model.survival(x), t, d);
        let seed_004 = model.survival(t).powi(2);
        assert!(
            (late - right).abs() <= tolerance(right, requests as f64),
            "t={t}: {late} vs {right}"
        );
        assert!(
            late > 3.0 * seed_004,
            "t={t}: {late} should be far above the seed's {seed_004}"
        );
    }
}

#[test]
fn seed_004_median_improvement_comes_from_its_bug() {
    // Seed 004 reads its table ("even the median improved") as a sign that its 50 ms delay is too
    // aggressive. A real hedge cannot move any quantile below its delay d: a request that has
    // answered by d never sends a backup, and one still out at d answers after d. A delay set
    // too low costs backups instead, S(d) of requests. The seed's median moved only because its
    // backup starts at zero (see above): below d its oracle answers by t with probability
    // F(t) + S(d)·F(t), so its median is the body's (1/2)/(1 + S(d)) quantile.
    //
    // Seed 004's service model: a lognormal body (median 25 ms, σ = 1), replaced with
    // probability 1% by a straggler mode (median 1 s, σ = 1).
    let body = LogNormalMs::new(25.0, 1.0).unwrap();
    let model = ServiceModel::new(body, 0.01, LogNormalMs::new(1000.0, 1.0).unwrap()).unwrap();
    let d = 50.0;
    let fires = model.survival(d);
    // The seed's "roughly a quarter of perfectly healthy requests exceed 50 ms" is right: that
    // share of all requests fires a backup.
    assert!((0.24..0.26).contains(&fires), "S(50 ms) = {fires}");
    let oracle_median = model.quantile(0.5 / (1.0 + fires));
    let requests = 400_000u64;
    let sampler = ServiceSampler::new(model.clone());
    for (i, &seed) in SEEDS.iter().enumerate() {
        // The lab's hedge, at the seed's fixed delay: its median is the unhedged one, to the bit.
        let hedge = IdleHedge::with_delay_ms(model.clone(), d, seed + i as u64).unwrap();
        let r = hedge.run(requests).unwrap();
        assert_eq!(
            r.before.p50, r.after.p50,
            "seed {seed}: a hedge moved the median"
        );
        assert!(
            (r.extra_requests - fires).abs() <= tolerance(fires, requests as f64),
            "seed {seed}: {} of requests fired, S(d) = {fires}",
            r.extra_requests
        );
        // The seed's code on draws of the same model: its median falls to the oracle's.
        let stream = Stream::new(0x004);
        let mut seed_code: Vec<f64> = (0..requests)
            .map(|k| {
                let first = sampler.sample(SampleStream::at(seed, stream, k, 0, 0)).ms;
                if first <= d {
                    return first;
                }
                first.min(sampler.sample(SampleStream::at(seed, stream, k, 0, 1)).ms)
            })
            .collect();
        seed_code.sort_unstable_by(f64::total_cmp);
        let median = seed_code[seed_code.len() / 2];
        // The sample median's level is within Z binomial standard errors of 1/2; its time is
        // then within the model's quantiles at those levels.
        let se = Z * (0.25 / requests as f64).sqrt();
        let (lo, hi) = (
            model.quantile((0.5 - se) / (1.0 + fires)),
            model.quantile((0.5 + se) / (1.0 + fires)),
        );
        assert!(
            (lo..=hi).contains(&median),
            "seed {seed}: the seed's median {median} ms is outside [{lo}, {hi}] around {oracle_median}"
        );
        assert!(
            median < 0.85 * r.before.p50,
            "seed {seed}: {median} vs {}",
            r.before.p50
        );
    }
}

#[test]
fn tail_run_hedge_cost_matches_its_expectations() {
    // `TailRun::hedge_cost` was checked only wasm against native (the same code). Here against
    // theory, for every profile and seed:
    // - extra requests: each leaf fires a duplicate with probability S(d); leaves are
    //   independent (addressed), so the binomial tolerance over all leaves applies;
    // - extra work: backup time until it answers or the original does, over the originals'
    //   time, with expectation ∫ S(s)·S(s + d) ds / E[L] (`theory::idle_hedge_extra_work`). The
    //   run reports a ratio of sums, so its standard error comes from the delta method over the
    //   requests (independent): SE² = Var(N_k − ratio·D_k) / (R·mean(D)²), with N_k and D_k a
    //   request's backup and original work, estimated from the same requests' traces. The
    //   traces also pin the fast path's accounting to `request_at`'s.
    // The leaf sampler is a 2^16-cell inverse-CDF table, so on top of sampling error the
    // profile's S(d) differs from the sampler's by at most about one cell (2^-16) of mass.
    // At 1.2·10^6 leaves per seed the work's standard error is about 0.6% of its value, so a
    // 5% error in the accounting shows at about 8 standard errors.
    let (fanout, requests) = (20u32, 60_000u64);
    let cell = 1.0 / 65_536.0;
    for profile in ProfileId::ALL {
        let prof = profile.profile();
        let mean = prof.body().unwrap().mean_ms()
            + prof
                .pause()
                .map_or(0.0, |p| p.probability() * p.duration().mean_ms());
        let prof = &prof;
        // The exact integral costs seconds for a paused profile: one thread per seed.
        std::thread::scope(|scope| {
            for &seed in &SEEDS {
                scope.spawn(move || {
            let r = run(profile, "hedge-p95", fanout, seed, requests);
            let d = r.model().hedge_delay_ms().unwrap();
            let cost = r.hedge_cost();
            let leaves = (requests * u64::from(fanout)) as f64;
            let want = prof.survival(d);
            let tol = tolerance(want, leaves) + cell;
            assert!(
                (cost.extra_requests - want).abs() <= tol,
                "{profile:?} seed {seed}: extra requests {} vs S(d) = {want} ± {tol}",
                cost.extra_requests
            );

            let (mut n, mut dn) = (Vec::new(), Vec::new());
            for k in 0..requests {
                let trace = r.request_at(k);
                let backup: f64 = trace
                    .leaves
                    .iter()
                    .filter_map(|l| l.hedge.map(|h| l.resolved_ms - h.sent_at_ms))
                    .sum();
                let original: f64 = trace.leaves.iter().map(|l| l.original_ms).sum();
                n.push(backup);
                dn.push(original);
            }
            let (sum_n, sum_d): (f64, f64) = (n.iter().sum(), dn.iter().sum());
            let ratio = sum_n / sum_d;
            assert!(
                (ratio - cost.extra_work).abs() <= 1e-9 * ratio,
                "{profile:?} seed {seed}: the run's accounting {} differs from its traces' {ratio}",
                cost.extra_work
            );
            let rr = requests as f64;
            let mean_d = sum_d / rr;
            let var = n
                .iter()
                .zip(&dn)
                .map(|(a, b)| (a - ratio * b).powi(2))
                .sum::<f64>()
                / (rr - 1.0);
            let se = (var / rr).sqrt() / mean_d;
            let exact = theory::idle_hedge_extra_work(|t| prof.survival(t), d, mean);
            // The table's one-cell mass at the far tail bounds its bias in either integral.
            let table = cell * 2.0 * d / mean;
            assert!(
                (cost.extra_work - exact).abs() <= Z * se + table,
                "{profile:?} seed {seed}: extra work {} vs {exact} ± {}",
                cost.extra_work,
                Z * se + table
            );
            });
            }
        });
    }
}
