//! Coordinated omission as a registered model: its result described field by field, and its
//! part of the report (the classic worked example, and the Lab section's default).

use super::clients::OmissionResult;
use super::measure::Measurement;
use super::{OmissionParams, STALL_STREAM, STREAM, Work, simulate};
use crate::describe::{Describe, Field, Unit, Value};
use crate::error::ParamError;
use crate::model::{Model, RunOutput, each_described};

/// The names `gaps` can take.
pub const GAPS_NAMES: &[&str] = &["fixed", "random"];

/// The eight fields of one way of measuring, keyed `<key>_…`, their docs naming `$what`.
macro_rules! measurement_fields {
    ($m:expr, $key:literal, $what:literal) => {{
        let m: &Measurement = $m;
        vec![
            Field::count(
                concat!($key, "_samples"),
                concat!("Samples recorded, ", $what, "."),
                m.count() as u64,
            ),
            Field::fraction(
                concat!($key, "_frac_le_1ms"),
                concat!("Share of samples at or under 1 ms (exact), ", $what, "."),
                m.frac_le_1ms(),
            ),
            Field::ms(
                concat!($key, "_p50"),
                concat!("Median, ", $what, "."),
                m.quantile(0.5),
            ),
            Field::ms(
                concat!($key, "_p90"),
                concat!("90th percentile, ", $what, "."),
                m.quantile(0.9),
            ),
            Field::ms(
                concat!($key, "_p99"),
                concat!("99th percentile, ", $what, "."),
                m.quantile(0.99),
            ),
            Field::ms(
                concat!($key, "_p999"),
                concat!("99.9th percentile, ", $what, "."),
                m.quantile(0.999),
            ),
            Field::ms(
                concat!($key, "_mean"),
                concat!("Mean, ", $what, "."),
                m.mean_ms(),
            ),
            Field::ms(
                concat!($key, "_max"),
                concat!("Largest sample, ", $what, "."),
                m.max_ms(),
            ),
        ]
    }};
}

fn survival_series(m: &Measurement, t_ms: &[f64]) -> Vec<f64> {
    let bins = crate::sampling::histogram::shared_bins();
    t_ms.iter()
        .map(|&t| m.histogram().survival(bins, t))
        .collect()
}

impl Describe for OmissionResult {
    const TYPE_NAME: &'static str = "OmissionResult";
    const DOC: &'static str = "Coordinated omission: one stalling server measured four ways \
        (closed loop raw, with HdrHistogram's expected-interval fills, from the intended send \
        time, and open loop), the open loop's closed form beside them, and a probe of one of the \
        Lab's loaded replicas, closed loop against open.";

    fn describe(&self) -> Vec<Field> {
        let p = &self.params;
        let maybe =
            |key, unit, doc, v: Option<f64>| Field::new(key, unit, doc, Value::MaybeNumber(v));
        let series = |key, unit, doc, v: Vec<f64>| Field::new(key, unit, doc, Value::Series(v));
        let theory = self.theory.as_ref();
        let mut fields = vec![
            Field::ms(
                "interval_ms",
                "How often the generator means to send.",
                p.interval_ms,
            ),
            Field::ms("stall_ms", "How long each stall lasts.", p.stall_ms),
            Field::ms(
                "every_ms",
                "How often a stall starts, start to start, on average.",
                p.every_ms,
            ),
            Field::new(
                "gaps",
                Unit::None,
                "Fixed or random (exponential) gaps between stalls.",
                Value::Name {
                    value: p.gaps.name(),
                    choices: GAPS_NAMES,
                },
            ),
            Field::ms("duration_ms", "How long the generator runs.", p.duration_ms),
            maybe(
                "work_ms",
                Unit::Ms,
                "Each request's fixed work, or null when it is drawn from the service model.",
                match p.work {
                    Work::Constant(ms) => Some(ms),
                    Work::Model(_) => None,
                },
            ),
            Field::count(
                "sends",
                "Sends due in the run: ⌈duration / interval⌉.",
                self.sends,
            ),
            Field::count(
                "stalls",
                "Stalls that began before the end of the run.",
                self.stalls,
            ),
            Field::fraction(
                "stalled_share",
                "The share of time the server is stalled: stall / every.",
                p.stall_ms / p.every_ms,
            ),
        ];
        fields.extend(measurement_fields!(
            &self.raw,
            "raw",
            "closed loop, from the actual send"
        ));
        fields.extend(measurement_fields!(
            &self.corrected,
            "corrected",
            "the raw samples with HdrHistogram's expected-interval fills"
        ));
        fields.extend(measurement_fields!(
            &self.intended,
            "intended",
            "closed loop, from the intended send time (wrk2)"
        ));
        fields.extend(measurement_fields!(
            &self.open,
            "open",
            "open loop, every send on schedule"
        ));
        fields.extend([
            maybe(
                "theory_open_frac_le_1ms",
                Unit::Fraction,
                "Closed form (random gaps): the open loop's share at or under 1 ms; null with fixed gaps.",
                theory.map(|t| t.frac_le_1ms()),
            ),
            maybe(
                "theory_open_p50",
                Unit::Ms,
                "Closed form (random gaps): the open loop's median; null with fixed gaps.",
                theory.map(|t| t.quantile(0.5)),
            ),
            maybe(
                "theory_open_p99",
                Unit::Ms,
                "Closed form (random gaps): the open loop's p99; null with fixed gaps.",
                theory.map(|t| t.quantile(0.99)),
            ),
            maybe(
                "theory_open_p999",
                Unit::Ms,
                "Closed form (random gaps): the open loop's p99.9; null with fixed gaps.",
                theory.map(|t| t.quantile(0.999)),
            ),
        ]);
        let t = &self.t_ms;
        fields.push(Field::new(
            "curves",
            Unit::None,
            "Survival P(latency > t) of each way of measuring at t_ms, and the open loop's closed form.",
            Value::Record {
                name: "OmissionCurves",
                fields: vec![
                    series("t_ms", Unit::Ms, "Abscissae: every fifth shared bin edge.", t.clone()),
                    series("raw", Unit::Fraction, "Closed loop, raw.", survival_series(&self.raw, t)),
                    series(
                        "corrected",
                        Unit::Fraction,
                        "With HdrHistogram's fills.",
                        survival_series(&self.corrected, t),
                    ),
                    series(
                        "intended",
                        Unit::Fraction,
                        "From the intended send time.",
                        survival_series(&self.intended, t),
                    ),
                    series("open", Unit::Fraction, "Open loop.", survival_series(&self.open, t)),
                    series(
                        "theory",
                        Unit::Fraction,
                        "Closed form of the open loop (random gaps; empty with fixed gaps).",
                        theory.map_or_else(Vec::new, |th| t.iter().map(|&x| th.survival(x)).collect()),
                    ),
                ],
            },
        ));
        let q = &self.probe;
        // A measurement with no samples has no quantile: null rather than NaN.
        let some = |x: f64| x.is_finite().then_some(x);
        fields.extend([
            Field::new(
                "probe_load",
                Unit::Rate,
                "The probed replica's utilisation.",
                Value::Number(q.params.load),
            ),
            Field::ms(
                "probe_ms",
                "How often the probe client means to probe.",
                q.params.interval_ms,
            ),
            Field::count(
                "probes",
                "Probes made (the first tenth warm the queue up).",
                q.params.probes,
            ),
            Field::count(
                "probe_raw_samples",
                "Probes the closed loop made after the warm-up.",
                q.raw.count() as u64,
            ),
            Field::ms(
                "probe_open_p50",
                "Open-loop probe (the truth): median.",
                q.open.quantile(0.5),
            ),
            Field::ms(
                "probe_open_p99",
                "Open-loop probe (the truth): p99.",
                q.open.quantile(0.99),
            ),
            Field::ms(
                "probe_open_p999",
                "Open-loop probe (the truth): p99.9.",
                q.open.quantile(0.999),
            ),
            Field::ms(
                "probe_open_mean",
                "Open-loop probe (the truth): mean.",
                q.open.mean_ms(),
            ),
            maybe(
                "probe_raw_p50",
                Unit::Ms,
                "Closed-loop probe: median; null when the closed loop made no probe after the warm-up (its first answer outlasted the run).",
                some(q.raw.quantile(0.5)),
            ),
            maybe(
                "probe_raw_p99",
                Unit::Ms,
                "Closed-loop probe: p99; null when the closed loop made no probe after the warm-up (its first answer outlasted the run).",
                some(q.raw.quantile(0.99)),
            ),
            maybe(
                "probe_raw_p999",
                Unit::Ms,
                "Closed-loop probe: p99.9; null when the closed loop made no probe after the warm-up (its first answer outlasted the run).",
                some(q.raw.quantile(0.999)),
            ),
            maybe(
                "probe_raw_mean",
                Unit::Ms,
                "Closed-loop probe: mean; null when the closed loop made no probe after the warm-up (its first answer outlasted the run).",
                some(q.raw.mean_ms()),
            ),
            maybe(
                "probe_corrected_p99",
                Unit::Ms,
                "Closed-loop probe with HdrHistogram's fills: p99; null when the closed loop made no probe after the warm-up (its first answer outlasted the run).",
                some(q.corrected.quantile(0.99)),
            ),
            Field::ms(
                "probe_theory_mean",
                "Closed form: Pollaczek–Khinchine's mean latency of the M/G/1 replica.",
                q.theory_mean_ms,
            ),
        ]);
        fields
    }
}

fn run(index: usize, seed: u64, _requests: u64) -> Result<RunOutput, ParamError> {
    let params = if index == 0 {
        OmissionParams::classic()
    } else {
        OmissionParams::section_default()
    };
    Ok(Box::new(simulate(OmissionParams { seed, ..params })?))
}

/// Coordinated omission in the report and the API (`simulateOmission`).
pub const MODEL: Model = Model {
    key: "omission",
    title: "Coordinated omission: a stalling server measured closed loop, corrected, and open loop",
    note: "first the classic worked example (1 ms answers, one 100 s stall after 100 s, a send \
           every 10 ms): raw_frac_le_1ms 99.99%, corrected_frac_le_1ms 50%; then 1 s stalls \
           every 20 s at random, the open loop beside its closed form; each with a probe of a \
           loaded replica at load 0.5, whose closed-loop p99 reads below the open loop's",
    call: Some("simulateOmission"),
    api: Some(&super::CALL),
    closed_forms: &[],
    result_type: <OmissionResult as Describe>::TYPE_NAME,
    result_doc: <OmissionResult as Describe>::DOC,
    streams: &[STREAM, STALL_STREAM],
    sweep: true,
    runs: 2,
    run,
    entries: each_described::<OmissionResult>,
    example: || {
        simulate(OmissionParams {
            duration_ms: 2000.0,
            stall_ms: 100.0,
            every_ms: 1000.0,
            probe: super::probe::ProbeParams {
                probes: 1000,
                ..Default::default()
            },
            ..OmissionParams::section_default()
        })
        .expect("valid")
        .describe()
    },
};
