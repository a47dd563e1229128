//! The request graph's result, described field by field.

use super::simulate::GraphResult;
use super::stages::GRAPH_NAMES;
use crate::describe::{Describe, Field, Unit, Value};

impl Describe for GraphResult {
    const TYPE_NAME: &'static str = "GraphResult";
    const DOC: &'static str = "A request graph under a deadline: the answer time's percentiles, \
        the share of requests that miss the deadline and the mean completeness, simulated beside \
        their theory, with a deadline sweep and the completion survival.";

    fn describe(&self) -> Vec<Field> {
        let series = |key, unit, doc, v: Vec<f64>| Field::new(key, unit, doc, Value::Series(v));
        let s = &self.sweep;
        let col = |f: fn(&super::simulate::AtDeadline) -> f64| s.iter().map(f).collect::<Vec<_>>();
        vec![
            Field::new(
                "preset",
                Unit::None,
                "The graph: a preset's name, or custom for stages given one by one.",
                Value::Name {
                    value: self.name,
                    choices: &GRAPH_NAMES,
                },
            ),
            series(
                "stage_width",
                Unit::Count,
                "Each stage's children, in order (1 for a single stage).",
                self.widths.clone(),
            ),
            series(
                "stage_k",
                Unit::Count,
                "Each stage's answers waited for, in order (k of its width).",
                self.ks.clone(),
            ),
            Field::count("children", "Children one request calls.", self.children),
            Field::count("requests", "Requests simulated.", self.requests),
            Field::new(
                "deadline_ms",
                Unit::Ms,
                "The deadline, the request's budget from its start; null for none.",
                Value::MaybeNumber(self.deadline_ms),
            ),
            Field::ms(
                "p50",
                "Median answer time, min(completion, deadline), from the shared histogram bins.",
                self.percentiles[0],
            ),
            Field::ms(
                "theory_p50",
                "Theory median answer time.",
                self.theory_percentiles[0],
            ),
            Field::ms("p99", "p99 of the answer time.", self.percentiles[1]),
            Field::ms("theory_p99", "Theory p99.", self.theory_percentiles[1]),
            Field::ms("p999", "p99.9 of the answer time.", self.percentiles[2]),
            Field::ms("theory_p999", "Theory p99.9.", self.theory_percentiles[2]),
            Field::fraction(
                "miss",
                "Share of requests not complete by the deadline (0 with none).",
                self.miss,
            ),
            Field::fraction("theory_miss", "Theory: P(T > D).", self.theory_miss),
            Field::fraction(
                "completeness",
                "Mean completeness: answers in by the deadline over those a complete request \
                 counts (1 with no deadline).",
                self.completeness,
            ),
            Field::fraction(
                "theory_completeness",
                "Theory mean completeness (exact for one stage: F(D) when it waits for all).",
                self.theory_completeness,
            ),
            Field::flag(
                "theory_exact",
                "True when the theory is exact (one stage); false when it is the numerical \
                 convolution, within theory_cdf_error.",
                self.theory_exact,
            ),
            Field::fraction(
                "theory_cdf_error",
                "The convolution's stated error bound on P(T ≤ t): half the widest gap between \
                 its rigorous lower and upper CDFs (0 for one stage).",
                self.theory_cdf_error,
            ),
            Field::new(
                "sweep",
                Unit::None,
                "The deadline moved over a grid, from the same simulated requests.",
                Value::Record {
                    name: "GraphSweep",
                    fields: vec![
                        series(
                            "deadline_ms",
                            Unit::Ms,
                            "The deadlines, ascending.",
                            col(|a| a.deadline_ms),
                        ),
                        series(
                            "miss",
                            Unit::Fraction,
                            "Simulated share of requests that miss each deadline.",
                            col(|a| a.miss),
                        ),
                        series(
                            "completeness",
                            Unit::Fraction,
                            "Simulated mean completeness at each deadline.",
                            col(|a| a.completeness),
                        ),
                        series(
                            "p99",
                            Unit::Ms,
                            "Simulated p99 of min(completion, deadline).",
                            col(|a| a.p99),
                        ),
                        series(
                            "theory_miss",
                            Unit::Fraction,
                            "Theory: P(T > D).",
                            col(|a| a.theory_miss),
                        ),
                        series(
                            "theory_completeness",
                            Unit::Fraction,
                            "Theory mean completeness.",
                            col(|a| a.theory_completeness),
                        ),
                        series(
                            "theory_p99",
                            Unit::Ms,
                            "Theory: min(p99, D).",
                            col(|a| a.theory_p99),
                        ),
                    ],
                },
            ),
            Field::new(
                "curves",
                Unit::None,
                "The completion time's survival P(T > t), simulated and in theory.",
                Value::Record {
                    name: "GraphCurves",
                    fields: vec![
                        series(
                            "t_ms",
                            Unit::Ms,
                            "Abscissae: every few shared bin edges.",
                            self.curve_t_ms.clone(),
                        ),
                        series(
                            "survival",
                            Unit::Fraction,
                            "Simulated P(T > t) (exact at the edges).",
                            self.curve_sim.clone(),
                        ),
                        series(
                            "theory_survival",
                            Unit::Fraction,
                            "Theory P(T > t).",
                            self.curve_theory.clone(),
                        ),
                    ],
                },
            ),
        ]
    }
}
