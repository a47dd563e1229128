//! Property tests over every public configuration entry point: for any arguments, a
//! constructor either returns a `ParamError` or a configuration that runs without a panic and
//! reports no NaN and no infinity anywhere in its result.
//!
//! Arguments mix anything at all (NaN, ±∞, negatives, huge and subnormal numbers, every u32 and
//! u64) with values near each range's edges, where the bugs live. Runs are kept small (the
//! minimum requests or arrivals each model accepts) so a case costs milliseconds. CI runs the
//! default 256 cases per property; a longer search on demand:
//! `PROPTEST_CASES=20000 cargo test --release -p tail-lab-core --test it fuzz_configs`.
//!
//! The cases are drawn from a fixed seed, so every run of CI tries the same inputs (a random
//! one found the parser's panic on "ȺȺ:" only on the run that happened to draw it). Another
//! search: `PROPTEST_RNG_SEED=<any u64>` with the command above.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// Proptest's configuration (its environment overrides included) with a fixed seed unless
/// `PROPTEST_RNG_SEED` names another.
fn seeded(config: ProptestConfig) -> ProptestConfig {
    let rng_seed = match config.rng_seed {
        RngSeed::Random => RngSeed::Fixed(33),
        chosen => chosen,
    };
    ProptestConfig { rng_seed, ..config }
}
use tail_lab_core::lab::fanout::simulate_slow_share;
use tail_lab_core::lab::fanout_latency::{self, FanoutLatencyParams};
use tail_lab_core::lab::hedge_idle::IdleHedge;
use tail_lab_core::lab::loaded::{
    Cancellation, DelayBasis, LoadedConfig, LoadedParams, LoadedPolicy, LoadedService, exponential,
};
use tail_lab_core::lab::queue::{QueueConfig, QueueParams, theory as queue_theory};
use tail_lab_core::lab::service::ServiceModel;
use tail_lab_core::lab::supermarket::{
    SupermarketConfig, SupermarketParams, fixed_point_mean_time,
};
use tail_lab_core::sampling::lognormal::LogNormalMs;
use tail_lab_core::tail::mitigation::Mitigation;
use tail_lab_core::tail::profile::{LeafProfile, Pause};
use tail_lab_core::tail::request::{TailConfig, TailModel};
use tail_lab_core::tail::tail_run::TailRun;
use tail_lab_core::theory;

/// Fails when `debug` (a result's `{:?}`) holds a NaN or an infinity anywhere.
fn assert_finite(what: &str, debug: &str) {
    let bad = debug
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .find(|t| matches!(*t, "NaN" | "inf" | "-inf"));
    assert!(bad.is_none(), "{what}: non-finite output in {debug}");
}

/// Any f64 at all, or one near the edges of the ranges the models accept.
fn any_number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(-0.0),
        Just(f64::MIN_POSITIVE),
        Just(5e-324),
        Just(1e-300),
        Just(1e-9),
        Just(1e-3),
        Just(0.5),
        Just(1.0),
        Just(1.0 - 1e-12),
        Just(2.0),
        Just(5.0),
        Just(5.000_000_1),
        Just(1e9),
        Just(1e300),
        0.0..1.0f64,
        0.0..10.0f64,
        1e-6..1e9f64,
    ]
}

/// Mostly inside `range` (so most cases reach a model), sometimes anything.
fn mostly(range: std::ops::RangeInclusive<f64>) -> impl Strategy<Value = f64> {
    prop_oneof![3 => range, 1 => any_number()]
}

/// A probability-like number: mostly inside 0..=1, sometimes anything.
fn fraction() -> impl Strategy<Value = f64> {
    mostly(0.0..=1.0)
}

/// A lognormal from any median and sigma (`None` where the constructor refuses them).
fn lognormal() -> impl Strategy<Value = Option<LogNormalMs>> {
    (mostly(1e-3..=1e5), mostly(1e-3..=5.0)).prop_map(|(m, s)| LogNormalMs::new(m, s).ok())
}

fn small_count(max: u32) -> impl Strategy<Value = u32> {
    prop_oneof![4 => 0..=max, 1 => any::<u32>()]
}

proptest! {
    #![proptest_config(seeded(ProptestConfig::default()))]
    #[test]
    fn tail_runs(
        fanout in small_count(1100),
        body in lognormal(),
        pause in (fraction(), lognormal()),
        fix in (0u8..4, fraction(), small_count(60)),
        seed in any::<u64>(),
        draws in 1usize..4096,
        requests in 0u64..20,
        k in any::<u64>(),
    ) {
        let Some(body) = body else { return Ok(()) };
        let pause = match pause {
            (p, Some(d)) => match Pause::new(p, d) { Ok(p) => Some(p), Err(_) => return Ok(()) },
            _ => None,
        };
        let mitigation = match fix.0 {
            0 => Ok(Mitigation::None),
            1 => Mitigation::hedge(fix.1),
            _ => Mitigation::drop_slowest(fix.2),
        };
        let Ok(mitigation) = mitigation else { return Ok(()) };
        let Ok(config) = TailConfig::new(fanout, LeafProfile::new(body, pause), mitigation, seed) else {
            return Ok(());
        };
        let mut run = TailRun::from_model(TailModel::with_calibration(config.clone(), draws));
        run.run(requests).unwrap();
        let what = format!("{config:?} draws {draws} requests {requests}");
        assert_finite(&what, &format!("{:?}", run.hedge_cost()));
        assert_finite(&what, &format!("{:?}", run.request_at(k)));
        assert_finite(&what, &format!("{:?}", run.model().hedge_delay_ms()));
        if requests > 0 {
            for q in [0.001, 0.5, 0.99, 0.999] {
                assert_finite(&what, &format!("{:?}", run.leaf_percentile(q)));
                assert_finite(&what, &format!("{:?}", run.parent_percentile(q)));
            }
        }
        assert_finite(&what, &format!("{:?}", run.model().leaf_quantiles().parent_curve(0.99, 64).unwrap()));
    }

    #[test]
    fn fanout_shares(p in any_number(), n in small_count(1100), requests in 0u64..2000, seed in any::<u64>()) {
        if let Ok(share) = simulate_slow_share(p, n, requests, seed) {
            prop_assert!((0.0..=1.0).contains(&share), "p={p} n={n}: {share}");
        }
    }

    #[test]
    fn fanout_latencies(p in fraction(), n in small_count(1100), requests in 0u64..100, seed in any::<u64>()) {
        if let Ok(r) = fanout_latency::simulate(FanoutLatencyParams { p, n, requests, seed }) {
            assert_finite(&format!("p={p} n={n} requests={requests}"), &format!("{r:?}"));
            // Each request's maximum is at least each of its leaves, so the parents dominate
            // the pooled leaves: in the mean and, on the same bins, in every percentile.
            prop_assert!(r.parent_mean >= r.leaf_mean * (1.0 - 1e-12), "{r:?}");
            prop_assert!(r.parent_p50 >= r.leaf_p50 && r.parent_p99 >= r.leaf_p99, "{r:?}");
            prop_assert!(r.parent_mean_std_err >= 0.0 && r.leaf_mean_std_err >= 0.0, "{r:?}");
        }
    }

    #[test]
    fn idle_hedges(
        body in lognormal(),
        slow_p in fraction(),
        slow in lognormal(),
        delay in (any::<bool>(), mostly(0.0..=1e4)),
        seed in any::<u64>(),
        requests in prop_oneof![1 => Just(0u64), 4 => 1000u64..3000, 1 => any::<u64>()],
    ) {
        let (Some(body), Some(slow)) = (body, slow) else { return Ok(()) };
        let Ok(model) = ServiceModel::new(body, slow_p, slow) else { return Ok(()) };
        let hedge = if delay.0 {
            IdleHedge::new(model.clone(), delay.1, seed)
        } else {
            IdleHedge::with_delay_ms(model.clone(), delay.1, seed)
        };
        let Ok(hedge) = hedge else { return Ok(()) };
        if requests > 10_000 { return Ok(()) } // refused or slow: the bound is tested elsewhere
        if let Ok((result, curves)) = hedge.run_with_curves(requests) {
            let what = format!("{model:?} delay {delay:?} requests {requests}");
            assert_finite(&what, &format!("{result:?}"));
            assert_finite(&what, &format!("{curves:?}"));
        }
    }

    #[test]
    fn loaded_replicas(
        replicas in small_count(40),
        load in mostly(1e-3..=2.0),
        policy in (0u8..4, mostly(0.0..=1e4)),
        basis in any::<bool>(),
        cancellation in 0usize..5,
        service in (any::<bool>(), mostly(1e-6..=1e9), lognormal(), fraction(), lognormal()),
        requests in prop_oneof![Just(999u64), 1000u64..1500, any::<u64>()],
        seed in any::<u64>(),
    ) {
        let basis = if basis { DelayBasis::Loaded } else { DelayBasis::Idle };
        let policy = match policy.0 {
            0 => Ok(LoadedPolicy::None),
            1 => LoadedPolicy::from_name("hedge", basis),
            2 => LoadedPolicy::from_name("duplicate", basis),
            _ => LoadedPolicy::after_delay(policy.1),
        };
        let Ok(policy) = policy else { return Ok(()) };
        let Ok(config) = LoadedConfig::new(LoadedParams { replicas, load, policy, requests: requests.min(5000), seed }) else {
            return Ok(());
        };
        let service = if service.0 {
            let Ok(exponential) = exponential(service.1) else { return Ok(()) };
            exponential
        } else {
            let (Some(body), Some(slow)) = (service.2, service.4) else { return Ok(()) };
            let Ok(model) = ServiceModel::new(body, service.3, slow) else { return Ok(()) };
            LoadedService::Lab(model)
        };
        let config = config.with_service(service);
        let rule = Cancellation::ALL[cancellation];
        let result = config.clone().with_cancellation(rule).run();
        assert_finite(&format!("{config:?} {rule:?}"), &format!("{result:?}"));
    }

    #[test]
    fn supermarkets(
        servers in prop_oneof![4 => 0u32..300, 1 => any::<u32>()],
        lambda in mostly(1e-3..=100.0),
        d in prop_oneof![4 => 0u32..40, 1 => any::<u32>()],
        arrivals in prop_oneof![Just(999u64), 1000u64..3000, any::<u64>()],
        seed in any::<u64>(),
    ) {
        // Cost is arrivals × d: keep a case to milliseconds (the binding bounds it for users).
        let Ok(config) = SupermarketConfig::new(SupermarketParams { servers, lambda, d, arrivals: arrivals.min(3000), seed }) else {
            return Ok(());
        };
        if u64::from(d) * arrivals.min(3000) > 50_000_000 { return Ok(()) }
        let result = config.run();
        assert_finite(&format!("{config:?}"), &format!("{result:?}"));
    }

    #[test]
    fn queues(
        servers in prop_oneof![4 => 0u32..80, 1 => any::<u32>()],
        load in mostly(1e-3..=1.2),
        requests in prop_oneof![Just(999u64), 1000u64..3000, any::<u64>()],
        seed in any::<u64>(),
    ) {
        let params = QueueParams { servers, load, requests: requests.min(3000), seed };
        let Ok(config) = QueueConfig::new(params) else { return Ok(()) };
        let result = config.run();
        assert_finite(&format!("{config:?}"), &format!("{result:?}"));
        // The closed forms, at any valid point, are finite and ordered as they must be.
        let (c, rho) = (config.params().servers, config.params().load);
        let wait = queue_theory::erlang_c(c, rho);
        prop_assert!((0.0..=1.0).contains(&wait), "C({c}, {rho}) = {wait}");
        let (mean, p99) = (queue_theory::mean_sojourn(c, rho), queue_theory::sojourn_quantile(c, rho, 0.99));
        prop_assert!(mean >= 1.0 && p99 > mean && p99.is_finite(), "{c} {rho}: {mean} {p99}");
    }

    #[test]
    fn closed_forms(a in any_number(), b in any_number(), n in any::<u32>(), d in any::<u32>()) {
        for x in [theory::slow_share(a, n), theory::parent_level(a, n)].into_iter().flatten() {
            prop_assert!(x.is_finite() && (0.0..=1.0).contains(&x), "{a} {n}: {x}");
        }
        let _ = theory::crossover(a, b);
        if let Ok(t) = fanout_latency::theory(a, n % 1100) {
            assert_finite(&format!("p={a} n={}", n % 1100), &format!("{t:?}"));
            prop_assert!(t.parent_p99_ms >= t.parent_p50_ms && t.parent_p50_ms >= t.leaf_p50_ms, "{t:?}");
        }
        if let Some(t) = fixed_point_mean_time(a, d) {
            prop_assert!(t.is_finite() && t >= 1.0, "λ={a} d={d}: {t}");
        }
    }
}

#[test]
#[should_panic(expected = "non-finite output")]
fn the_finiteness_check_sees_a_nan() {
    assert_finite("nan", &format!("{:?}", Some((1.0, f64::NAN))));
}

#[test]
#[should_panic(expected = "non-finite output")]
fn the_finiteness_check_sees_an_infinity() {
    assert_finite("inf", &format!("{:?}", [0.5, -f64::INFINITY]));
}

#[test]
fn the_finiteness_check_passes_finite_numbers_and_field_names() {
    assert_finite(
        "ok",
        "R { peak_in_flight: 3, info: 1e-300, x: -0.0, y: Some(2.5) }",
    );
}

/// Texts a reader might paste or drop, built from the shapes the audit of issue 32 found
/// (many Prometheus series, many CSV columns, long cells, quoted line breaks) and from any
/// characters at all.
fn latency_text() -> impl Strategy<Value = String> {
    let cell = prop_oneof![
        "[0-9]{1,6}(\\.[0-9]{1,4})?(ms|s|us)?",
        "\"[^\"]{0,12}\"",
        "\"[a-z ]{0,6}\n[a-z ]{0,6}\"",
        "[a-z_]{1,12}",
        Just("x".repeat(5000)),
        any::<String>(),
    ];
    let row = prop::collection::vec(cell, 1..6).prop_map(|c| c.join(","));
    let csv = prop::collection::vec(row, 1..40).prop_map(|r| r.join("\n"));
    let wide = (1usize..3000).prop_map(|n| {
        let header: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
        let values: Vec<String> = (0..n).map(|i| format!("{}", 1 + i % 7)).collect();
        format!(
            "{}\n{}\n{}\n",
            header.join(","),
            values.join(","),
            values.join(",")
        )
    });
    let series = (1usize..3000, any::<bool>()).prop_map(|(n, broken)| {
        let mut text = String::new();
        for i in 0..n {
            for (le, count) in [("0.005", 1), ("0.05", 3), ("+Inf", 4)] {
                let count = if broken && i == n / 2 && le == "0.05" {
                    0
                } else {
                    count
                };
                text.push_str(&format!("m_bucket{{pod=\"{i}\",le=\"{le}\"}} {count}\n"));
            }
        }
        text
    });
    let percentiles = prop::collection::vec((0.0f64..100.0, 0.001f64..1e5), 1..50).prop_map(|v| {
        v.iter()
            .map(|(p, ms)| format!("p{p} {ms}ms"))
            .collect::<Vec<_>>()
            .join("\n")
    });
    prop_oneof![csv, wide, series, percentiles, any::<String>()]
}

proptest! {
    #![proptest_config(seeded(ProptestConfig { cases: 64, ..ProptestConfig::default() }))]

    /// Any text: read or refused with a short message naming a line of the text, never a
    /// panic; what is read and accepted has a link summary that reads back.
    #[test]
    fn any_text_is_read_or_refused_by_line(text in latency_text()) {
        use tail_lab_core::lab::empirical::{self, parse};
        let lines = text.split('\n').count();
        match parse::parse(text.as_bytes(), &parse::ParseOptions::default()) {
            Err(e) => {
                prop_assert!(e.line <= lines, "{e}");
                prop_assert!(e.message.chars().count() < 700, "{} characters", e.message.len());
            }
            Ok(input) => {
                let Ok(d) = empirical::distribution_of(input.values) else { return Ok(()) };
                let Ok(model) = empirical::measurable(d) else { return Ok(()) };
                let d = model.as_empirical().expect("an empirical model");
                // Every accepted input has a link summary (`summary` returns one only when
                // it reads back into a model the Lab accepts).
                prop_assert!(empirical::summary(d).is_some(), "{:?}", d.range_ms());
            }
        }
    }
}
