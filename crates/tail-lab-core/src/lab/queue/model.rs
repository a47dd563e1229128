//! The single queue as a registered model: its result described field by field, and its part
//! of the report (the standard sweep, simulation beside closed form at every point).

use super::{
    LOAD_EXPECTED, MAX_LOAD, MAX_REQUESTS, MAX_SERVERS, MIN_LOAD, MIN_REQUESTS, QueueConfig,
    QueueParams, QueueResult, REQUESTS_EXPECTED, SERVERS_EXPECTED, STREAM, SWEEP_POINTS,
    sweep_point,
};
use crate::api::{Call, Kind, OptionSpec, OptionValues, Prepared, SEED_OPTION, Work, length_words};
use crate::describe::{Describe, Field, Unit, Value, interval_fields};
use crate::error::{CountRange, Ends, NumberRange, ParamError};
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
    api: Some(&CALL),
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

/// `simulateQueue`: one M/M/c queue at one load.
pub const CALL: Call = Call {
    name: "simulateQueue",
    doc: "One M/M/c queue: `servers` servers share a FIFO queue at per-server utilisation \
          `load`; the mean, p99 and share that waited, beside their closed forms.",
    options_type: "QueueOptions",
    options_doc: "Options of `simulateQueue`: an M/M/c queue, times in mean service times.",
    options: &[
        OptionSpec {
            name: "servers",
            doc: "Servers sharing the one queue.",
            unit: Unit::Count,
            kind: Kind::Count {
                range: CountRange {
                    lo: 1,
                    hi: MAX_SERVERS as u64,
                    expected: SERVERS_EXPECTED,
                },
                default: Some(1),
            },
        },
        OptionSpec {
            name: "load",
            doc: "Per-server utilisation ρ = λ/(cμ).",
            unit: Unit::Fraction,
            kind: Kind::Number {
                range: NumberRange::new(MIN_LOAD, MAX_LOAD, Ends::Closed, LOAD_EXPECTED),
                default: Some(0.5),
            },
        },
        OptionSpec {
            name: "requests",
            doc: "Requests simulated, the first tenth warm-up.",
            unit: Unit::Count,
            kind: Kind::RunLength {
                range: CountRange {
                    lo: MIN_REQUESTS,
                    hi: MAX_REQUESTS,
                    expected: REQUESTS_EXPECTED,
                },
                default: 200_000,
                rule: &crate::lab::precision::QUEUE_RUN,
            },
        },
        SEED_OPTION,
    ],
    exclusive: &[],
    result_type: <QueueResult as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| {
        let (requests, choice) = o.length("requests");
        let config = QueueConfig::new(QueueParams {
            servers: o.count("servers") as u32,
            load: o.number("load").expect("load has a default"),
            requests,
            seed: o.seed("seed"),
        })?;
        let work = Work {
            units: config.work_units(),
            counted_as: format!(
                "{} × (28 + 0.55 a server)",
                length_words("requests", choice, requests)
            ),
        };
        Ok(Prepared::new(work, move || {
            Ok(config.run_by(choice).describe())
        }))
    },
};
