//! A trace of a loaded run's own events, for an animation of its replicas' queues
//! ([`trace`]): after each event, how many live copies each replica holds (queued or in
//! service), primaries and backups apart.
//!
//! It is recorded through the engine's observer hook on the run [`LoadedConfig::run`] makes
//! with `warmup + requests` requests (its hedge delay calibrated as that run's is), so
//! [`LoadedTrace::summary`] is that run's result, bit for bit. The window opens at the arrival
//! of request `warmup` and closes at the last arrival.

use super::config::{LoadedConfig, LoadedParams, LoadedResult, MIN_LOAD};
use super::engine::Event;
use super::policy::{Cancellation, LoadedPolicy};
use crate::error::{CountRange, ParamError};

/// Replicas a trace may have (the Lab's are 10).
pub const TRACE_REPLICAS: CountRange =
    crate::count_range!(2, 16, " (hedging needs a second replica)");
/// Requests a trace records.
pub const TRACE_REQUESTS: CountRange = crate::count_range!(1, 20000);
/// Requests run before the window opens.
pub const TRACE_WARMUP: CountRange = crate::count_range!(0, 20000);
/// The highest load a trace accepts: past it (at 1 and above) a queue only grows.
pub const TRACE_MAX_LOAD: f64 = 0.99;

/// The parameters of a trace ([`trace`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadedTraceParams {
    /// Replicas, in [`TRACE_REPLICAS`].
    pub replicas: u32,
    /// Offered utilisation before backups, [`MIN_LOAD`]..=[`TRACE_MAX_LOAD`].
    pub load: f64,
    /// What a request sends besides its primary.
    pub policy: LoadedPolicy,
    /// What happens to the copy that did not answer first.
    pub cancellation: Cancellation,
    /// Requests whose arrivals the window spans, in [`TRACE_REQUESTS`].
    pub requests: u64,
    /// Requests run (from empty) before the window opens, in [`TRACE_WARMUP`].
    pub warmup: u64,
    /// The seed.
    pub seed: u64,
}

impl Default for LoadedTraceParams {
    /// The Lab's 10 replicas at 70% load without backups, 300 requests after 2,000, seed 1.
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl LoadedTraceParams {
    /// The defaults, as a constant (the trace's options declare them).
    pub const DEFAULT: LoadedTraceParams = LoadedTraceParams {
        replicas: 10,
        load: 0.7,
        policy: LoadedPolicy::None,
        cancellation: Cancellation::Backup,
        requests: 300,
        warmup: 2000,
        seed: 1,
    };
}

/// The events of a trace window, in order: event `i` happened at `times[i]` (ms from the
/// run's start); after it replica `r` held `primaries[i · replicas + r]` primaries and
/// `backups[i · replicas + r]` backups, queued or in service (a copy cancelled but still
/// finishing its service counts; one cancelled while it waited does not).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedTrace {
    /// Replicas.
    pub replicas: u32,
    /// Each event's time (ms).
    pub times: Vec<f64>,
    /// 0 an arrival, 1 a hedge timer, 2 a completion.
    pub kind: Vec<u8>,
    /// `replicas` counts an event.
    pub primaries: Vec<u32>,
    /// `replicas` counts an event.
    pub backups: Vec<u32>,
    /// The traced run's result: the same as an untraced run of `warmup + requests` requests.
    pub summary: LoadedResult,
}

impl LoadedTrace {
    /// Events recorded.
    pub fn events(&self) -> usize {
        self.times.len()
    }

    /// The copies (primaries and backups) at each replica after event `i`.
    pub fn lengths_after(&self, i: usize) -> Vec<u32> {
        let n = self.replicas as usize;
        let (p, b) = (
            &self.primaries[i * n..(i + 1) * n],
            &self.backups[i * n..(i + 1) * n],
        );
        p.iter().zip(b).map(|(p, b)| p + b).collect()
    }
}

/// Runs `params`' loaded run (the Lab's service model, `params.cancellation`) and records its window. Each argument
/// is checked by name: `replicas` in [`TRACE_REPLICAS`], `load` in
/// [`MIN_LOAD`]..=[`TRACE_MAX_LOAD`], `requests` in [`TRACE_REQUESTS`], `warmup` in
/// [`TRACE_WARMUP`]. The vectors are bounded: a request makes at most four events (its
/// arrival, a hedge timer, two completions), so a window holds at most 80,000 events of 16
/// replicas.
///
/// ```
/// use tail_lab_core::lab::loaded::trace::{LoadedTraceParams, trace};
///
/// let t = trace(LoadedTraceParams::default()).unwrap();
/// assert_eq!(t.kind.iter().filter(|&&k| k == 0).count(), 300);
/// assert!(t.backups.iter().all(|&b| b == 0));
/// assert_eq!(trace(LoadedTraceParams { replicas: 1, ..Default::default() }).unwrap_err().param(), "replicas");
/// ```
pub fn trace(params: LoadedTraceParams) -> Result<LoadedTrace, ParamError> {
    trace_of(params, |c| c)
}

/// [`trace`] with every service time drawn from `service` (a reader's own latencies, say).
pub fn trace_on(
    params: LoadedTraceParams,
    service: crate::lab::service::ServiceModel,
) -> Result<LoadedTrace, ParamError> {
    trace_of(params, |c| {
        c.with_service(super::LoadedService::Lab(service))
    })
}

/// [`trace`] of the config `adjust` makes of the checked one (another service, in tests).
fn trace_of(
    params: LoadedTraceParams,
    adjust: impl FnOnce(LoadedConfig) -> LoadedConfig,
) -> Result<LoadedTrace, ParamError> {
    let LoadedTraceParams {
        replicas,
        load,
        policy,
        cancellation,
        requests,
        warmup,
        seed,
    } = params;
    TRACE_REPLICAS.check("replicas", u64::from(replicas))?;
    crate::error::check_range("load", load, MIN_LOAD, TRACE_MAX_LOAD, TRACE_LOAD_EXPECTED)?;
    TRACE_REQUESTS.check("requests", requests)?;
    TRACE_WARMUP.check("warmup", warmup)?;
    let total = warmup + requests;
    // Built as `LoadedConfig::new` builds it, with fewer requests than a run may have.
    let base = LoadedConfig::new(LoadedParams {
        replicas,
        load,
        policy,
        requests: 1000,
        seed,
    })?;
    let config = adjust(
        LoadedConfig {
            requests: total,
            ..base
        }
        .with_cancellation(cancellation),
    );
    let n = replicas as usize;
    let (mut primaries, mut backups) = (vec![0u32; n], vec![0u32; n]);
    let (mut times, mut kinds) = (Vec::new(), Vec::new());
    let (mut all_primaries, mut all_backups) = (Vec::new(), Vec::new());
    let (mut open, mut closed) = (false, false);
    let summary = config.run_observed(|sim, now, event| {
        let kind = match event {
            Event::Arrival(k) => {
                open |= k >= warmup;
                0
            }
            Event::HedgeTimer(_) => 1,
            Event::Completion { .. } => 2,
            Event::Cancel(_) => unreachable!("a loaded trace sends no delayed cancellation"),
        };
        if !open || closed {
            return;
        }
        sim.live_copies(&mut primaries, &mut backups);
        times.push(now);
        kinds.push(kind);
        all_primaries.extend_from_slice(&primaries);
        all_backups.extend_from_slice(&backups);
        closed = matches!(event, Event::Arrival(k) if k + 1 == total);
    });
    Ok(LoadedTrace {
        replicas,
        times,
        kind: kinds,
        primaries: all_primaries,
        backups: all_backups,
        summary,
    })
}

pub(super) const TRACE_LOAD_EXPECTED: &str = "a utilisation in 0.001..=0.99";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::loaded::exponential;
    use crate::lab::loaded::theory::pollaczek_khinchine_mean_ms;

    /// The time-averaged copies per replica over the window.
    fn mean_in_system(t: &LoadedTrace) -> f64 {
        let mut area = 0.0;
        for i in 0..t.events() - 1 {
            let held: u32 = t.lengths_after(i).iter().sum();
            area += (t.times[i + 1] - t.times[i]) * f64::from(held);
        }
        area / ((t.times[t.events() - 1] - t.times[0]) * f64::from(t.replicas))
    }

    /// Without backups each replica is M/G/1, so by Little's law it holds `L = λ W` copies on
    /// average, `W` Pollaczek–Khinchine's mean (`loaded::theory`) and `λ = ρ / E[S]`. With
    /// exponential service of mean 10 ms at ρ = 0.5 that is 1. The tolerance comes from the
    /// window's length: an M/M/1 queue length's time average over `T` has variance
    /// `2ρ(1 + ρ) E[S] / ((1 − ρ)⁴ T)` (asymptotically), the replicas are independent, so over
    /// `n` of them the standard deviation is `√(2ρ(1 + ρ) E[S] / ((1 − ρ)⁴ n T))`; the test
    /// allows five.
    #[test]
    fn without_backups_each_replica_holds_little_s_l() {
        let (rho, mean) = (0.5, 10.0);
        let w = pollaczek_khinchine_mean_ms(mean, 2.0 * mean * mean, rho).unwrap();
        let want = rho / mean * w;
        for seed in [1, 2, 3] {
            let params = LoadedTraceParams {
                replicas: 10,
                load: rho,
                policy: LoadedPolicy::None,
                cancellation: Cancellation::Backup,
                requests: 20_000,
                warmup: 2_000,
                seed,
            };
            let t = trace_of(params, |c| c.with_service(exponential(mean).unwrap())).unwrap();
            let span = t.times[t.events() - 1] - t.times[0];
            let var = 2.0 * rho * (1.0 + rho) * mean / (libm::pow(1.0 - rho, 4.0) * 10.0 * span);
            let got = mean_in_system(&t);
            assert!(
                (got - want).abs() < 5.0 * var.sqrt(),
                "seed {seed}: {got} vs {want} ± {}",
                5.0 * var.sqrt()
            );
        }
    }

    #[test]
    fn the_trace_is_the_runs_own_events() {
        let policies = [
            LoadedPolicy::None,
            LoadedPolicy::Duplicate,
            LoadedPolicy::after_delay(20.0).unwrap(),
            LoadedPolicy::Hedge(crate::lab::loaded::HedgeDelay::P95(
                crate::lab::loaded::DelayBasis::Loaded,
            )),
        ];
        for (i, policy) in policies.into_iter().enumerate() {
            let params = LoadedTraceParams {
                load: 0.4,
                policy,
                cancellation: Cancellation::Backup,
                requests: 1_500,
                warmup: 500,
                seed: i as u64 + 1,
                ..Default::default()
            };
            let t = trace(params).unwrap();
            // The hook changes nothing: the same run, untraced, gives the same bits.
            let untraced = LoadedConfig::new(LoadedParams {
                replicas: 10,
                load: 0.4,
                policy,
                requests: 2_000,
                seed: i as u64 + 1,
            })
            .unwrap()
            .run();
            assert_eq!(t.summary, untraced, "{}", policy.name());
            assert_eq!(t.kind.iter().filter(|&&k| k == 0).count(), 1_500);
            assert!(t.times.windows(2).all(|w| w[0] <= w[1]));
            let backups: u32 = t.backups.iter().sum();
            assert_eq!(
                backups == 0,
                policy == LoadedPolicy::None,
                "{}",
                policy.name()
            );
            // An arrival adds one primary.
            for e in 1..t.events() {
                if t.kind[e] == 0 {
                    let n = 10;
                    let before: u32 = t.primaries[(e - 1) * n..e * n].iter().sum();
                    let after: u32 = t.primaries[e * n..(e + 1) * n].iter().sum();
                    assert_eq!(after, before + 1);
                }
            }
        }
    }

    /// Issue 32 item 7: the trace reads each replica's live copies from counts the engine
    /// keeps as copies come and go (it rescanned every request in flight after every event:
    /// 3.7 s for 20,000 requests at load 0.99 with backups never cancelled). The kept counts
    /// equal the scan after every event, for every policy and cancellation rule, including a
    /// backlog that grows without bound.
    #[test]
    fn kept_live_counts_equal_a_scan_of_every_request() {
        let hedge = LoadedPolicy::from_name("hedge", super::super::DelayBasis::Loaded).unwrap();
        let cases = [
            (LoadedPolicy::None, Cancellation::Backup, 0.9),
            (hedge, Cancellation::Backup, 0.7),
            (hedge, Cancellation::Either, 0.8),
            (hedge, Cancellation::EitherAny, 0.8),
            (LoadedPolicy::Duplicate, Cancellation::Queued, 0.6),
            (LoadedPolicy::Duplicate, Cancellation::Never, 0.99),
        ];
        for (policy, cancellation, load) in cases {
            let base = LoadedConfig::new(LoadedParams {
                replicas: 4,
                load,
                policy,
                requests: 1000,
                seed: 7,
            })
            .unwrap();
            let config = LoadedConfig {
                requests: 3000,
                ..base
            }
            .with_cancellation(cancellation);
            let (mut p, mut b, mut ps, mut bs) = (vec![0; 4], vec![0; 4], vec![0; 4], vec![0; 4]);
            let mut events = 0;
            config.run_observed(|sim, _, _| {
                sim.live_copies(&mut p, &mut b);
                sim.live_copies_scanned(&mut ps, &mut bs);
                assert_eq!((&p, &b), (&ps, &bs), "{policy:?} {cancellation:?}");
                events += 1;
            });
            assert!(events >= 6000, "{events} events");
        }
    }

    #[test]
    fn bad_arguments_are_refused_by_name() {
        let ok = LoadedTraceParams::default();
        let bad = [
            (LoadedTraceParams { replicas: 1, ..ok }, "replicas"),
            (LoadedTraceParams { replicas: 17, ..ok }, "replicas"),
            (
                LoadedTraceParams {
                    load: f64::NAN,
                    ..ok
                },
                "load",
            ),
            (LoadedTraceParams { load: 0.995, ..ok }, "load"),
            (LoadedTraceParams { load: 0.0, ..ok }, "load"),
            (LoadedTraceParams { requests: 0, ..ok }, "requests"),
            (
                LoadedTraceParams {
                    requests: 20_001,
                    ..ok
                },
                "requests",
            ),
            (
                LoadedTraceParams {
                    warmup: 20_001,
                    ..ok
                },
                "warmup",
            ),
        ];
        for (params, name) in bad {
            assert_eq!(trace(params).unwrap_err().param(), name, "{params:?}");
        }
        let t = trace(LoadedTraceParams {
            requests: 1,
            warmup: 0,
            ..ok
        })
        .unwrap();
        assert_eq!((t.events(), t.primaries.iter().sum::<u32>()), (1, 1));
    }
}
