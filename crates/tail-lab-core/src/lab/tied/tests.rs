//! Whole tied runs: the loaded model's never-cancelled duplicate bit for bit, memory, and the
//! sibling choices.

use super::engine::Simulation;
use super::*;
use crate::lab::loaded::{
    Cancellation, LoadedConfig, LoadedParams, LoadedPolicy, LoadedService, exponential,
};
use crate::lab::service::ServiceModel;

#[test]
fn never_landing_tie_of_two_is_the_loaded_never_cancelled_duplicate_bit_for_bit() {
    let services = [
        LoadedService::Lab(ServiceModel::default()),
        exponential(10.0).unwrap(),
    ];
    let mut unstable = 0;
    for service in &services {
        for replicas in [2u32, 3, 10] {
            for load in [0.1, 0.3, 0.45, 0.6] {
                for seed in [1u64, 7] {
                    let requests = 20_000;
                    let loaded = LoadedConfig::new(LoadedParams {
                        replicas,
                        load,
                        policy: LoadedPolicy::Duplicate,
                        requests,
                        seed,
                    })
                    .unwrap()
                    .with_service(service.clone())
                    .with_cancellation(Cancellation::Never)
                    .run();
                    let config = TiedConfig::new(TiedParams {
                        replicas,
                        tie: 2,
                        load,
                        message_delay_ms: f64::INFINITY,
                        requests,
                        seed,
                    })
                    .unwrap()
                    .with_service(service.clone());
                    let tied = Simulation::new(&config, crate::lab::loaded::STREAM).run();
                    let what = format!("{service:?} {replicas} replicas, load {load}, seed {seed}");
                    assert_eq!(tied.stable, loaded.stable, "{what}");
                    assert_eq!(tied.unstable, loaded.unstable, "{what}");
                    assert_eq!(tied.latency, loaded.latency, "{what}");
                    assert_eq!(
                        tied.mean_ms.map(f64::to_bits),
                        loaded.mean_ms.map(f64::to_bits),
                        "{what}"
                    );
                    assert_eq!(tied.intervals, loaded.intervals, "{what}");
                    assert_eq!(tied.peak_in_flight, loaded.peak_in_flight, "{what}");
                    assert_eq!(
                        tied.utilisation.to_bits(),
                        loaded.utilisation.to_bits(),
                        "{what}"
                    );
                    assert_eq!(tied.copies_started, Some(2.0), "{what}");
                    unstable += usize::from(!tied.stable);
                }
            }
        }
    }
    assert!(unstable > 0, "the boundary tie · load ≥ 1 is covered");
}

#[test]
fn memory_follows_the_requests_in_flight() {
    for (tie, delay) in [(2, 1.0), (3, 10.0), (10, 0.0), (2, f64::INFINITY)] {
        let r = TiedConfig::new(TiedParams {
            replicas: 10,
            tie,
            load: 0.3,
            message_delay_ms: delay,
            requests: 200_000,
            seed: 5,
        })
        .unwrap()
        .run();
        assert!(r.stable, "tie {tie} delay {delay}");
        assert!(r.peak_in_flight < 5_000, "tie {tie}: {}", r.peak_in_flight);
    }
}

#[test]
fn siblings_go_to_distinct_replicas_and_cover_them_all() {
    // Stepped arrival by arrival: every request's copies are on distinct replicas, and each
    // ordered (first, sibling) pair turns up.
    for (replicas, tie) in [(3u32, 2u32), (5, 3), (4, 4), (10, 2)] {
        let config = TiedConfig::new(TiedParams {
            replicas,
            tie,
            load: 0.2,
            message_delay_ms: f64::INFINITY,
            requests: 20_000,
            seed: 3,
        })
        .unwrap();
        let mut sim = Simulation::new(&config, STREAM);
        sim.start();
        let n = replicas as usize;
        let mut pairs = vec![0u64; n * n];
        let mut seen = 0;
        while let Some(event) = sim.step() {
            if let engine::Event::Arrival(k) = event {
                let placed: Vec<usize> =
                    (0..tie).map(|j| sim.copy(k, j).replica as usize).collect();
                let mut sorted = placed.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), tie as usize, "{placed:?}");
                for &s in &placed[1..] {
                    pairs[placed[0] * n + s] += 1;
                }
                seen += 1;
            }
        }
        assert_eq!(seen, 20_000);
        for a in 0..n {
            for b in 0..n {
                if a != b {
                    assert!(pairs[a * n + b] > 100, "{replicas}/{tie}: ({a}, {b})");
                }
            }
        }
    }
}

#[test]
fn bad_parameters_are_refused_by_name() {
    let p = TiedParams {
        replicas: 10,
        tie: 2,
        load: 0.5,
        message_delay_ms: 1.0,
        requests: 10_000,
        seed: 1,
    };
    let err = |p| TiedConfig::new(p).unwrap_err().param();
    assert_eq!(err(TiedParams { replicas: 1, ..p }), "replicas");
    assert_eq!(err(TiedParams { replicas: 101, ..p }), "replicas");
    assert_eq!(err(TiedParams { tie: 1, ..p }), "tie");
    assert_eq!(err(TiedParams { tie: 11, ..p }), "tie");
    assert_eq!(err(TiedParams { load: 0.0, ..p }), "load");
    assert_eq!(
        err(TiedParams {
            message_delay_ms: -1.0,
            ..p
        }),
        "messageDelayMs"
    );
    assert_eq!(
        err(TiedParams {
            message_delay_ms: f64::NAN,
            ..p
        }),
        "messageDelayMs"
    );
    assert_eq!(
        err(TiedParams {
            message_delay_ms: f64::NEG_INFINITY,
            ..p
        }),
        "messageDelayMs"
    );
    assert_eq!(
        err(TiedParams {
            message_delay_ms: 2e9,
            ..p
        }),
        "messageDelayMs"
    );
    assert_eq!(err(TiedParams { requests: 10, ..p }), "requests");
    assert!(
        TiedConfig::new(TiedParams {
            message_delay_ms: f64::INFINITY,
            ..p
        })
        .is_ok()
    );
    assert_eq!(
        reference(
            TiedPolicy::Tied,
            10,
            0.5,
            LoadedService::Lab(ServiceModel::default()),
            10_000,
            1
        )
        .unwrap_err()
        .param(),
        "policy"
    );
}

/// Dean and Barroso's stagger: the siblings sent two message delays after the first copy. On
/// idle replicas the first copy starts at once and its cancellation lands before they are
/// sent, so both copies seldom start together: at the page's defaults 28% of cancellations
/// come late without a stagger and about 2.5% with one (two seeds, 50,000 requests: the shares
/// are of some 50,000 cancellations, so their noise is a fraction of a point).
#[test]
fn a_stagger_of_two_message_delays_makes_late_cancellations_rare() {
    for seed in [1, 2] {
        let base = TiedParams {
            replicas: 10,
            tie: 2,
            load: 0.5,
            message_delay_ms: 1.0,
            requests: 50_000,
            seed,
        };
        let plain = TiedConfig::new(base).unwrap().run();
        let staggered = TiedConfig::new(base)
            .unwrap()
            .with_stagger(2.0)
            .unwrap()
            .run();
        let (late, late_staggered) = (
            plain.late_cancellations.unwrap(),
            staggered.late_cancellations.unwrap(),
        );
        assert!(late > 0.2, "seed {seed}: {late}");
        assert!(late_staggered < 0.05, "seed {seed}: {late_staggered}");
        assert!(
            staggered.copies_started.unwrap() < plain.copies_started.unwrap(),
            "seed {seed}"
        );
        assert_eq!(staggered.stagger_ms, Some(2.0));
    }
}

#[test]
fn no_stagger_is_the_unstaggered_run_bit_for_bit() {
    let p = TiedParams {
        replicas: 10,
        tie: 3,
        load: 0.6,
        message_delay_ms: 3.0,
        requests: 20_000,
        seed: 9,
    };
    let plain = TiedConfig::new(p).unwrap().run();
    let zero = TiedConfig::new(p).unwrap().with_stagger(0.0).unwrap().run();
    assert_eq!(plain, zero);
}

#[test]
fn a_bad_stagger_is_refused_by_name() {
    let p = TiedParams {
        replicas: 10,
        tie: 2,
        load: 0.5,
        message_delay_ms: 1.0,
        requests: 20_000,
        seed: 1,
    };
    for bad in [-1.0, f64::NAN, f64::INFINITY, 2e9] {
        let e = TiedConfig::new(p).unwrap().with_stagger(bad).unwrap_err();
        assert_eq!(e.param(), "staggerMs", "{bad}");
    }
}

/// Where a started copy can be stopped, duplicating every request and cancelling whichever
/// answers second (the loaded model's `either-any`) beats tying by far: tying only shortens the
/// wait, and a hiccup that has started is the request's alone. Tied's p99 stays near a second;
/// either-any's is under 30 ms (two seeds, 50,000 requests: the 1 s hiccups sit far beyond
/// either's noise).
#[test]
fn duplicating_with_either_any_cancellation_beats_tying_where_copies_can_be_stopped() {
    use crate::lab::loaded::LoadedService;
    use crate::lab::service::ServiceModel;
    for seed in [1, 2] {
        let tied = TiedConfig::new(TiedParams {
            replicas: 10,
            tie: 2,
            load: 0.5,
            message_delay_ms: 1.0,
            requests: 50_000,
            seed,
        })
        .unwrap()
        .run();
        let any = super::reference(
            TiedPolicy::DuplicateEitherAny,
            10,
            0.5,
            LoadedService::Lab(ServiceModel::default()),
            50_000,
            seed,
        )
        .unwrap();
        let (t, a) = (tied.latency.unwrap().p99, any.latency.unwrap().p99);
        assert!(
            t > 500.0 && a < 30.0,
            "seed {seed}: tied {t}, either-any {a}"
        );
        assert_eq!(any.policy.name(), "duplicate-either-any");
        assert!(any.wasted_over_answering.is_none());
    }
}
