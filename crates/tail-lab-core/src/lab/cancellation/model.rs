//! The cancellation-delay model as a registered model: a point described field by field, and
//! its part of the report (the standard sweep over the delay).

use super::{BracketEnd, CancellationPoint, DELAY_STREAM, STREAM, SWEEP_DELAYS_MS, sweep_point};
use crate::describe::{Describe, Field, Unit, Value};
use crate::error::ParamError;
use crate::lab::loaded::{CANCELLATION_NAMES, LoadedResult};
use crate::model::{Model, RunOutput, each_described};

/// The names of the bisection's verdicts.
pub const VERDICT_NAMES: [&str; 4] = ["crossed", "wins-throughout", "never-wins", "not-run"];

/// The fields of one policy's run: `<key>_stable`, `<key>_p50`, `<key>_p99`, `<key>_p999`,
/// `<key>_p99_low`, `<key>_p99_high`, `<key>_extra_work`, `<key>_capacity_cost`,
/// `<key>_utilisation`, their docs naming `$what`.
macro_rules! policy_fields {
    ($r:expr, $key:literal, $what:literal) => {{
        let r: &LoadedResult = $r;
        let ms = |key, doc, v: Option<f64>| Field::new(key, Unit::Ms, doc, Value::MaybeNumber(v));
        let p99 = r.intervals.and_then(|i| i.p99);
        vec![
            Field::flag(
                concat!($key, "_stable"),
                concat!(
                    "False when ",
                    $what,
                    " is past its stability boundary: then its latencies are null."
                ),
                r.stable,
            ),
            ms(
                concat!($key, "_p50"),
                concat!("Median latency, ", $what, "."),
                r.latency.map(|p| p.p50),
            ),
            ms(
                concat!($key, "_p99"),
                concat!("p99 latency, ", $what, "."),
                r.latency.map(|p| p.p99),
            ),
            ms(
                concat!($key, "_p999"),
                concat!("p99.9 latency, ", $what, "."),
                r.latency.map(|p| p.p999),
            ),
            ms(
                concat!($key, "_p99_low"),
                concat!(
                    "Lower end of the p99's 95% batch-means interval, ",
                    $what,
                    "."
                ),
                p99.map(|i| i.lo),
            ),
            ms(
                concat!($key, "_p99_high"),
                concat!("Upper end of the p99's 95% interval, ", $what, "."),
                p99.map(|i| i.hi),
            ),
            Field::fraction(
                concat!($key, "_extra_work"),
                concat!(
                    "Backup service time over the primaries' full service time, ",
                    $what,
                    ": a losing backup works until its cancel lands."
                ),
                r.extra_work,
            ),
            Field::fraction(
                concat!($key, "_capacity_cost"),
                concat!(
                    "Server time beyond the primaries' full service time per unit of capacity, ",
                    $what,
                    " (negative when cancelled primaries gave back more than backups cost)."
                ),
                r.capacity_cost,
            ),
            Field::fraction(
                concat!($key, "_utilisation"),
                concat!("Server time consumed per unit of capacity, ", $what, "."),
                r.utilisation,
            ),
        ]
    }};
}

/// The fields of one end of the crossing's bracket, `<key>_load` etc.
macro_rules! bracket_fields {
    ($e:expr, $key:literal, $what:literal) => {{
        let e: Option<BracketEnd> = $e;
        let ms = |key, doc, v: Option<f64>| Field::new(key, Unit::Ms, doc, Value::MaybeNumber(v));
        vec![
            Field::new(
                concat!($key, "_load"),
                Unit::Fraction,
                concat!(
                    "The load ",
                    $what,
                    "; null when the bisection did not bracket one."
                ),
                Value::MaybeNumber(e.map(|e| e.load)),
            ),
            ms(
                concat!($key, "_duplicate_p99"),
                concat!(
                    "Duplicating's p99 at the load ",
                    $what,
                    "; null when unstable."
                ),
                e.and_then(|e| e.duplicate_p99),
            ),
            ms(
                concat!($key, "_duplicate_p99_low"),
                "Lower end of that p99's 95% interval.",
                e.and_then(|e| e.duplicate_p99_interval).map(|i| i.lo),
            ),
            ms(
                concat!($key, "_duplicate_p99_high"),
                "Upper end of that p99's 95% interval.",
                e.and_then(|e| e.duplicate_p99_interval).map(|i| i.hi),
            ),
            ms(
                concat!($key, "_none_p99"),
                concat!("No backups' p99 at the load ", $what, "."),
                e.and_then(|e| e.none_p99),
            ),
            ms(
                concat!($key, "_none_p99_low"),
                "Lower end of that p99's 95% interval.",
                e.and_then(|e| e.none_p99_interval).map(|i| i.lo),
            ),
            ms(
                concat!($key, "_none_p99_high"),
                "Upper end of that p99's 95% interval.",
                e.and_then(|e| e.none_p99_interval).map(|i| i.hi),
            ),
        ]
    }};
}

impl Describe for CancellationPoint {
    const TYPE_NAME: &'static str = "CancellationResult";
    const DOC: &'static str = "Cancellation delay on loaded FIFO replicas: at one load and one \
        delay between a request's answer and its cancel landing, no backups, the hedge and \
        duplicating (p99s with intervals, extra work), and the load at which duplicating stops \
        winning, found by bisection and bracketed. Latencies are ms, null when unstable.";

    fn describe(&self) -> Vec<Field> {
        let never = self.cancel_delay_ms == f64::INFINITY;
        let c = &self.crossing;
        let mut fields = vec![
            Field::new(
                "cancel_delay_ms",
                Unit::Ms,
                "The delay between a request's answer and its cancel landing; null when it never \
                 lands (∞).",
                Value::MaybeNumber((!never).then_some(self.cancel_delay_ms)),
            ),
            Field::flag(
                "never_lands",
                "True when the delay is ∞: the cancel never lands and every copy runs to its end.",
                never,
            ),
            Field::new(
                "load",
                Unit::Fraction,
                "Offered utilisation, before any backup.",
                Value::Number(self.duplicate.load),
            ),
            Field::count(
                "requests",
                "Requests per run (each of the point's runs).",
                self.requests,
            ),
            Field::new(
                "cancellation",
                Unit::None,
                "What a landing cancel does to the losing copy.",
                Value::Name {
                    value: self.duplicate.cancellation.name(),
                    choices: &CANCELLATION_NAMES,
                },
            ),
            Field::new(
                "hedge_delay_ms",
                Unit::Ms,
                "The hedge's delay: the p95 of no-backup latency at the same load; null when \
                 that run is unstable.",
                Value::MaybeNumber(self.hedge.delay_ms),
            ),
            Field::new(
                "never_cancel_boundary",
                Unit::Fraction,
                "Closed form: the load at which duplicates that are never cancelled stop being \
                 stable, 1 / (1 + h) with h = 1.",
                Value::Number(super::theory::never_cancel_boundary(1.0)),
            ),
        ];
        fields.extend(policy_fields!(&self.none, "none", "with no backups"));
        fields.extend(policy_fields!(
            &self.hedge,
            "hedge",
            "hedging at the no-backup p95"
        ));
        fields.extend(policy_fields!(
            &self.duplicate,
            "duplicate",
            "duplicating every request"
        ));
        fields.push(Field::new(
            "crossing_verdict",
            Unit::None,
            "What the bisection of loads 0.05..0.95 found: crossed (duplicating wins at 0.05 and \
             loses at 0.95), wins-throughout, never-wins, or not-run.",
            Value::Name {
                value: c.verdict.name(),
                choices: &VERDICT_NAMES,
            },
        ));
        fields.push(Field::new(
            "crossing_load",
            Unit::Fraction,
            "The load at which duplicating stops winning (its p99 no longer below no-backup's): \
             the middle of the bracket; null unless crossed.",
            Value::MaybeNumber(c.load()),
        ));
        fields.extend(bracket_fields!(
            c.below,
            "below",
            "below the crossing (the last where duplicating won)"
        ));
        fields.extend(bracket_fields!(
            c.above,
            "above",
            "above the crossing (the first where it did not)"
        ));
        fields
    }
}

/// Report runs use at most this many requests per run (each point makes up to 17 runs).
const REPORT_REQUESTS: u64 = 20_000;

fn run(index: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    Ok(Box::new(sweep_point(
        index,
        requests.clamp(1000, REPORT_REQUESTS),
        seed,
    )?))
}

/// Cancellation delay in the report and the API (`simulateCancellation`).
pub const MODEL: Model = Model {
    key: "cancellation",
    title: "Cancellation delay on 10 loaded FIFO replicas",
    note: "at load 0.5, a cancel lands the given delay after the answer and stops the losing \
           copy, primary or backup, even mid-hiccup; until then the loser works, and that work \
           counts. The crossing is the load at which duplicating's p99 stops beating no \
           backups', by bisection of 0.05..0.95 (20,000 requests a run at most)",
    call: Some("simulateCancellation"),
    api: Some(&super::CALL),
    closed_forms: &[],
    result_type: <CancellationPoint as Describe>::TYPE_NAME,
    result_doc: <CancellationPoint as Describe>::DOC,
    streams: &[STREAM, DELAY_STREAM],
    sweep: true,
    runs: SWEEP_DELAYS_MS.len(),
    run,
    entries: each_described::<CancellationPoint>,
    example: || {
        super::simulate(&super::CancellationParams {
            requests: 1000,
            bisect: false,
            ..super::CancellationParams::at_delay(10.0)
        })
        .expect("valid")
        .describe()
    },
};
