//! The correlated-stragglers model as a registered model: its result described field by
//! field, and its part of the report.

use super::{COIN_STREAM, CorrelatedParams, CorrelatedResult, Delay, Outcome, STREAM, simulate};
use crate::describe::{Describe, Field, Unit, Value};
use crate::error::ParamError;
use crate::lab::service::ServiceModel;
use crate::model::{Model, RunOutput, each_described};

/// The eight fields of one fix's outcome: `p50_<key>`, `p99_<key>`, `p999_<key>`,
/// `slow_<key>` and each one's `theory_` twin, their docs naming `$what`.
macro_rules! outcome_fields {
    ($o:expr, $key:literal, $what:literal) => {{
        let o: &Outcome = $o;
        vec![
            Field::ms(
                concat!("p50_", $key),
                concat!("Parent median, ", $what, "."),
                o.sim.p50,
            ),
            Field::ms(
                concat!("theory_p50_", $key),
                concat!("Closed form: parent median, ", $what, "."),
                o.theory_p50,
            ),
            Field::ms(
                concat!("p99_", $key),
                concat!("Parent p99, ", $what, "."),
                o.sim.p99,
            ),
            Field::ms(
                concat!("theory_p99_", $key),
                concat!("Closed form: parent p99, ", $what, "."),
                o.theory_p99,
            ),
            Field::ms(
                concat!("p999_", $key),
                concat!("Parent p99.9, ", $what, "."),
                o.sim.p999,
            ),
            Field::ms(
                concat!("theory_p999_", $key),
                concat!("Closed form: parent p99.9, ", $what, "."),
                o.theory_p999,
            ),
            Field::fraction(
                concat!("slow_", $key),
                concat!(
                    "Share of parents later than the slow threshold t_p, ",
                    $what,
                    "."
                ),
                o.slow_share,
            ),
            Field::fraction(
                concat!("theory_slow_", $key),
                concat!("Closed form: share of parents later than t_p, ", $what, "."),
                o.theory_slow_share,
            ),
        ]
    }};
}

impl Describe for CorrelatedResult {
    const TYPE_NAME: &'static str = "CorrelatedResult";
    const DOC: &'static str = "Correlated stragglers (a common shock that keeps each leaf's own \
        law): the parent with no fix, with its slowest leaves dropped and with a hedge, at the \
        chosen leaf correlation and at zero, simulated beside the closed forms; the hedge's gain \
        as the replica correlation rises; the leaf's own percentiles; the survival curves.";

    fn describe(&self) -> Vec<Field> {
        let [none, drop, hedge] = &self.correlated;
        let [none_i, drop_i, hedge_i] = &self.independent;
        let series =
            |key, unit, doc, v: &[f64]| Field::new(key, unit, doc, Value::Series(v.to_vec()));
        let c = &self.curves;
        let g = &self.gain;
        let mut fields = vec![
            Field::count("n", "Leaves per request.", u64::from(self.n)),
            Field::fraction(
                "c",
                "Leaf correlation: the chance that a leaf takes the request's shared draw.",
                self.c,
            ),
            Field::fraction(
                "cr",
                "Replica correlation: the chance that a backup takes its primary's own draw.",
                self.cr,
            ),
            Field::fraction(
                "drop",
                "The share of leaves the partial-results parent drops.",
                self.drop,
            ),
            Field::count(
                "dropped",
                "Leaves it drops: n − ⌈(1 − drop)·n⌉.",
                u64::from(self.dropped),
            ),
            Field::ms("delay_ms", "The hedge delay d.", self.delay_ms),
            Field::fraction(
                "p",
                "The slow level: a leaf is slow above its (1 − p)-quantile.",
                self.p,
            ),
            Field::ms(
                "slow_ms",
                "The slow threshold t_p: the leaf's (1 − p)-quantile.",
                self.slow_ms,
            ),
            Field::count(
                "requests",
                "Requests simulated (each at the chosen c and at c = 0).",
                self.requests,
            ),
            Field::ms(
                "leaf_p50",
                "Every leaf's median at the chosen c, from the shared histogram bins.",
                self.leaf.p50,
            ),
            Field::ms(
                "theory_leaf_p50",
                "Closed form: F⁻¹(0.5), whatever c.",
                self.theory_leaf_p50,
            ),
            Field::ms(
                "leaf_p99",
                "Every leaf's p99 at the chosen c. With the Lab's model it falls in the gap \
                 between the modes, where the CDF is nearly flat, so it may land anywhere in the gap.",
                self.leaf.p99,
            ),
            Field::ms(
                "theory_leaf_p99",
                "Closed form: F⁻¹(0.99), whatever c.",
                self.theory_leaf_p99,
            ),
            Field::ms(
                "leaf_p999",
                "Every leaf's p99.9 at the chosen c.",
                self.leaf.p999,
            ),
            Field::ms(
                "theory_leaf_p999",
                "Closed form: F⁻¹(0.999), whatever c.",
                self.theory_leaf_p999,
            ),
            Field::fraction(
                "leaf_slow",
                "Share of leaves later than t_p at the chosen c.",
                self.leaf_slow_share,
            ),
            Field::fraction("theory_leaf_slow", "Closed form: p, whatever c.", self.p),
        ];
        fields.extend(outcome_fields!(none, "none", "no fix, at the chosen c"));
        fields.extend(outcome_fields!(
            drop,
            "drop",
            "slowest leaves dropped, at the chosen c"
        ));
        fields.extend(outcome_fields!(
            hedge,
            "hedge",
            "hedged at d, at the chosen c"
        ));
        fields.extend(outcome_fields!(none_i, "none_indep", "no fix, at c = 0"));
        fields.extend(outcome_fields!(
            drop_i,
            "drop_indep",
            "slowest leaves dropped, at c = 0"
        ));
        fields.extend(outcome_fields!(
            hedge_i,
            "hedge_indep",
            "hedged at d, at c = 0"
        ));
        fields.push(Field::new(
            "gain",
            Unit::None,
            "The hedge's gain at the chosen c: the parent's p99 without the hedge over with it, \
             as the replica correlation rises.",
            Value::Record {
                name: "CorrelatedGain",
                fields: vec![
                    series(
                        "cr",
                        Unit::Fraction,
                        "The replica correlations simulated.",
                        &g.cr,
                    ),
                    series(
                        "sim_gain",
                        Unit::None,
                        "Simulated gain (a ratio) at each.",
                        &g.sim_gain,
                    ),
                    series(
                        "theory_cr",
                        Unit::Fraction,
                        "Where the closed form is evaluated.",
                        &g.theory_cr,
                    ),
                    series(
                        "theory_gain",
                        Unit::None,
                        "Closed-form gain (a ratio) there.",
                        &g.theory_gain,
                    ),
                ],
            },
        ));
        let six = |key, doc, v: &[Vec<f64>; 3]| {
            Field::new(
                key,
                Unit::None,
                doc,
                Value::Record {
                    name: "CorrelatedFixCurves",
                    fields: vec![
                        series("none", Unit::Fraction, "No fix.", &v[0]),
                        series("drop", Unit::Fraction, "Slowest leaves dropped.", &v[1]),
                        series("hedge", Unit::Fraction, "Hedged at d.", &v[2]),
                    ],
                },
            )
        };
        fields.push(Field::new(
            "curves",
            Unit::None,
            "The parent's survival P(T > t) at t_ms, simulated (exact at the bin edges) and in \
             closed form, at the chosen c and at c = 0.",
            Value::Record {
                name: "CorrelatedCurves",
                fields: vec![
                    series(
                        "t_ms",
                        Unit::Ms,
                        "Abscissae: every fifth shared bin edge.",
                        &c.t_ms,
                    ),
                    six("sim", "Simulated, at the chosen c.", &c.sim),
                    six("sim_indep", "Simulated, at c = 0.", &c.sim_independent),
                    six("theory", "Closed form, at the chosen c.", &c.theory),
                    six(
                        "theory_indep",
                        "Closed form, at c = 0.",
                        &c.theory_independent,
                    ),
                    series(
                        "leaf",
                        Unit::Fraction,
                        "The leaf's own survival S(t), the same at every c.",
                        &c.leaf,
                    ),
                ],
            },
        ));
        fields
    }
}

/// The report's setting (the Lab section's defaults): n = 100, c = 0.3, c_r = 0.5, drop 5%,
/// hedge at p95, slow level 1%.
pub(crate) fn report_params(requests: u64, seed: u64) -> CorrelatedParams {
    CorrelatedParams {
        model: ServiceModel::default(),
        n: 100,
        c: 0.3,
        cr: 0.5,
        drop: 0.05,
        delay: Delay::Quantile(0.95),
        p: 0.01,
        requests,
        seed,
    }
}

/// Requests the report simulates at most: 20,000 × 100 leaves, about 0.2 s in release.
const REPORT_REQUESTS: u64 = 20_000;

fn run(_: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    Ok(Box::new(simulate(report_params(
        requests.min(REPORT_REQUESTS),
        seed,
    ))?))
}

/// Correlated stragglers in the report and the API (`simulateCorrelated`).
pub const MODEL: Model = Model {
    key: "correlated",
    title: "Correlated stragglers: a shared episode, each leaf's own law kept (n = 100, c = 0.3, \
            c_r = 0.5, drop 5%)",
    note: "with equal marginals, correlation improves the raw parent (fewer requests meet a slow \
           leaf: slow_none < slow_none_indep) and weakens the fixes: an episode slows more leaves \
           than dropping the slowest 5% can discard (slow_drop is some twenty times \
           slow_drop_indep), and a backup in the same episode is slow as well (the hedge's gain \
           falls with c_r). At most 20,000 requests",
    call: Some("simulateCorrelated"),
    api: Some(&super::CALL),
    closed_forms: &["correlatedTheory"],
    result_type: <CorrelatedResult as Describe>::TYPE_NAME,
    result_doc: <CorrelatedResult as Describe>::DOC,
    streams: &[STREAM, COIN_STREAM],
    sweep: false,
    runs: 1,
    run,
    entries: each_described::<CorrelatedResult>,
    example: || simulate(report_params(200, 1)).expect("valid").describe(),
};
