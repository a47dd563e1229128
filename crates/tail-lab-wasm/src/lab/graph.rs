//! Request graphs (core `graph`): `simulateGraph`, and its closed form `graphTheory`.

use crate::convert::{Options, count, number, object, seed, string};
use crate::describe::js_of;
use crate::error::{range, wrong_type};
use crate::lab::service::service;
use js_sys::{RangeError, Reflect, TypeError};
use tail_lab_core::lab::graph::simulate::{REQUESTS_PER_CALL, SWEEP_POINTS};
use tail_lab_core::lab::graph::stages::{PRESETS, STAGES, WIDTH, preset};
use tail_lab_core::lab::graph::{
    Graph, GraphParams, GraphTheory, Stage, StageService, Sweep, simulate,
};
use tail_lab_core::lab::service::ServiceModel;
use wasm_bindgen::{JsCast, prelude::*};

#[wasm_bindgen(typescript_custom_section)]
const GRAPH_TS: &str = r#"
/** One stage of a request graph. */
export interface GraphStageOptions {
  /** One call, or `width` calls at once. */
  kind: "single" | "parallel";
  /** Children of a parallel stage, 1..=1000 (1 for a single stage). */
  width?: number;
  /** Answers a parallel stage waits for, 1..=width. Default: width (all of them). */
  k?: number;
  /** The children's service: any the Lab accepts, or exponential with a mean in ms
   * (0.2..=10000). Default: the call's `service`. */
  service?: ServiceOptions | { exponentialMs: number };
}
/** The graph of `simulateGraph` and `graphTheory`: a preset, or stages; give one, not both. */
export interface GraphOptions {
  /** A preset: `fanout` (100 leaves, all), `search` (auth → 10 shards → rank), `quorum`
   * (a 3-of-5 write), `chain` (three exponential stages, 5, 10 and 20 ms). Default `fanout`. */
  preset?: "fanout" | "search" | "quorum" | "chain";
  /** The stages, run one after another, 1..=8 of them. */
  stages?: GraphStageOptions[];
  /** The service of every stage that names none (a preset's Lab-model stages too); default:
   * the Lab's. */
  service?: ServiceOptions;
  /** The deadline (ms, > 0, at most 1e6): a request not complete by then answers with what
   * has arrived. Default: none. */
  deadlineMs?: number | null;
}
/** Options of `simulateGraph`: the graph keys of `GraphOptions`, and the run's. */
export interface SimulateGraphOptions {
  preset?: GraphOptions["preset"];
  stages?: GraphOptions["stages"];
  service?: GraphOptions["service"];
  deadlineMs?: GraphOptions["deadlineMs"];
  /** The sweep's first deadline (ms); with `sweepToMs`. Default: the theory's p10. */
  sweepFromMs?: number;
  /** The sweep's last deadline (ms). Default: twice the theory's p99.9. */
  sweepToMs?: number;
  /** Deadlines in the sweep, log-spaced, 2..=64. Default 24. */
  sweepPoints?: number;
  /** Requests simulated, 1..=1e7 (and 3 × requests × children at most the work limit).
   * Default 20000. */
  requests?: number;
  seed?: number | bigint;
}
/** A preset's stage as `graphPresets` lists it: `service` is "lab" for the call's service (the
 * Lab's model unless the call gives its own), or an exponential's mean. */
export interface GraphPresetStage {
  kind: "single" | "parallel";
  width: number;
  k: number;
  service: "lab" | { exponentialMs: number };
}
/** The closed forms of a request graph (`graphTheory`): exact for one stage, the numerical
 * convolution within `cdfError` otherwise. */
export interface GraphTheoryResult {
  /** Median completion time (ms), uncapped by the deadline. */
  p50: number;
  p99: number;
  p999: number;
  /** P(T > D) at the deadline (0 with none). */
  miss: number;
  /** Mean completeness at the deadline (1 with none). */
  completeness: number;
  /** True for a one-stage graph: every number exact. */
  exact: boolean;
  /** The convolution's stated error bound on P(T ≤ t). */
  cdfError: number;
}
"#;

const GRAPH_KEYS: [&str; 4] = ["preset", "stages", "service", "deadlineMs"];

/// `e` (a JS error about one stage's option) with `stages[i].` before its message.
fn in_stage(i: usize, e: JsValue) -> JsValue {
    let Some(err) = e.dyn_ref::<js_sys::Error>() else {
        return e;
    };
    let message = String::from(err.message());
    // The stage object's own errors say "stage …"; the others name one of its keys.
    let message = match message.strip_prefix("stage ") {
        Some(rest) => format!("stages[{i}] {rest}"),
        None => format!("stages[{i}].{message}"),
    };
    if e.is_instance_of::<RangeError>() {
        RangeError::new(&message).into()
    } else {
        TypeError::new(&message).into()
    }
}

/// One stage's service: `{ exponentialMs }`, any service the Lab accepts, or `default`.
fn stage_service(v: Option<JsValue>, default: &ServiceModel) -> Result<StageService, JsValue> {
    let Some(v) = v else {
        return Ok(StageService::Service(default.clone()));
    };
    let own = v.is_object()
        && Reflect::get_own_property_descriptor(
            v.unchecked_ref::<js_sys::Object>(),
            &"exponentialMs".into(),
        )?
        .is_object();
    if own {
        let o = Options::read("service", &v, &["exponentialMs"])?;
        let mean = o
            .get("exponentialMs")
            .ok_or_else(|| JsValue::from(TypeError::new("service.exponentialMs is required")))?;
        let mean = number("service.exponentialMs", &mean)?;
        return StageService::exponential(mean).map_err(|_| {
            RangeError::new(&format!(
                "service.exponentialMs must be a mean in ms in 0.2..=10000 (got {})",
                tail_lab_core::error::readable(mean)
            ))
            .into()
        });
    }
    Ok(StageService::Service(service(Some(v))?))
}

/// One stage from `{ kind, width, k, service }`.
fn stage(v: &JsValue, default: &ServiceModel) -> Result<Stage, JsValue> {
    let o = Options::read("stage", v, &["kind", "width", "k", "service"])?;
    let kind = o
        .get("kind")
        .ok_or_else(|| JsValue::from(TypeError::new("kind is required (single or parallel)")))?;
    let kind = string("kind", &kind)?;
    let service = stage_service(o.get("service"), default)?;
    match kind.as_str() {
        "single" => {
            for key in ["width", "k"] {
                if let Some(v) = o.get(key) {
                    if number(if key == "k" { "k" } else { "width" }, &v)? != 1.0 {
                        return Err(RangeError::new(&format!(
                            "{key} of a single stage must be 1 (or left out)"
                        ))
                        .into());
                    }
                }
            }
            Ok(Stage::single(service))
        }
        "parallel" => {
            let width = o
                .get("width")
                .ok_or_else(|| JsValue::from(TypeError::new("width is required")))?;
            let width = count("width", &width, &WIDTH)? as u32;
            let k = o.optional("k", width, |v| {
                let k = number("k", v)?;
                if k.fract() == 0.0 && (1.0..=f64::from(width)).contains(&k) {
                    Ok(k as u32)
                } else {
                    Err(RangeError::new(&format!(
                        "k must be an integer in 1..=width ({width}) (got {})",
                        tail_lab_core::error::readable(k)
                    ))
                    .into())
                }
            })?;
            Stage::parallel(width, k, service).map_err(range)
        }
        other => Err(RangeError::new(&format!(
            "kind must be one of single, parallel (got {})",
            tail_lab_core::error::echoed(other)
        ))
        .into()),
    }
}

/// The graph and the deadline from the options' graph keys.
fn graph_of(o: &Options) -> Result<(Graph, Option<f64>), JsValue> {
    let default = service(o.get("service"))?;
    let graph = match (o.get("preset"), o.get("stages")) {
        (Some(_), Some(_)) => {
            return Err(TypeError::new("give preset or stages, not both").into());
        }
        (None, Some(list)) => {
            if !js_sys::Array::is_array(&list) {
                return Err(wrong_type("stages", "an array of stages", &list));
            }
            let length = Reflect::get(&list, &"length".into())?
                .as_f64()
                .unwrap_or(f64::NAN);
            let n = count("stages.length", &JsValue::from(length), &STAGES)? as usize;
            let stages = (0..n)
                .map(|i| {
                    let v = Reflect::get(&list, &JsValue::from(i as u32))?;
                    stage(&v, &default).map_err(|e| in_stage(i, e))
                })
                .collect::<Result<Vec<_>, JsValue>>()?;
            Graph::new("custom", stages).map_err(range)?
        }
        (p, None) => {
            let name = p.map(|v| string("preset", &v)).transpose()?;
            let name = name.as_deref().unwrap_or("fanout");
            Graph::new(name, preset(name, &default).map_err(range)?).map_err(range)?
        }
    };
    let deadline = match o.get("deadlineMs") {
        None => None,
        Some(v) if v.is_null() => None,
        Some(v) => Some(number("deadlineMs", &v)?),
    };
    Ok((graph, deadline))
}

/// A request graph under a deadline: stages in series, each single or k-of-n parallel. The
/// answer time's percentiles, the miss share and the mean completeness beside their theory,
/// a deadline sweep from the same requests, and the completion survival.
#[wasm_bindgen(js_name = simulateGraph, unchecked_return_type = "GraphResult")]
pub fn simulate_graph(
    #[wasm_bindgen(unchecked_param_type = "SimulateGraphOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read(
        "options",
        &opts,
        &[
            GRAPH_KEYS[0],
            GRAPH_KEYS[1],
            GRAPH_KEYS[2],
            GRAPH_KEYS[3],
            "sweepFromMs",
            "sweepToMs",
            "sweepPoints",
            "requests",
            "seed",
        ],
    )?;
    let (graph, deadline_ms) = graph_of(&o)?;
    let requests = o.optional("requests", 20_000, |v| {
        count("requests", v, &REQUESTS_PER_CALL)
    })?;
    let seed = o.optional("seed", 1, |v| seed("seed", v))?;
    let sweep = match (o.get("sweepFromMs"), o.get("sweepToMs")) {
        (None, None) => {
            if o.get("sweepPoints").is_some() {
                return Err(TypeError::new("sweepPoints needs sweepFromMs and sweepToMs").into());
            }
            Sweep::Default
        }
        (Some(from), Some(to)) => Sweep::Between {
            from_ms: number("sweepFromMs", &from)?,
            to_ms: number("sweepToMs", &to)?,
            points: o.optional("sweepPoints", 24, |v| {
                count("sweepPoints", v, &SWEEP_POINTS).map(|p| p as usize)
            })?,
        },
        _ => return Err(TypeError::new("give sweepFromMs and sweepToMs together").into()),
    };
    let params = GraphParams {
        graph,
        deadline_ms,
        sweep,
        requests,
        seed,
    };
    crate::convert::check_work("3 × requests × children", params.work_units())?;
    Ok(js_of(&simulate(&params).map_err(range)?))
}

/// The presets, in the page's order, with their stages: what `preset` names.
#[wasm_bindgen(js_name = graphPresets, unchecked_return_type = "{ name: string; stages: GraphPresetStage[] }[]")]
pub fn graph_presets() -> JsValue {
    let lab = ServiceModel::default();
    PRESETS
        .iter()
        .map(|&name| {
            let stages: js_sys::Array = preset(name, &lab)
                .expect("a preset")
                .iter()
                .map(|s| {
                    let service = match &s.service {
                        StageService::Service(_) => JsValue::from_str("lab"),
                        StageService::Exponential(mean) => {
                            object(&[("exponentialMs", (*mean).into())])
                        }
                    };
                    let kind = if s.is_parallel() {
                        "parallel"
                    } else {
                        "single"
                    };
                    object(&[
                        ("kind", kind.into()),
                        ("width", s.width().into()),
                        ("k", s.k().into()),
                        ("service", service),
                    ])
                })
                .collect();
            object(&[("name", name.into()), ("stages", stages.into())])
        })
        .collect::<js_sys::Array>()
        .into()
}

/// The closed forms of a request graph (the graph keys of [`simulate_graph`]): its completion
/// time's p50, p99 and p99.9 (ms), and at the deadline the miss share and mean completeness.
#[wasm_bindgen(js_name = graphTheory, unchecked_return_type = "GraphTheoryResult")]
pub fn graph_theory(
    #[wasm_bindgen(unchecked_param_type = "GraphOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read("options", &opts, &GRAPH_KEYS)?;
    let (graph, deadline_ms) = graph_of(&o)?;
    if let Some(d) = deadline_ms {
        if !(d > 0.0 && d <= 1e6) {
            return Err(RangeError::new(&format!(
                "deadlineMs must be a deadline in ms, > 0 and at most 1e6 (got {})",
                tail_lab_core::error::readable(d)
            ))
            .into());
        }
    }
    let th = GraphTheory::new(&graph);
    Ok(object(&[
        ("p50", th.quantile(0.5).into()),
        ("p99", th.quantile(0.99).into()),
        ("p999", th.quantile(0.999).into()),
        ("miss", deadline_ms.map_or(0.0, |d| th.miss(d)).into()),
        (
            "completeness",
            deadline_ms.map_or(1.0, |d| th.completeness(d)).into(),
        ),
        ("exact", th.exact().into()),
        ("cdfError", th.cdf_error().into()),
    ]))
}
