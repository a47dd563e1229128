//! `simulateGraph`, and the options its closed forms (`graphTheory`) share with it: the graph
//! (a preset, or stages given one by one, each a record), its service and its deadline.

use super::simulate::{
    DEADLINE, DEFAULT_SWEEP_POINTS, MAX_DEADLINE_MS, REQUESTS_PER_CALL, SWEEP_POINTS,
    SWEEP_TO_EXPECTED,
};
use super::stages::{EXPONENTIAL_MEAN, K, PRESETS, PRESETS_EXPECTED, STAGE_KINDS, STAGES, WIDTH};
use super::{Graph, GraphParams, GraphResult, Stage, StageService, Sweep, simulate};
use crate::api::{
    Call, Kind, OptionSet, OptionSpec, OptionValues, Prepared, Record, SEED_OPTION, SERVICE_OPTION,
    Work,
};
use crate::describe::{Describe, Unit};
use crate::error::{Ends, NumberRange, ParamError};
use crate::lab::service::ServiceModel;

/// A stage's service of its own: exponential, of a mean (the hypoexponential check's stages).
pub const EXPONENTIAL_SERVICE: Record = Record {
    type_name: "ExponentialServiceOptions",
    doc: "An exponential service, for one stage of a request graph.",
    fields: &[OptionSpec {
        name: "exponentialMs",
        doc: "Its mean.",
        unit: Unit::Ms,
        kind: Kind::Number {
            range: EXPONENTIAL_MEAN,
            default: None,
        },
    }],
    required: &["exponentialMs"],
};

/// One stage of a request graph: `{ kind, width, k, service }`.
pub const STAGE: Record = Record {
    type_name: "GraphStageOptions",
    doc: "One stage of a request graph.",
    fields: &[
        OptionSpec {
            name: "kind",
            doc: "One call, or `width` calls at once.",
            unit: Unit::None,
            kind: Kind::Name {
                names: &STAGE_KINDS,
                expected: "single, parallel",
                default: None,
            },
        },
        OptionSpec {
            name: "width",
            doc: "Children of a parallel stage, which needs it (a single stage has 1: leave it \
                  out).",
            unit: Unit::Count,
            kind: Kind::Count {
                range: WIDTH,
                default: None,
            },
        },
        OptionSpec {
            name: "k",
            doc: "Answers a parallel stage waits for, at most `width`; absent: all of them (a \
                  single stage has 1: leave it out).",
            unit: Unit::Count,
            kind: Kind::Count {
                range: K,
                default: None,
            },
        },
        OptionSpec {
            name: "service",
            doc: "Its children's service; absent: the call's `service`.",
            unit: Unit::None,
            kind: Kind::ServiceOr(&EXPONENTIAL_SERVICE),
        },
    ],
    required: &["kind"],
};

/// The graph's options, which the closed forms take as they are: every option of [`CALL`] but
/// the sweep's, `requests` and `seed`.
pub const OPTIONS: &[OptionSpec] = &GRAPH;

const GRAPH: [OptionSpec; 4] = [
    OptionSpec::choice(
        "preset",
        "A preset: `fanout` (100 leaves, all), `search` (auth → 10 shards → rank), `quorum` (a \
         3-of-5 write), `chain` (three exponential stages, 5, 10 and 20 ms).",
        &PRESETS,
        PRESETS_EXPECTED,
    ),
    OptionSpec {
        name: "stages",
        doc: "Stages of your own, run one after another, instead of a preset.",
        unit: Unit::None,
        kind: Kind::Records {
            record: &STAGE,
            length: STAGES,
        },
    },
    OptionSpec {
        doc: "The service of every stage that names none (a preset's Lab-model stages too); \
              absent: the Lab's.",
        ..SERVICE_OPTION
    },
    OptionSpec {
        name: "deadlineMs",
        doc: "The deadline: a request not complete by then answers with what has arrived; \
              absent: none.",
        unit: Unit::Ms,
        kind: Kind::Nullable(&Kind::Number {
            range: DEADLINE,
            default: None,
        }),
    },
];

const ALL: [OptionSpec; 9] = {
    let mut all = [SEED_OPTION; 9];
    let mut i = 0;
    while i < GRAPH.len() {
        all[i] = GRAPH[i];
        i += 1;
    }
    all[4] = OptionSpec {
        name: "sweepFromMs",
        doc: "The sweep's first deadline; absent: the theory's p10.",
        unit: Unit::Ms,
        kind: Kind::Number {
            range: DEADLINE,
            default: None,
        },
    };
    all[5] = OptionSpec {
        name: "sweepToMs",
        doc: "The sweep's last deadline; absent: twice the theory's p99.9.",
        unit: Unit::Ms,
        kind: Kind::Number {
            range: NumberRange::new(0.0, MAX_DEADLINE_MS, Ends::AboveLow, SWEEP_TO_EXPECTED),
            default: None,
        },
    };
    all[6] = OptionSpec::count(
        "sweepPoints",
        "Deadlines in the sweep, log-spaced; only with `sweepFromMs` and `sweepToMs`.",
        Unit::Count,
        SWEEP_POINTS,
        DEFAULT_SWEEP_POINTS as u64,
    );
    all[7] = OptionSpec::count(
        "requests",
        "Requests simulated (3 × requests × children at most the work limit).",
        Unit::Count,
        REQUESTS_PER_CALL,
        20_000,
    );
    all
};

/// One stage from its record ([`STAGE`]), on `default` unless it names its own service.
fn stage(o: &OptionValues, default: &ServiceModel) -> Result<Stage, ParamError> {
    let service = match o.service_or_record("service") {
        None => StageService::Service(default.clone()),
        Some(Ok(model)) => StageService::Service(model),
        Some(Err(own)) => {
            StageService::exponential(own.number("exponentialMs").expect("a required field"))?
        }
    };
    if o.name("kind") == Some("single") {
        for key in ["width", "k"] {
            if o.given_count(key).is_some_and(|n| n != 1) {
                return Err(ParamError::Conflict {
                    param: key,
                    reason: "of a single stage must be 1 (or left out)".into(),
                });
            }
        }
        return Ok(Stage::single(service));
    }
    let width = o.given_count("width").ok_or_else(|| ParamError::Shape {
        param: "width",
        message: "width is required".into(),
    })?;
    let k = o.given_count("k").unwrap_or(width);
    Stage::parallel(width as u32, k as u32, service)
}

/// The graph and the deadline (ms) that `o` (read against [`OPTIONS`] or [`CALL`]'s options)
/// sets: its stages if given (an error in one names it, `stages[2].k`), else its preset, every
/// stage that names no service on `service`.
pub fn graph_of(o: &OptionValues) -> Result<(Graph, Option<f64>), ParamError> {
    let default = o.service("service");
    let graph = match o.records("stages") {
        Some(records) => {
            let stages = records
                .iter()
                .enumerate()
                .map(|(i, r)| stage(r, &default).map_err(|e| e.within(format!("stages[{i}]."))))
                .collect::<Result<Vec<_>, _>>()?;
            Graph::new("custom", stages)?
        }
        None => Graph::preset(o.name("preset").expect("preset has a default"), &default)?,
    };
    Ok((graph, o.nullable_number("deadlineMs")))
}

/// The deadlines of a sweep from `o`: both ends and the points given, or none of them.
fn sweep_of(o: &OptionValues) -> Result<Sweep, ParamError> {
    match (o.number("sweepFromMs"), o.number("sweepToMs")) {
        (Some(from_ms), Some(to_ms)) => Ok(Sweep::Between {
            from_ms,
            to_ms,
            points: o.count("sweepPoints") as usize,
        }),
        (None, None) if o.given("sweepPoints") => Err(ParamError::Shape {
            param: "sweepPoints",
            message: "sweepPoints needs sweepFromMs and sweepToMs".into(),
        }),
        (None, None) => Ok(Sweep::Default),
        _ => Err(ParamError::Shape {
            param: "sweepFromMs",
            message: "give sweepFromMs and sweepToMs together".into(),
        }),
    }
}

/// `simulateGraph`: a request graph under a deadline.
pub const CALL: Call = Call {
    name: "simulateGraph",
    doc: "A request graph under a deadline: stages in series, each single or k-of-n parallel. \
          The answer time's percentiles, the miss share and the mean completeness beside their \
          theory, a deadline sweep from the same requests, and the completion survival.",
    options_type: "SimulateGraphOptions",
    options_doc: "Options of `simulateGraph`: the graph (`GraphOptions`, which `graphTheory` \
                  takes) and the run's. Give `sweepFromMs` and `sweepToMs` together, \
                  `sweepPoints` only with them.",
    options: &ALL,
    exclusive: &[["preset", "stages"]],
    result_type: <GraphResult as Describe>::TYPE_NAME,
    more: &[OptionSet {
        type_name: "GraphOptions",
        doc: "The graph of `simulateGraph` and `graphTheory`: a preset, or stages (give one, \
              not both), its service and its deadline.",
        options: OPTIONS,
    }],
    prepare: |o: &OptionValues| -> Result<Prepared, ParamError> {
        let (graph, deadline_ms) = graph_of(o)?;
        let params = GraphParams {
            graph,
            deadline_ms,
            sweep: sweep_of(o)?,
            requests: o.count("requests"),
            seed: o.seed("seed"),
        };
        let work = Work {
            units: params.work_units(),
            counted_as: "3 × requests × children".into(),
        };
        Ok(Prepared::new(work, move || {
            Ok(simulate(&params)?.describe())
        }))
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::OptionValue;

    fn stage_values(given: Vec<(&'static str, OptionValue)>) -> OptionValues {
        OptionValues::complete(STAGE.fields, given)
    }

    fn prepare(given: Vec<(&'static str, OptionValue)>) -> Result<Prepared, ParamError> {
        (CALL.prepare)(&OptionValues::complete(CALL.options, given))
    }

    #[test]
    fn an_error_in_a_stage_names_the_stage() {
        let parallel = |width: Option<u64>, k: Option<u64>| {
            let mut given = vec![("kind", OptionValue::Name("parallel"))];
            given.extend(width.map(|w| ("width", OptionValue::Count(w))));
            given.extend(k.map(|k| ("k", OptionValue::Count(k))));
            stage_values(given)
        };
        let single = stage_values(vec![("kind", OptionValue::Name("single"))]);
        let with =
            |stages: Vec<OptionValues>| prepare(vec![("stages", OptionValue::Records(stages))]);
        let e = with(vec![single.clone(), parallel(Some(5), Some(6))]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "stages[1].k must be an integer in 1..=width (5) (got 6)"
        );
        let e = with(vec![parallel(None, None)]).unwrap_err();
        assert_eq!(e.to_string(), "stages[0].width is required");
        assert!(e.is_shape());
        let wide_single = stage_values(vec![
            ("kind", OptionValue::Name("single")),
            ("width", OptionValue::Count(3)),
        ]);
        let e = with(vec![wide_single]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "stages[0].width of a single stage must be 1 (or left out)"
        );
        assert!(with(vec![single, parallel(Some(5), None)]).is_ok());
    }

    #[test]
    fn a_sweep_is_given_whole_or_not_at_all() {
        let e = prepare(vec![("sweepFromMs", OptionValue::Number(5.0))]).unwrap_err();
        assert_eq!(e.to_string(), "give sweepFromMs and sweepToMs together");
        assert!(e.is_shape());
        let e = prepare(vec![("sweepPoints", OptionValue::Count(4))]).unwrap_err();
        assert_eq!(e.to_string(), "sweepPoints needs sweepFromMs and sweepToMs");
        let p = prepare(vec![("requests", OptionValue::Count(10_000_000))]).unwrap();
        assert!(
            p.work
                .check()
                .unwrap_err()
                .starts_with("3 × requests × children")
        );
    }

    #[test]
    fn a_stage_given_alone_is_a_custom_graph_on_the_calls_service() {
        let o = OptionValues::complete(
            OPTIONS,
            vec![(
                "stages",
                OptionValue::Records(vec![stage_values(vec![(
                    "kind",
                    OptionValue::Name("single"),
                )])]),
            )],
        );
        let (graph, deadline) = graph_of(&o).unwrap();
        assert_eq!(
            (graph.name(), graph.children(), deadline),
            ("custom", 1, None)
        );
        assert_eq!(
            graph.stages()[0].service,
            StageService::Service(ServiceModel::default())
        );
    }
}
