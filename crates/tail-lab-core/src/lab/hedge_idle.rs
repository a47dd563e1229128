//! Hedged requests on idle replicas (seed 000/001 §2, Dean & Barroso).
//!
//! Send to one replica; if nothing has come back by the delay `d`, send the same request to a
//! second replica and take whichever answers first, cancelling the other:
//! `completion = min(first, d + second)`. Replicas are idle, so a duplicate slows nobody down;
//! [`crate::theory::hedged_survival`] gives the exact answer, `S(t) · S(t − d)`.
//!
//! `d` is the service time's `delay_quantile` (default 0.95), measured on the calibration stream
//! — a separate sequence of draws from the requests the experiment reports on.
//!
//! Costs, as reported:
//! - **extra requests**: the fraction of requests that fired a backup;
//! - **extra work**: the service time the backups consumed until they answered or were
//!   cancelled, `Σ min(second, first − d)` over requests that fired, divided by the primaries'
//!   full service time `Σ first`. A primary stuck in a slow mode is not work that cancelling it
//!   gives back (it is already committed), so the denominator keeps it whole.

use crate::api::{
    Call, Kind, OptionSpec, OptionValues, Prepared, SEED_OPTION, SERVICE_OPTION, Work,
};
use crate::describe::{Describe, Field, Unit, Value};
use crate::error::{Ends, LEVEL, NumberRange, ParamError, check_level, check_requests};
use crate::lab::service::{ServiceModel, ServiceSampler};
use crate::model::{Model, RunOutput, each_described};
use crate::report::seed_figures as seed;
use crate::sampling::address::{RequestKey, Stream};
use crate::sampling::histogram::Histogram;
use crate::sampling::histogram::shared_bins;
use crate::theory;

/// The random stream of the idle-replica hedge's service times (id 3).
pub const STREAM: Stream = Stream::new(3);
/// The random stream that calibrates the idle-replica hedge delay (id 4).
pub const CALIBRATION_STREAM: Stream = Stream::new(4);

/// Calibration draws behind the hedge delay.
pub const DELAY_CALIBRATION_DRAWS: usize = 1 << 18;

/// A fixed hedge delay (ms).
pub const DELAY_MS: NumberRange =
    NumberRange::new(0.0, 1e9, Ends::Closed, "a delay in ms in 0..=1e9");

/// The hedge delay's quantile level when neither `delayQ` nor `delayMs` is given: the p95.
pub const DEFAULT_DELAY_Q: f64 = 0.95;

/// Requests one call of a binding may simulate (the work bound applies too).
pub const REQUESTS_PER_CALL: crate::error::CountRange = crate::count_range!(1, 10000000);

// A request's one sub-stream ("leaf" 0), by attempt: the primary's service time, the backup's.
const SERVICE: u32 = 0;
const PRIMARY: u32 = 0;
const BACKUP: u32 = 1;

/// One request of the experiment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IdleHedgeOutcome {
    /// The primary's service time (ms): the latency without a hedge.
    pub first_ms: f64,
    /// When the request completed with the hedge (ms).
    pub completion_ms: f64,
    /// True when the backup was sent.
    pub fired: bool,
    /// Service time the backup consumed before it answered or was cancelled (ms).
    pub backup_work_ms: f64,
}

/// Latency percentiles (ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Percentiles {
    /// Median (ms).
    pub p50: f64,
    /// 95th percentile (ms).
    pub p95: f64,
    /// 99th percentile (ms).
    pub p99: f64,
    /// 99.9th percentile (ms).
    pub p999: f64,
}

impl Percentiles {
    pub(crate) fn of(h: &Histogram) -> Self {
        let bins = shared_bins();
        Percentiles {
            p50: h.percentile(bins, 0.5),
            p95: h.percentile(bins, 0.95),
            p99: h.percentile(bins, 0.99),
            p999: h.percentile(bins, 0.999),
        }
    }
}

/// The experiment's result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IdleHedgeResult {
    /// Requests simulated.
    pub requests: u64,
    /// The quantile level (0..1) the delay was set at.
    pub delay_quantile: f64,
    /// The hedge delay (ms).
    pub delay_ms: f64,
    /// Without the hedge.
    pub before: Percentiles,
    /// With the hedge.
    pub after: Percentiles,
    /// Closed-form p99.9 (ms) without the hedge.
    pub theory_p999_before: f64,
    /// Closed-form p99.9 (ms) with the hedge, from `S(t) · S(t − d)` at the same delay.
    pub theory_p999_after: f64,
    /// Fraction (0..1) of requests that fired a backup.
    pub extra_requests: f64,
    /// Its expectation at this delay: `S(d)`.
    pub theory_extra_requests: f64,
    /// Backup service time over primary service time (fraction; definition in the module doc).
    pub extra_work: f64,
    /// Its expectation at this delay: `∫ S(s)·S(s + d) ds / mean`
    /// ([`theory::idle_hedge_extra_work`]).
    pub theory_extra_work: f64,
}

/// A prepared idle-replica hedging experiment.
///
/// ```
/// use tail_lab_core::lab::hedge_idle::IdleHedge;
/// use tail_lab_core::lab::service::ServiceModel;
///
/// // Send a backup once a request has outlasted the service time's p95, under seed 1.
/// let hedge = IdleHedge::new(ServiceModel::default(), 0.95, 1).unwrap();
/// let r = hedge.run(100_000).unwrap();
/// // About one request in twenty sends a backup, as the closed form says, and the tail shrinks.
/// assert!((r.extra_requests - r.theory_extra_requests).abs() < 0.01);
/// assert!(r.after.p999 < r.before.p999);
/// // A level outside (0, 1) is refused by name.
/// let bad = IdleHedge::new(ServiceModel::default(), 1.0, 1);
/// assert_eq!(bad.unwrap_err().param(), "delayQ");
/// ```
#[derive(Debug, Clone)]
pub struct IdleHedge {
    sampler: ServiceSampler,
    seed: u64,
    delay_quantile: f64,
    delay_ms: f64,
}

impl IdleHedge {
    /// Prepares the experiment: `delay_quantile` in (0, 1), calibrated under `seed`.
    pub fn new(model: ServiceModel, delay_quantile: f64, seed: u64) -> Result<Self, ParamError> {
        check_level("delayQ", delay_quantile)?;
        let sampler = ServiceSampler::new(model);
        let delay_ms = sampler.calibrated_quantile(
            seed,
            CALIBRATION_STREAM,
            delay_quantile,
            DELAY_CALIBRATION_DRAWS,
        );
        Ok(IdleHedge {
            sampler,
            seed,
            delay_quantile,
            delay_ms,
        })
    }

    /// The experiment with a fixed delay `delay_ms` (ms, 0..=1e9) instead of a calibrated one;
    /// its [`IdleHedge::delay_quantile`] is then the exact level `1 − S(d)` the delay sits at.
    pub fn with_delay_ms(
        model: ServiceModel,
        delay_ms: f64,
        seed: u64,
    ) -> Result<Self, ParamError> {
        DELAY_MS.check("delayMs", delay_ms)?;
        Ok(IdleHedge {
            delay_quantile: 1.0 - model.survival(delay_ms),
            sampler: ServiceSampler::new(model),
            seed,
            delay_ms,
        })
    }

    /// The calibrated delay (ms).
    pub fn delay_ms(&self) -> f64 {
        self.delay_ms
    }

    /// The quantile level the delay was set at.
    pub fn delay_quantile(&self) -> f64 {
        self.delay_quantile
    }

    /// The service model.
    pub fn model(&self) -> &ServiceModel {
        self.sampler.model()
    }

    /// Request `k`: primary on replica 0 (attempt 0), backup on replica 1 (attempt 1).
    #[inline]
    pub fn request_at(&self, k: u64) -> IdleHedgeOutcome {
        let key = RequestKey::new(self.seed, STREAM, k);
        let first = self.sampler.sample(key.sample(SERVICE, PRIMARY)).ms;
        if first <= self.delay_ms {
            return IdleHedgeOutcome {
                first_ms: first,
                completion_ms: first,
                fired: false,
                backup_work_ms: 0.0,
            };
        }
        let second = self.sampler.sample(key.sample(SERVICE, BACKUP)).ms;
        IdleHedgeOutcome {
            first_ms: first,
            completion_ms: first.min(self.delay_ms + second),
            fired: true,
            backup_work_ms: second.min(first - self.delay_ms),
        }
    }

    /// Runs requests `0..requests` (1..=10^9) and summarises them beside the closed forms.
    pub fn run(&self, requests: u64) -> Result<IdleHedgeResult, ParamError> {
        self.run_with_curves(requests).map(|(result, _)| result)
    }

    /// [`IdleHedge::run`], plus the survival curves the result summarises.
    pub fn run_with_curves(
        &self,
        requests: u64,
    ) -> Result<(IdleHedgeResult, SurvivalCurves), ParamError> {
        check_requests(requests)?;
        let bins = shared_bins();
        let (mut before, mut after) = (Histogram::new(), Histogram::new());
        let (mut fired, mut backup, mut primary) = (0u64, 0.0, 0.0);
        for k in 0..requests {
            let o = self.request_at(k);
            before.record(bins, o.first_ms);
            after.record(bins, o.completion_ms);
            fired += u64::from(o.fired);
            backup += o.backup_work_ms;
            primary += o.first_ms;
        }
        let model = self.model();
        let survival = |t| model.survival(t);
        let result = IdleHedgeResult {
            requests,
            delay_quantile: self.delay_quantile,
            delay_ms: self.delay_ms,
            before: Percentiles::of(&before),
            after: Percentiles::of(&after),
            theory_p999_before: model.quantile(0.999),
            theory_p999_after: theory::hedged_quantile(survival, self.delay_ms, 0.999),
            extra_requests: fired as f64 / requests as f64,
            theory_extra_requests: model.survival(self.delay_ms),
            extra_work: backup / primary,
            theory_extra_work: theory::idle_hedge_extra_work(
                survival,
                self.delay_ms,
                model.mean_ms(),
            ),
        };
        let t_ms: Vec<f64> = bins
            .edges()
            .iter()
            .step_by(CURVE_EDGE_STEP)
            .copied()
            .collect();
        let curves = SurvivalCurves {
            before: t_ms.iter().map(|&t| before.survival(bins, t)).collect(),
            after: t_ms.iter().map(|&t| after.survival(bins, t)).collect(),
            theory_before: t_ms.iter().map(|&t| survival(t)).collect(),
            theory_after: t_ms
                .iter()
                .map(|&t| theory::hedged_survival(survival, t, self.delay_ms))
                .collect(),
            t_ms,
        };
        Ok((result, curves))
    }
}

/// Every how many shared bin edges a survival curve has a point: 7 points per octave.
pub const CURVE_EDGE_STEP: usize = 5;

/// Latency survival `P(T > t)` without and with the hedge, simulated (exact at the shared bin
/// edges, which are the curve's abscissae) and in closed form (`S(t)` and `S(t)·S(t − d)`).
#[derive(Debug, Clone, PartialEq)]
pub struct SurvivalCurves {
    /// Abscissae (ms): every [`CURVE_EDGE_STEP`]-th shared bin edge.
    pub t_ms: Vec<f64>,
    /// Simulated survival without the hedge (fraction 0..=1).
    pub before: Vec<f64>,
    /// Simulated survival with the hedge (fraction 0..=1).
    pub after: Vec<f64>,
    /// `S(t)`.
    pub theory_before: Vec<f64>,
    /// `S(t)·S(t − d)` past the delay, `S(t)` before it.
    pub theory_after: Vec<f64>,
}

impl Describe for (IdleHedgeResult, SurvivalCurves) {
    const TYPE_NAME: &'static str = "HedgeResult";
    const DOC: &'static str = "Hedging on idle replicas: latency percentiles without and with \
        the hedge beside their closed forms, what the hedge cost, and the survival curves.";

    fn describe(&self) -> Vec<Field> {
        let (r, c) = self;
        let series =
            |key, doc, v: &[f64]| Field::new(key, Unit::Fraction, doc, Value::Series(v.to_vec()));
        vec![
            Field::count("requests", "Requests simulated.", r.requests),
            Field::fraction(
                "delay_q",
                "The quantile level the delay sits at (the exact level 1 − S(d) when the delay \
                 was given in ms).",
                r.delay_quantile,
            ),
            Field::ms("delay_ms", "The hedge delay.", r.delay_ms),
            Field::ms("p50_before", "Median without the hedge.", r.before.p50),
            Field::ms("p99_before", "p99 without the hedge.", r.before.p99),
            Field::ms("p999_before", "p99.9 without the hedge.", r.before.p999)
                .quoting(seed::IDLE_P999_BEFORE),
            Field::ms("p50_after", "Median with the hedge.", r.after.p50),
            Field::ms("p99_after", "p99 with the hedge.", r.after.p99),
            Field::ms("p999_after", "p99.9 with the hedge.", r.after.p999)
                .quoting(seed::IDLE_P999_AFTER),
            Field::ms(
                "theory_p999_before",
                "Closed-form p99.9 without the hedge.",
                r.theory_p999_before,
            ),
            Field::ms(
                "theory_p999_after",
                "Closed-form p99.9 with the hedge, from S(t)·S(t − d).",
                r.theory_p999_after,
            ),
            Field::fraction(
                "extra_requests",
                "Share of requests that sent a backup.",
                r.extra_requests,
            )
            .quoting(seed::IDLE_EXTRA_REQUESTS),
            Field::fraction(
                "theory_extra_requests",
                "Closed form: S(d).",
                r.theory_extra_requests,
            ),
            Field::fraction(
                "extra_work",
                "Backups' service time until answered or cancelled, over the primaries' full \
                 service time.",
                r.extra_work,
            )
            .quoting(seed::IDLE_EXTRA_WORK),
            Field::fraction(
                "theory_extra_work",
                "Closed form: ∫ S(s)·S(s + d) ds over the mean service time.",
                r.theory_extra_work,
            ),
            Field::new(
                "curves",
                Unit::None,
                "Latency survival P(T > t) at t_ms, simulated and in closed form.",
                Value::Record {
                    name: "SurvivalCurves",
                    fields: vec![
                        Field::new(
                            "t_ms",
                            Unit::Ms,
                            "Abscissae: every few shared bin edges.",
                            Value::Series(c.t_ms.clone()),
                        ),
                        series("before", "Simulated survival without the hedge.", &c.before),
                        series("after", "Simulated survival with the hedge.", &c.after),
                        series("theory_before", "S(t).", &c.theory_before),
                        series(
                            "theory_after",
                            "S(t)·S(t − d) past the delay, S(t) before it.",
                            &c.theory_after,
                        ),
                    ],
                },
            ),
        ]
    }
}

fn run(_: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    let hedge = IdleHedge::new(ServiceModel::default(), 0.95, seed)?;
    Ok(Box::new(hedge.run_with_curves(requests)?))
}

/// Hedging on idle replicas in the report and the API (`simulateHedge`).
pub const MODEL: Model = Model {
    key: "hedge_idle",
    title: "Hedge on idle replicas (delay = the calibrated p95)",
    note: "",
    call: Some("simulateHedge"),
    api: Some(&CALL),
    closed_forms: &[],
    result_type: <(IdleHedgeResult, SurvivalCurves) as Describe>::TYPE_NAME,
    result_doc: <(IdleHedgeResult, SurvivalCurves) as Describe>::DOC,
    streams: &[STREAM, CALIBRATION_STREAM],
    sweep: false,
    runs: 1,
    run,
    entries: each_described::<(IdleHedgeResult, SurvivalCurves)>,
    example: || {
        let hedge = IdleHedge::new(ServiceModel::default(), 0.95, 1).expect("valid");
        hedge.run_with_curves(1000).expect("valid").describe()
    },
};

/// `delayQ`: the hedge delay as a quantile level of the service time (calibrated on the
/// call's seed here); 0.95 ([`DEFAULT_DELAY_Q`]) unless `delayMs` is given.
pub const DELAY_Q_OPTION: OptionSpec = OptionSpec {
    name: "delayQ",
    doc: "The hedge delay as a quantile level of the service time, calibrated on the call's \
          seed; 0.95 unless `delayMs` is given.",
    unit: Unit::Fraction,
    kind: Kind::Number {
        range: LEVEL,
        default: None,
    },
};

/// `delayMs`: a fixed hedge delay, instead of `delayQ` (the two are exclusive).
pub const DELAY_MS_OPTION: OptionSpec = OptionSpec {
    name: "delayMs",
    doc: "The hedge delay, instead of `delayQ`.",
    unit: Unit::Ms,
    kind: Kind::Number {
        range: DELAY_MS,
        default: None,
    },
};

/// `simulateHedge`: hedged requests on idle replicas.
pub const CALL: Call = Call {
    name: "simulateHedge",
    doc: "Hedged requests on idle replicas: the backup goes out once the primary has been \
          outstanding for the delay, and the first answer wins.",
    options_type: "HedgeOptions",
    options_doc: "Options of `simulateHedge`.",
    options: &[
        DELAY_Q_OPTION,
        DELAY_MS_OPTION,
        OptionSpec::count(
            "requests",
            "Requests simulated.",
            Unit::Count,
            REQUESTS_PER_CALL,
            200_000,
        ),
        SEED_OPTION,
        SERVICE_OPTION,
    ],
    exclusive: &[["delayQ", "delayMs"]],
    result_type: <(IdleHedgeResult, SurvivalCurves) as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| {
        let (model, seed, requests) = (o.service("service"), o.seed("seed"), o.count("requests"));
        let hedge = match o.number("delayMs") {
            Some(ms) => IdleHedge::with_delay_ms(model, ms, seed)?,
            None => {
                let q = o.number("delayQ").unwrap_or(DEFAULT_DELAY_Q);
                IdleHedge::new(model, q, seed)?
            }
        };
        // A primary and at most one backup drawn per request (the delay's calibration is
        // made above, before the bound is checked: it is a fixed 2^18 draws).
        let work = Work {
            units: 2.0 * requests as f64,
            counted_as: "2 × requests".into(),
        };
        Ok(Prepared::new(work, move || {
            Ok(hedge.run_with_curves(requests)?.describe())
        }))
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_is_the_first_answer() {
        let h = IdleHedge::new(ServiceModel::default(), 0.95, 5).unwrap();
        let d = h.delay_ms();
        for k in 0..5000 {
            let o = h.request_at(k);
            assert!(o.completion_ms <= o.first_ms);
            assert_eq!(o.fired, o.first_ms > d);
            if o.fired {
                assert!(o.completion_ms > d);
                assert!(o.backup_work_ms > 0.0 && o.backup_work_ms <= o.first_ms - d);
            } else {
                assert_eq!(o.backup_work_ms, 0.0);
            }
        }
        assert_eq!(
            IdleHedge::new(ServiceModel::default(), 0.0, 5)
                .unwrap_err()
                .param(),
            "delayQ"
        );
        assert_eq!(h.run(0).unwrap_err().param(), "requests");
    }
}
