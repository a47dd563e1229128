//! `cargo bench -p tail-lab-core`: native figures for the hot paths, one line each.
//!
//! Each figure is the median of 5 timed repetitions after one warm-up. It prints and asserts
//! nothing: this machine is shared and noisy, so compare ratios from one run, not absolutes
//! across runs. `cargo bench -p tail-lab-core -- quick` runs a tiny version (CI smoke check);
//! `-- tail-leaf` prints only the fan-out-100 Tail figure, the one `cargo xtask bench` pairs
//! with the same loop in wasm (`tests/bench/wasm-leaf.mjs`) to take wasm ÷ native per round;
//! `-- engine NAME` prints one queueing engine's figure (`supermarket`, `loaded-none`,
//! `loaded-hedge`), the same runs as `web/bench/engines.js` times in wasm.

use std::hint::black_box;
use std::time::Instant;
use tail_lab_core::lab::loaded::{DelayBasis, LoadedConfig, LoadedParams, LoadedPolicy};
use tail_lab_core::lab::supermarket::{SupermarketConfig, SupermarketParams};
use tail_lab_core::sampling::address::SampleStream;
use tail_lab_core::tail::mitigation::Mitigation;
use tail_lab_core::tail::profile::{LeafProfile, LeafSampler, ProfileId};
use tail_lab_core::tail::request::{TailConfig, TailModel};
use tail_lab_core::tail::tail_run::TailRun;

/// Median seconds of `f` over 5 runs (after one warm-up).
fn median_secs(mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..5)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[2]
}

fn line(what: &str, secs: f64, per: f64, unit: &str) {
    println!(
        "{what:<52} {:>10.2} ns/{unit}   ({:.3} s per run)",
        secs / per * 1e9,
        secs
    );
}

/// Fan-out-100 parents of the Tail piece with `fix`, into the histograms: the wasm
/// benchmarks' loop (`TailRun.run` after a reset).
fn tail_requests(profile: LeafProfile, fix: &str, requests: u64) {
    let cfg = TailConfig::new(100, profile, Mitigation::from_name(fix).unwrap(), 1).unwrap();
    let mut run = TailRun::new(cfg);
    let secs = median_secs(|| {
        run.reset();
        run.run(requests).unwrap();
        black_box(run.requests());
    });
    line(
        &format!("fan-out-100 request into histograms, fix {fix}"),
        secs,
        requests as f64,
        "request",
    );
}

/// A loaded run as `web/bench/engines.js` makes it: 10 replicas (the default), load 0.7, seed 1.
fn loaded_run(policy: &str, requests: u64) {
    let cfg = LoadedConfig::new(LoadedParams {
        replicas: 10,
        load: 0.7,
        policy: LoadedPolicy::from_name(policy, DelayBasis::Loaded).unwrap(),
        requests,
        seed: 1,
    })
    .unwrap();
    black_box(cfg.run());
}

/// A supermarket run as `web/bench/engines.js` makes it: 100 servers, λ 0.9, d 2, seed 1.
fn supermarket_run(arrivals: u64) {
    black_box(
        SupermarketConfig::new(SupermarketParams {
            servers: 100,
            lambda: 0.9,
            d: 2,
            arrivals,
            seed: 1,
        })
        .unwrap()
        .run(),
    );
}

/// One queueing engine's figure, the native side of `web/bench/engines.js`.
fn engine(name: &str, quick: bool) {
    let (units, unit) = match name {
        "supermarket" => (if quick { 10_000 } else { 10_000_000 }, "arrival"),
        _ => (if quick { 2_000 } else { 200_000 }, "request"),
    };
    let secs = match name {
        "supermarket" => median_secs(|| supermarket_run(units)),
        "loaded-none" => median_secs(|| loaded_run("none", units)),
        "loaded-hedge" => median_secs(|| loaded_run("hedge", units)),
        other => panic!("unknown engine {other}: supermarket, loaded-none or loaded-hedge"),
    };
    line(&format!("engine {name}"), secs, units as f64, unit);
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let scale = if quick { 1_000 } else { 1 };
    let profile = ProfileId::Default.profile();
    if std::env::args().any(|a| a == "tail-leaf") {
        tail_requests(profile, "none", 100_000 / scale);
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "engine") {
        engine(args.get(at + 1).map_or("", String::as_str), quick);
        return;
    }
    let sampler = LeafSampler::new(profile.clone());

    let n = 10_000_000 / scale;
    let secs = median_secs(|| {
        let mut acc = 0.0;
        for j in 0..n {
            acc += sampler.sample(SampleStream::at(
                1,
                tail_lab_core::tail::request::REQUEST_STREAM,
                j,
                0,
                0,
            ));
        }
        black_box(acc);
    });
    line("leaf sample, table (addressed)", secs, n as f64, "leaf");

    let secs = median_secs(|| {
        let mut rng = SampleStream::from_state(1);
        let mut acc = 0.0;
        for _ in 0..n {
            acc += profile.sample_reference(&mut rng);
        }
        black_box(acc);
    });
    line(
        "leaf sample, rand_distr LogNormal reference",
        secs,
        n as f64,
        "leaf",
    );

    for fix in ["none", "hedge-p95", "drop-5"] {
        tail_requests(profile.clone(), fix, 100_000 / scale);
    }
    let secs = median_secs(|| {
        black_box(TailModel::new(
            TailConfig::new(100, profile.clone(), Mitigation::None, 1).unwrap(),
        ));
    });
    println!(
        "{:<52} {:>10.1} ms",
        "model setup (tables + 2^22 calibration draws)",
        secs * 1e3
    );

    for name in ["loaded-none", "loaded-hedge", "supermarket"] {
        engine(name, quick);
    }
    your_data(quick);
}

/// Your own latencies: a draw from a reader's distribution beside a draw from the Lab's
/// mixture (two tables), and text becoming a model.
fn your_data(quick: bool) {
    use tail_lab_core::lab::empirical::parse::{ParseOptions, parse};
    use tail_lab_core::lab::empirical::{EXAMPLE, distribution_of, model_of};
    use tail_lab_core::lab::service::{ServiceModel, ServiceSampler};
    let n: u64 = if quick { 10_000 } else { 10_000_000 };
    let draws = |sampler: &ServiceSampler, what: &str| {
        let secs = median_secs(|| {
            let mut acc = 0.0;
            for j in 0..n {
                acc += sampler
                    .sample(SampleStream::at(
                        1,
                        tail_lab_core::lab::empirical::STREAM,
                        j,
                        0,
                        0,
                    ))
                    .ms;
            }
            black_box(acc);
        });
        line(what, secs, n as f64, "draw");
    };
    let text = |count: usize| -> String {
        (0..count)
            .map(|i| {
                format!(
                    "{:.3}\n",
                    2.0 * libm::exp(libm::sin(i as f64 * 12.9898) * 1.1)
                )
            })
            .collect()
    };
    draws(
        &ServiceSampler::new(ServiceModel::default()),
        "service draw, the Lab's mixture (tables)",
    );
    let example = |t: &str| {
        let input = parse(t.as_bytes(), &ParseOptions::default()).unwrap();
        distribution_of(input.values).unwrap()
    };
    let small = example(EXAMPLE);
    draws(
        &ServiceSampler::new(model_of(small).unwrap()),
        "service draw, your data (5,000 knots)",
    );
    let count = if quick { 10_000 } else { 1_000_000 };
    let big = text(count);
    let large = example(&big);
    draws(
        &ServiceSampler::new(model_of(large).unwrap()),
        &format!("service draw, your data ({count} samples)"),
    );
    let secs = median_secs(|| {
        black_box(example(&big));
    });
    println!(
        "{:<52} {:>10.1} ms",
        format!("text → model, {count} latencies"),
        secs * 1e3
    );
}
