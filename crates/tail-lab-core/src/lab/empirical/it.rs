//! Your own latencies (`lab::empirical`): the formats read as they are printed, the fits
//! through their points, and the sampler checked against the distribution it was built from.
//!
//! Tolerances:
//! - the Dvoretzky–Kiefer–Wolfowitz inequality, `P(sup_t |F_m(t) − F(t)| > ε) ≤ 2·exp(−2mε²)`,
//!   bounds the distance between the ECDF of `m` draws and the law they are drawn from, for any
//!   law (atoms included). At `α = 1e-6` a run of a correct sampler fails once in a million:
//!   `ε = √(ln(2/α) / 2m)`. Checked on every input below, over the three seeds.
//! - A parent quantile (the slowest of n leaves): the share of simulated parents at or below
//!   the closed-form q-quantile `F⁻¹(q^(1/n))` is a binomial fraction with mean q (F is
//!   continuous at the knots the parent quantiles fall between), so it is within
//!   `Z·√(q(1 − q)/m)` of q.

use crate::common::{SEEDS, tolerance};
use std::sync::Arc;
use tail_lab_core::lab::empirical::parse::{
    CdfPoint, Format, ParseOptions, TimeUnit, Values, parse,
};
use tail_lab_core::lab::empirical::{
    EXAMPLE, EmpiricalParams, distribution_of, model_of, simulate,
};
use tail_lab_core::lab::service::ServiceSampler;
use tail_lab_core::sampling::address::{SampleStream, Stream};
use tail_lab_core::sampling::empirical::EmpiricalDistribution;
use tail_lab_core::sampling::lognormal::LogNormalMs;

const WRK2: &str = include_str!("../../../tests/it/data/wrk2.txt");
const PROMETHEUS: &str = include_str!("../../../tests/it/data/prometheus.txt");

/// `ε` of the DKW inequality for `m` draws at failure probability `alpha`.
fn dkw(m: usize, alpha: f64) -> f64 {
    ((2.0 / alpha).ln() / (2.0 * m as f64)).sqrt()
}

fn read(text: &str) -> tail_lab_core::lab::empirical::parse::LatencyInput {
    parse(text.as_bytes(), &ParseOptions::default()).unwrap()
}

fn fitted(text: &str) -> EmpiricalDistribution {
    distribution_of(read(text).values).unwrap()
}

/// `sup_t |F_m(t) − F(t)|` for sorted draws, on both sides of every draw (atoms included).
fn ks(sorted: &[f64], d: &EmpiricalDistribution) -> f64 {
    let m = sorted.len() as f64;
    let mut worst = 0.0f64;
    let mut i = 0;
    while i < sorted.len() {
        let x = sorted[i];
        let mut j = i;
        while j < sorted.len() && sorted[j] == x {
            j += 1;
        }
        worst = worst
            .max((d.cdf_below(x) - i as f64 / m).abs())
            .max((d.cdf(x) - j as f64 / m).abs());
        i = j;
    }
    worst
}

/// `m` draws of the Lab's service sampler on `d`, under `seed`, sorted.
fn draws(d: &EmpiricalDistribution, m: usize, seed: u64) -> Vec<f64> {
    let sampler = ServiceSampler::new(model_of(d.clone()).unwrap());
    let mut v: Vec<f64> = (0..m as u64)
        .map(|k| {
            sampler
                .sample(SampleStream::at(seed, Stream::new(16), k, 0, 0))
                .ms
        })
        .collect();
    v.sort_unstable_by(f64::total_cmp);
    v
}

/// A smooth, heavy-tailed sample of `n`: lognormal body with a rare slow mode.
fn synthetic(n: usize, seed: u64) -> Vec<f64> {
    let body = LogNormalMs::new(3.0, 0.5).unwrap();
    let slow = LogNormalMs::new(120.0, 0.6).unwrap();
    (0..n as u64)
        .map(|k| {
            let mut s = SampleStream::at(seed, Stream::new(999), k, 0, 0);
            let pick = s.next_unit();
            let u = s.next_open_unit();
            if pick < 0.01 {
                slow.quantile(u)
            } else {
                body.quantile(u)
            }
        })
        .collect()
}

#[test]
fn the_sampler_draws_the_distribution_within_the_dkw_bound() {
    let m = 200_000;
    let eps = dkw(m, 1e-6);
    let inputs: Vec<(&str, EmpiricalDistribution)> = vec![
        (
            "the bundled example (5,000 samples with ties)",
            fitted(EXAMPLE),
        ),
        (
            "300,001 samples, compressed to knots",
            EmpiricalDistribution::from_samples(synthetic(300_001, 4)).unwrap(),
        ),
        (
            "typed percentiles",
            fitted("p50 4ms, p90 9ms, p99 40ms, p99.9 300ms"),
        ),
        ("a wrk2 report", fitted(WRK2)),
        ("a Prometheus exposition", fitted(PROMETHEUS)),
    ];
    for (what, d) in &inputs {
        for &seed in &SEEDS {
            let x = draws(d, m, seed);
            let distance = ks(&x, d);
            assert!(
                distance < eps,
                "{what}, seed {seed}: KS {distance} ≥ DKW ε {eps}"
            );
        }
    }
}

#[test]
fn draws_reproduce_the_raw_samples_quantiles_within_the_dkw_bound() {
    // Against the input's own step ECDF: the interpolated ECDF the model is differs from it by
    // at most one sample's weight, 1/(n − 1), so the draws stay within ε + 1/(n − 1) of it.
    let n = 20_001;
    let raw = {
        let mut v = synthetic(n, 11);
        v.sort_unstable_by(f64::total_cmp);
        v
    };
    let d = EmpiricalDistribution::from_samples(raw.clone()).unwrap();
    let m = 200_000;
    let bound = dkw(m, 1e-6) + 1.0 / (n - 1) as f64;
    for &seed in &SEEDS {
        let x = draws(&d, m, seed);
        let below = |t: f64, v: &[f64]| v.partition_point(|&y| y <= t) as f64 / v.len() as f64;
        // At every 100th order statistic of the input, and at the deep tail's last ones.
        for t in raw.iter().step_by(100).chain(&raw[n - 20..]) {
            let gap = (below(*t, &x) - below(*t, &raw)).abs();
            assert!(gap < bound, "seed {seed}, t = {t}: {gap} ≥ {bound}");
        }
    }
}

#[test]
fn a_fanout_on_your_data_has_the_closed_form_parent_quantiles() {
    let d = Arc::new(fitted(EXAMPLE));
    let requests = 40_000u64;
    for &seed in &SEEDS {
        for fanout in [1u32, 10, 100] {
            let r = simulate(EmpiricalParams {
                distribution: Arc::clone(&d),
                requests,
                fanout,
                seed,
            })
            .unwrap();
            for (i, q) in [0.5, 0.99].into_iter().enumerate() {
                // Recount the parents below the closed-form quantile: the share is q ± Z·se.
                let theory = r.parent_theory[i];
                let sampler = ServiceSampler::new(model_of((*d).clone()).unwrap());
                let parents: Vec<f64> = (0..requests)
                    .map(|k| {
                        let key = tail_lab_core::sampling::address::RequestKey::new(
                            seed,
                            tail_lab_core::lab::empirical::STREAM,
                            k,
                        );
                        (1..=fanout)
                            .map(|leaf| sampler.sample(key.sample(leaf, 0)).ms)
                            .fold(0.0, f64::max)
                    })
                    .collect();
                let m = requests as f64;
                // The example repeats values (it is rounded to the microsecond), so the parent's
                // CDF may jump at the quantile: q lies between the shares strictly below and at
                // or below it.
                let below = parents.iter().filter(|&&x| x < theory).count() as f64 / m;
                let at_or_below = parents.iter().filter(|&&x| x <= theory).count() as f64 / m;
                let tol = tolerance(q, m);
                assert!(
                    below - tol <= q && q <= at_or_below + tol,
                    "seed {seed}, n {fanout}, q {q}: {below}..{at_or_below} of parents at {theory}"
                );
            }
        }
    }
}

#[test]
fn percentiles_and_buckets_round_trip_exactly() {
    // Typed percentiles: the fit's quantile at each level is the value typed.
    let d = fitted("p50: 4.2ms\np90: 11ms\np99: 48ms\np99.9: 0.31s\n");
    for (q, t) in [(0.5, 4.2), (0.9, 11.0), (0.99, 48.0), (0.999, 310.0)] {
        assert_eq!(d.quantile(q), t, "p{}", q * 100.0);
    }
    // HdrHistogram: every row's value is the fit's quantile at its percentile, and the fit
    // ends at the table's 0 and 1 rows (the minimum and the maximum).
    let input = read(WRK2);
    assert_eq!(input.format, Format::HdrHistogram);
    let Values::Points(points) = input.values.clone() else {
        panic!("points")
    };
    assert!(points.len() > 40, "{}", points.len());
    let d = distribution_of(input.values).unwrap();
    for (_, p) in &points {
        assert!((d.cdf(p.ms) - p.level).abs() < 1e-12, "{p:?}");
    }
    assert_eq!(
        d.range_ms(),
        (points[0].1.ms, points[points.len() - 1].1.ms)
    );
    // Prometheus: the fit's CDF at every finite bound is its cumulative share of the total,
    // summed over the series (here two handlers).
    let input = read(PROMETHEUS);
    assert_eq!(
        (input.format, input.unit),
        (Format::Prometheus, TimeUnit::S)
    );
    let Values::Points(points) = input.values.clone() else {
        panic!("points")
    };
    let d = distribution_of(input.values).unwrap();
    let total = 48_211.0 + 120_377.0;
    let first = points[0].1;
    assert_eq!(first.ms, 5.0, "le=\"0.005\" is 5 ms");
    for (_, p) in &points {
        assert!((d.cdf(p.ms) - p.level).abs() < 1e-12, "{p:?}");
        let count = (p.level * total).round();
        assert!(
            (p.level - count / total).abs() < 1e-12,
            "{p:?} is a count over {total}"
        );
    }
}

#[test]
fn a_lognormal_given_by_two_percentiles_is_that_lognormal() {
    // Source of truth for the fit's shape between and just beyond the points.
    let ln = LogNormalMs::new(6.0, 0.7).unwrap();
    let d = tail_lab_core::lab::empirical::fit::fit_points(&[
        CdfPoint {
            level: 0.5,
            ms: ln.quantile(0.5),
        },
        CdfPoint {
            level: 0.99,
            ms: ln.quantile(0.99),
        },
    ])
    .unwrap();
    for t in [2.0, 6.0, 15.0, 30.0, 60.0] {
        assert!(
            (d.cdf(t) - ln.cdf(t)).abs() < 2e-4,
            "t {t}: {} vs {}",
            d.cdf(t),
            ln.cdf(t)
        );
    }
}

#[test]
fn bad_input_is_refused_by_line_and_never_becomes_a_model() {
    let cases: [(&str, usize, &str); 12] = [
        ("1\n2\nfast\n", 3, "not a latency"),
        ("4\n-1\n", 2, "not above 0"),
        ("4\n0\n", 2, "not above 0"),
        ("", 0, "empty"),
        ("\n  \n# only a comment\n", 0, "empty"),
        ("12ms\n3s\n", 2, "mixed units"),
        ("12\n3 ms\n", 2, "mixed units"),
        ("p50 4\np99 2\n", 2, "must rise"),
        (
            "Value Percentile TotalCount 1/(1-Percentile)\n1 0.5 1 2\n2 0.4 2 1.6\n",
            3,
            "only rises",
        ),
        (
            "h_bucket{le=\"1\"} 5\nh_bucket{le=\"2\"} 3\nh_bucket{le=\"+Inf\"} 9\n",
            2,
            "cumulative",
        ),
        ("h_bucket{le=\"1\"} 5\nh_bucket{le=\"2\"} 7\n", 2, "+Inf"),
        ("latency,other\n1,2\nx,3\n", 3, "not a latency"),
    ];
    for (text, line, words) in cases {
        let e = parse(text.as_bytes(), &ParseOptions::default()).unwrap_err();
        assert_eq!(e.line, line, "{text:?}: {e}");
        assert!(e.to_string().contains(words), "{text:?}: {e}");
    }
    // Values that read but make no distribution.
    for (text, words) in [
        ("5\n5\n5\n", "every latency is 5 ms"),
        ("7\n", "one latency"),
        ("p99 30ms\n", "cannot be fitted"),
        ("p50 3\np99 3\n", "every point is at 3 ms"),
    ] {
        let e = distribution_of(read(text).values).unwrap_err();
        assert_eq!(e.line, 0, "{text:?}");
        assert!(e.message.contains(words), "{text:?}: {e}");
    }
    // Not UTF-8: named by line.
    let e = parse(b"1\n2\n\xff\xfe\n", &ParseOptions::default()).unwrap_err();
    assert_eq!(e.line, 3);
    // A model the Lab's histogram could not measure is refused by name.
    let huge = fitted("p50 50s\np99 200s\n");
    assert_eq!(model_of(huge).unwrap_err().param(), "service");
}

#[test]
fn ten_million_lines_are_read_and_more_are_refused_by_count() {
    // The limit is on lines, counted before anything is parsed.
    let ok = "2.5\n".repeat(tail_lab_core::lab::empirical::parse::MAX_LINES);
    let input = parse(ok.as_bytes(), &ParseOptions::default()).unwrap();
    match input.values {
        Values::Samples(s) => assert_eq!(s.len(), 10_000_000),
        other => panic!("{other:?}"),
    }
    let over = format!("{ok}2.5\n");
    let e = parse(over.as_bytes(), &ParseOptions::default()).unwrap_err();
    assert!(e.message.contains("10000000"), "{e}");
}
