//! The fairness model as a registered model: a point described field by field, and its part of
//! the report (the standard sweep over the load).

use super::{DELAY_STREAM, FairnessPoint, POLICY_NAMES, STREAM, SWEEP_LOADS, Tenant, sweep_point};
use crate::describe::{Describe, Field, Unit, Value};
use crate::error::ParamError;
use crate::lab::loaded::CANCELLATION_NAMES;
use crate::model::{Model, RunOutput, each_described};

/// The fields of one tenant in one run: `<key>_requests`, `<key>_p50`, `<key>_p99`,
/// `<key>_p999`, `<key>_mean` and the intervals of the mean, p50 and p99, their docs naming
/// `$what`.
macro_rules! tenant_fields {
    ($t:expr, $key:literal, $what:literal) => {{
        let t: &Tenant = $t;
        let ms = |key, doc, v: Option<f64>| Field::new(key, Unit::Ms, doc, Value::MaybeNumber(v));
        let i = t.intervals;
        vec![
            Field::count(
                concat!($key, "_requests"),
                concat!("Measured requests (after warm-up) of ", $what, "."),
                t.measured,
            ),
            ms(
                concat!($key, "_p50"),
                concat!("Median latency of ", $what, "; null when unstable."),
                t.latency.map(|p| p.p50),
            ),
            ms(
                concat!($key, "_p99"),
                concat!("p99 latency of ", $what, "."),
                t.latency.map(|p| p.p99),
            ),
            ms(
                concat!($key, "_p999"),
                concat!("p99.9 latency of ", $what, "."),
                t.latency.map(|p| p.p999),
            ),
            ms(
                concat!($key, "_mean"),
                concat!("Mean latency of ", $what, "."),
                t.mean_ms,
            ),
            ms(
                concat!($key, "_mean_low"),
                concat!(
                    "Lower end of the 95% batch-means interval of the mean of ",
                    $what,
                    "."
                ),
                i.and_then(|i| i.mean).map(|x| x.lo),
            ),
            ms(
                concat!($key, "_mean_high"),
                "Upper end of that interval.",
                i.and_then(|i| i.mean).map(|x| x.hi),
            ),
            ms(
                concat!($key, "_p50_low"),
                concat!(
                    "Lower end of the 95% interval of the median of ",
                    $what,
                    "."
                ),
                i.and_then(|i| i.p50).map(|x| x.lo),
            ),
            ms(
                concat!($key, "_p50_high"),
                "Upper end of that interval.",
                i.and_then(|i| i.p50).map(|x| x.hi),
            ),
            ms(
                concat!($key, "_p99_low"),
                concat!(
                    "Lower end of the 95% interval of the p99 of ",
                    $what,
                    "; null below 2,500 measured requests."
                ),
                i.and_then(|i| i.p99).map(|x| x.lo),
            ),
            ms(
                concat!($key, "_p99_high"),
                "Upper end of that interval.",
                i.and_then(|i| i.p99).map(|x| x.hi),
            ),
        ]
    }};
}

impl Describe for FairnessPoint {
    const TYPE_NAME: &'static str = "FairnessResult";
    const DOC: &'static str = "Two tenants on loaded FIFO replicas, only tenant A hedging or \
        duplicating: each tenant's latency at one load, beside both with nobody hedging on the \
        same arrivals and work. Latencies are ms, null when the run is unstable.";

    fn describe(&self) -> Vec<Field> {
        let [a, b] = &self.tenants;
        let [base_a, base_b] = &self.baseline_tenants;
        let p99 = |t: &Tenant| t.latency.map(|p| p.p99);
        let diff = |x: Option<f64>, y: Option<f64>| x.zip(y).map(|(x, y)| x - y);
        let mut fields = vec![
            Field::new(
                "load",
                Unit::Fraction,
                "Offered utilisation of both tenants together, before any backup.",
                Value::Number(self.run.load),
            ),
            Field::fraction(
                "share_a",
                "The share of requests that are tenant A's.",
                self.share_a,
            ),
            Field::count(
                "requests",
                "Requests per run (with A's backups, and the baseline).",
                self.requests,
            ),
            Field::new(
                "policy",
                Unit::None,
                "What tenant A sends besides its primary; tenant B never sends a backup.",
                Value::Name {
                    value: self.policy.name(),
                    choices: &POLICY_NAMES,
                },
            ),
            Field::new(
                "cancellation",
                Unit::None,
                "What happens to the copy that did not answer first.",
                Value::Name {
                    value: self.run.cancellation.name(),
                    choices: &CANCELLATION_NAMES,
                },
            ),
            Field::new(
                "delay_ms",
                Unit::Ms,
                "The delay A's backups were sent after: 0 for duplicates, null without backups.",
                Value::MaybeNumber(self.run.delay_ms),
            ),
            Field::flag(
                "stable",
                "False when the run with A's backups is past its stability boundary.",
                self.run.stable,
            ),
            Field::flag(
                "baseline_stable",
                "False when the run with nobody hedging is unstable.",
                self.baseline.stable,
            ),
            Field::fraction(
                "extra_requests",
                "Share of all requests that sent a backup (A's only).",
                self.run.extra_requests,
            ),
            Field::fraction(
                "extra_work",
                "Backup service time over the primaries' full service time.",
                self.run.extra_work,
            ),
            Field::fraction(
                "utilisation",
                "Server time consumed per unit of capacity, with A's backups.",
                self.run.utilisation,
            ),
            Field::new(
                "a_p99_gain",
                Unit::Ms,
                "How much A's p99 fell against nobody hedging (baseline minus with backups; \
                 negative when it rose); null when either is unstable.",
                Value::MaybeNumber(diff(p99(base_a), p99(a))),
            ),
            Field::new(
                "b_p99_loss",
                Unit::Ms,
                "How much B's p99 rose against nobody hedging (with A's backups minus \
                 baseline); null when either is unstable.",
                Value::MaybeNumber(diff(p99(b), p99(base_b))),
            ),
        ];
        fields.extend(tenant_fields!(a, "a", "tenant A, which hedges"));
        fields.extend(tenant_fields!(b, "b", "tenant B, which does not"));
        fields.extend(tenant_fields!(
            base_a,
            "base_a",
            "tenant A with nobody hedging"
        ));
        fields.extend(tenant_fields!(
            base_b,
            "base_b",
            "tenant B with nobody hedging"
        ));
        fields
    }
}

/// Report runs use at most this many requests per run (each point makes two): enough for each
/// tenant to measure the 10,000 requests a p99 interval needs at an even share.
const REPORT_REQUESTS: u64 = 40_000;

fn run(index: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    Ok(Box::new(sweep_point(
        index,
        requests.clamp(1000, REPORT_REQUESTS),
        seed,
    )?))
}

/// Fairness to a tenant that does not hedge, in the report and the API (`simulateFairness`).
pub const MODEL: Model = Model {
    key: "fairness",
    title: "Fairness: two tenants on 10 loaded FIFO replicas, only A duplicates",
    note: "half the requests are tenant A's and are duplicated (the backup cancelled when the \
           primary answers); B sends no backups. Each tenant beside both with nobody hedging \
           (40,000 requests a run at most)",
    call: Some("simulateFairness"),
    api: Some(&super::CALL),
    closed_forms: &[],
    result_type: <FairnessPoint as Describe>::TYPE_NAME,
    result_doc: <FairnessPoint as Describe>::DOC,
    streams: &[STREAM, DELAY_STREAM],
    sweep: true,
    runs: SWEEP_LOADS.len(),
    run,
    entries: each_described::<FairnessPoint>,
    example: || {
        super::simulate(&super::FairnessParams {
            requests: 1000,
            ..super::FairnessParams::at_load(0.5)
        })
        .expect("valid")
        .describe()
    },
};
