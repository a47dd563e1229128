//! The single queue as a registered model: its result described field by field, and its part
//! of the report (the standard sweep, simulation beside closed form at every point).

use super::{MAX_REQUESTS, MIN_REQUESTS, QueueResult, STREAM, SWEEP_POINTS, sweep_point};
use crate::describe::{Describe, Field, Unit, Value, interval_fields};
use crate::error::ParamError;
use crate::lab::precision::{Reached, precision_field};
use crate::model::{Model, RunOutput, each_described};

impl Describe for QueueResult {
    const TYPE_NAME: &'static str = "QueueResult";
    const DOC: &'static str = "One M/M/c queue: latency against utilisation, simulated beside \
        the closed forms. Times are in mean service times.";

    fn describe(&self) -> Vec<Field> {
        let time = |key, doc, v| Field::new(key, Unit::ServiceTimes, doc, Value::Number(v));
        vec![
            Field::count(
                "servers",
                "Servers sharing the queue (c).",
                u64::from(self.servers),
            ),
            Field::fraction("load", "Per-server utilisation ρ = λ/c.", self.load),
            Field::count("requests", "Requests simulated.", self.requests),
            time("mean", "Mean time in system after warm-up.", self.mean),
            time(
                "theory_mean",
                "Closed form: 1 + C(c, cρ)/(c(1 − ρ)).",
                self.theory_mean,
            ),
            time(
                "p99",
                "99th percentile of time in system after warm-up.",
                self.p99,
            ),
            time(
                "theory_p99",
                "Closed form: the 0.99 quantile of a wait that is 0 or exponential, plus an \
                 exponential service.",
                self.theory_p99,
            ),
            Field::fraction(
                "wait_probability",
                "Share of requests that waited for a server.",
                self.wait_probability,
            ),
            Field::fraction(
                "theory_wait_probability",
                "Erlang C: the exact probability of waiting.",
                self.theory_wait_probability,
            ),
        ]
        .into_iter()
        .chain(interval_fields(self.intervals, Unit::ServiceTimes))
        .chain([precision_field(
            Reached::of(self.mean, self.p99, self.intervals.as_ref()),
            self.planned.as_ref(),
        )])
        .collect()
    }
}

fn run(index: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    let requests = requests.clamp(MIN_REQUESTS, MAX_REQUESTS);
    Ok(Box::new(sweep_point(index, requests, seed)?))
}

/// The single queue in the report and the API (`simulateQueue`).
pub const MODEL: Model = Model {
    key: "queue",
    title: "One queue, M/M/1 and M/M/4 (times in mean service times)",
    note: "latency against utilisation: the mean and p99 climb as 1/(1 − ρ); four servers \
           sharing one queue wait far less at the same utilisation",
    call: Some("simulateQueue"),
    closed_forms: &["queueTheory"],
    result_type: <QueueResult as Describe>::TYPE_NAME,
    result_doc: <QueueResult as Describe>::DOC,
    streams: &[STREAM],
    sweep: true,
    runs: SWEEP_POINTS,
    run,
    entries: each_described::<QueueResult>,
    example: || sweep_point(0, MIN_REQUESTS, 1).expect("valid").describe(),
};
