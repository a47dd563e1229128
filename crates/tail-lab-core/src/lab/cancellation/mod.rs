//! Cancellation delay: hedging on loaded replicas when a cancellation takes time to land
//! (issue 22, item 4; seed 003 §7).
//!
//! **The model.** The loaded-replica model ([`crate::lab::loaded`]) with one more mechanism:
//! the cancellation a request sends to its losing copy when it is answered takes effect
//! `cancel_delay_ms` later (0..=∞), not at once. Until then the losing copy keeps its queue
//! place, or keeps its server working, and that work is counted in the extra work and the
//! capacity cost. The delay is the same for every cancel, so cancels come due in the order
//! they were sent: the engine keeps them in a FIFO beside its hedge timers. When a cancel
//! lands, the cancellation rule ([`Cancellation`], default [`Cancellation::EitherAny`]: the
//! losing copy, primary or backup, is removed from its queue or its server freed) is applied
//! to the loser as it is *then*: it may have started since, or finished (then the cancel does
//! nothing).
//!
//! **What it shows.** At one load, the p99 and the extra work of the hedge (at the p95 of
//! no-backup latency at the same load) and of duplicating every request, beside no backups,
//! as the delay grows; and the load at which duplicating stops winning (its p99 no longer
//! below no-backup's), found by bisection, at each delay. Seed 003 §8: a shorter cancellation
//! latency may do more than more duplication.
//!
//! **Checks.** A delay of 0, through the delayed path (an event at `now + 0`), is the
//! immediate rule bit for bit; a delay of ∞ is [`Cancellation::Never`] bit for bit, with its
//! `(1 + h)ρ` stability boundary ([`theory::never_cancel_boundary`]: ρ = 0.5 for duplicates).
//!
//! Random streams: the simulation draws from [`STREAM`] (id 20), the no-backup run that sets
//! the hedge delay from [`DELAY_STREAM`] (id 21), addressed per request as in the loaded model,
//! so every policy, delay and load sees the same arrivals and work.

mod call;
mod model;
pub mod theory;

pub use call::{CALL, SWEEP_OPTIONS, sweep_params, sweep_work};
pub use model::{MODEL, VERDICT_NAMES};

use crate::error::{CountRange, Ends, NumberRange, ParamError};
use crate::lab::loaded::{
    Cancellation, DelayBasis, LoadedConfig, LoadedParams, LoadedPolicy, LoadedResult,
    LoadedService, REPLICAS, REQUESTS,
};
use crate::lab::service::ServiceModel;
use crate::sampling::address::Stream;
use crate::sampling::batch::Interval;

/// The random stream of the simulation (id 20).
pub const STREAM: Stream = Stream::new(20);
/// The random stream of the no-backup run whose p95 the hedge waits for (id 21).
pub const DELAY_STREAM: Stream = Stream::new(21);

/// The longest finite cancellation delay accepted (ms); ∞ is accepted too.
pub const MAX_CANCEL_DELAY_MS: f64 = 1e9;
/// The cancellation delays accepted (ms): 0..=[`MAX_CANCEL_DELAY_MS`], or ∞.
pub const CANCEL_DELAY_MS: NumberRange = NumberRange::new(
    0.0,
    MAX_CANCEL_DELAY_MS,
    Ends::ClosedOrInfinity,
    "a delay in ms in 0..=1e9, or ∞ (a cancel that never lands)",
);

/// The cancellation delays of the standard sweep (ms), ∞ last.
pub const SWEEP_DELAYS_MS: [f64; 10] = [
    0.0,
    2.0,
    5.0,
    10.0,
    20.0,
    50.0,
    100.0,
    200.0,
    500.0,
    f64::INFINITY,
];

/// The load range the crossing is looked for in: duplicating is checked to win at the low end
/// and to lose at the high end before the bisection starts.
pub const BISECT_RANGE: (f64, f64) = (0.05, 0.95);
/// Halvings of [`BISECT_RANGE`]: the crossing is known to within 0.9 / 2^5 ≈ 0.028.
pub const BISECT_STEPS: u32 = 5;

/// Requests one run may simulate (each of a point's runs, the bisection's included).
pub const REQUESTS_PER_RUN: CountRange = crate::count_range!(1000, 1000000);

/// The load of the standard sweep.
pub const SWEEP_LOAD: f64 = 0.5;

/// A cancellation delay (ms): 0..=[`MAX_CANCEL_DELAY_MS`], or ∞.
pub fn check_delay(ms: f64) -> Result<f64, ParamError> {
    if ms == f64::INFINITY {
        Ok(ms)
    } else {
        CANCEL_DELAY_MS.check("cancelDelayMs", ms)
    }
}

/// The parameters of one point: one load and one cancellation delay.
#[derive(Debug, Clone, PartialEq)]
pub struct CancellationParams {
    /// FIFO replicas ([`REPLICAS`]).
    pub replicas: u32,
    /// Offered utilisation before backups, 0.001..=2.
    pub load: f64,
    /// What a landing cancel does to the loser (default [`Cancellation::EitherAny`]).
    pub cancellation: Cancellation,
    /// The delay (ms) between a request's answer and its cancel landing: 0..=1e9, or ∞.
    pub cancel_delay_ms: f64,
    /// Requests per run ([`REQUESTS_PER_RUN`]).
    pub requests: u64,
    /// The seed.
    pub seed: u64,
    /// The service model.
    pub service: ServiceModel,
    /// Whether to look for the crossing load by bisection (`2 × (BISECT_STEPS + 2)` more runs).
    pub bisect: bool,
}

impl CancellationParams {
    /// The defaults at `cancel_delay_ms`: 10 replicas, load 0.5, [`Cancellation::EitherAny`],
    /// 20,000 requests, seed 1, the Lab's service, with the bisection.
    pub fn at_delay(cancel_delay_ms: f64) -> Self {
        CancellationParams {
            replicas: crate::lab::loaded::DEFAULT_REPLICAS,
            load: SWEEP_LOAD,
            cancellation: Cancellation::EitherAny,
            cancel_delay_ms,
            requests: 20_000,
            seed: 1,
            service: ServiceModel::default(),
            bisect: true,
        }
    }

    /// The loaded engine's run of `policy` at `load` under these parameters: this model's
    /// streams, its rule and its delay (checked here too, so that [`crossing`] called on its
    /// own refuses a bad delay by name, as [`simulate`] does).
    pub fn config(&self, policy: LoadedPolicy, load: f64) -> Result<LoadedConfig, ParamError> {
        let mut config = LoadedConfig::new(LoadedParams {
            replicas: self.replicas,
            load,
            policy,
            requests: self.requests,
            seed: self.seed,
        })?
        .with_service(LoadedService::Lab(self.service.clone()))
        .with_cancellation(self.cancellation)
        .with_streams(STREAM, DELAY_STREAM);
        config.cancel_delay_ms = Some(check_delay(self.cancel_delay_ms)?);
        Ok(config)
    }

    /// The runs a point makes: three and the hedge's calibration pass (a no-backup run for its
    /// loaded p95), and `2 × (BISECT_STEPS + 2)` more with the bisection.
    pub fn runs(&self) -> u64 {
        4 + if self.bisect {
            2 * u64::from(BISECT_STEPS) + 4
        } else {
            0
        }
    }

    /// The point's work in the bindings' units (about 10 ns of wasm each): 60 a request for
    /// each run, as the loaded model counts them.
    pub fn work_units(&self) -> f64 {
        self.runs() as f64 * self.requests as f64 * 60.0
    }
}

/// What the bisection found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Duplicating wins at the low end of [`BISECT_RANGE`] and loses at the high end: the
    /// crossing lies between, bracketed.
    Crossed,
    /// Duplicating still wins at the high end.
    WinsThroughout,
    /// Duplicating does not win even at the low end.
    NeverWins,
    /// No bisection was asked for.
    NotRun,
}

impl Verdict {
    /// The stable machine name.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Crossed => "crossed",
            Verdict::WinsThroughout => "wins-throughout",
            Verdict::NeverWins => "never-wins",
            Verdict::NotRun => "not-run",
        }
    }
}

/// One end of the crossing's bracket: duplicating and no backups at one load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BracketEnd {
    /// The load.
    pub load: f64,
    /// Duplicating's p99 (ms); `None` when unstable.
    pub duplicate_p99: Option<f64>,
    /// Its 95% interval.
    pub duplicate_p99_interval: Option<Interval>,
    /// No backups' p99 (ms).
    pub none_p99: Option<f64>,
    /// Its 95% interval.
    pub none_p99_interval: Option<Interval>,
}

/// Where duplicating stops winning, at one cancellation delay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossing {
    /// What the bisection found.
    pub verdict: Verdict,
    /// The last load at which duplicating won (its p99 below no-backup's).
    pub below: Option<BracketEnd>,
    /// The first load at which it did not.
    pub above: Option<BracketEnd>,
}

impl Crossing {
    /// The crossing load: the middle of the bracket; `None` unless [`Verdict::Crossed`].
    pub fn load(&self) -> Option<f64> {
        match (self.verdict, self.below, self.above) {
            (Verdict::Crossed, Some(b), Some(a)) => Some(0.5 * (b.load + a.load)),
            _ => None,
        }
    }
}

/// One point: a load and a cancellation delay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CancellationPoint {
    /// The cancellation delay (ms; ∞: never lands).
    pub cancel_delay_ms: f64,
    /// Requests per run.
    pub requests: u64,
    /// No backups (the delay does not matter to it).
    pub none: LoadedResult,
    /// The hedge at the p95 of no-backup latency at the same load.
    pub hedge: LoadedResult,
    /// Every request duplicated.
    pub duplicate: LoadedResult,
    /// Where duplicating stops winning.
    pub crossing: Crossing,
}

/// Duplicating wins at this bracket end: both runs stable and its p99 below no-backup's.
fn wins(end: &BracketEnd) -> bool {
    matches!((end.duplicate_p99, end.none_p99), (Some(d), Some(n)) if d < n)
}

fn bracket_end(params: &CancellationParams, load: f64) -> Result<BracketEnd, ParamError> {
    let dup = params.config(LoadedPolicy::Duplicate, load)?.run();
    let none = params.config(LoadedPolicy::None, load)?.run();
    Ok(BracketEnd {
        load,
        duplicate_p99: dup.latency.map(|p| p.p99),
        duplicate_p99_interval: dup.intervals.and_then(|i| i.p99),
        none_p99: none.latency.map(|p| p.p99),
        none_p99_interval: none.intervals.and_then(|i| i.p99),
    })
}

/// Bisects [`BISECT_RANGE`] for the load where duplicating stops winning.
pub fn crossing(params: &CancellationParams) -> Result<Crossing, ParamError> {
    let (mut lo, mut hi) = (
        bracket_end(params, BISECT_RANGE.0)?,
        bracket_end(params, BISECT_RANGE.1)?,
    );
    if !wins(&lo) {
        return Ok(Crossing {
            verdict: Verdict::NeverWins,
            below: None,
            above: Some(lo),
        });
    }
    if wins(&hi) {
        return Ok(Crossing {
            verdict: Verdict::WinsThroughout,
            below: Some(hi),
            above: None,
        });
    }
    for _ in 0..BISECT_STEPS {
        let mid = bracket_end(params, 0.5 * (lo.load + hi.load))?;
        if wins(&mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Crossing {
        verdict: Verdict::Crossed,
        below: Some(lo),
        above: Some(hi),
    })
}

/// Runs one point: no backups, the hedge and duplicating at `params.load`, and the crossing
/// when asked for.
pub fn simulate(params: &CancellationParams) -> Result<CancellationPoint, ParamError> {
    REPLICAS.check("replicas", u64::from(params.replicas))?;
    REQUESTS.check("requests", params.requests)?;
    REQUESTS_PER_RUN.check("requests", params.requests)?;
    check_delay(params.cancel_delay_ms)?;
    let run = |policy| params.config(policy, params.load).map(|c| c.run());
    Ok(CancellationPoint {
        cancel_delay_ms: params.cancel_delay_ms,
        requests: params.requests,
        none: run(LoadedPolicy::None)?,
        hedge: run(LoadedPolicy::Hedge(crate::lab::loaded::HedgeDelay::P95(
            DelayBasis::Loaded,
        )))?,
        duplicate: run(LoadedPolicy::Duplicate)?,
        crossing: if params.bisect {
            crossing(params)?
        } else {
            Crossing {
                verdict: Verdict::NotRun,
                below: None,
                above: None,
            }
        },
    })
}

/// Point `index` of the standard sweep ([`SWEEP_DELAYS_MS`] at load [`SWEEP_LOAD`], the
/// defaults otherwise) with `requests` per run.
pub fn sweep_point(
    index: usize,
    requests: u64,
    seed: u64,
) -> Result<CancellationPoint, ParamError> {
    crate::count_range!(0, 9, " (a sweep point)").check("index", index as u64)?;
    simulate(&CancellationParams {
        requests,
        seed,
        ..CancellationParams::at_delay(SWEEP_DELAYS_MS[index])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters_are_refused_by_name() {
        for bad in [-1.0, f64::NAN, 2e9, f64::NEG_INFINITY] {
            let p = CancellationParams {
                cancel_delay_ms: bad,
                bisect: false,
                ..CancellationParams::at_delay(0.0)
            };
            assert_eq!(simulate(&p).unwrap_err().param(), "cancelDelayMs", "{bad}");
            // The crossing and a single run's configuration, called on their own, too.
            assert_eq!(crossing(&p).unwrap_err().param(), "cancelDelayMs", "{bad}");
            let config = p.config(LoadedPolicy::Duplicate, 0.5);
            assert_eq!(config.unwrap_err().param(), "cancelDelayMs", "{bad}");
        }
        let p = CancellationParams {
            requests: 10,
            ..CancellationParams::at_delay(0.0)
        };
        assert_eq!(simulate(&p).unwrap_err().param(), "requests");
        let p = CancellationParams {
            load: 0.0,
            ..CancellationParams::at_delay(0.0)
        };
        assert_eq!(simulate(&p).unwrap_err().param(), "load");
        assert_eq!(sweep_point(10, 1000, 1).unwrap_err().param(), "index");
    }

    #[test]
    fn a_late_cancel_costs_work_and_the_points_runs_share_their_arrivals() {
        let at = |d| {
            simulate(&CancellationParams {
                requests: 20_000,
                bisect: false,
                ..CancellationParams::at_delay(d)
            })
            .unwrap()
        };
        let (now, late) = (at(0.0), at(200.0));
        // The same requests arrive: no backups is the same run at every delay.
        assert_eq!(format!("{:?}", now.none), format!("{:?}", late.none));
        // A loser that works 200 ms longer costs more.
        assert!(late.duplicate.extra_work > now.duplicate.extra_work);
        assert!(late.hedge.extra_work >= now.hedge.extra_work);
    }
}
