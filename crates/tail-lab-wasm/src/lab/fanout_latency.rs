//! Fan-out latency (core `fanout_latency`): `simulateFanoutLatency` and its closed forms,
//! `fanoutLatencyTheory`.

use crate::convert::{Options, count, number, object, seed};
use crate::describe::js_of;
use crate::error::range;
use crate::lab::service::service;
use js_sys::TypeError;
use tail_lab_core::lab::fanout_latency::{
    FanoutLatencyParams, REQUESTS_PER_CALL, simulate, simulate_on, theory, theory_on,
};
use tail_lab_core::theory::FANOUT;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const FANOUT_LATENCY_TS: &str = r#"
/** Options of `simulateFanoutLatency`: the Lab's service model, its slow mode taken with
 * probability `p`, at every one of `n` leaves; the parent waits for all of them. */
export interface FanoutLatencyOptions {
  /** Probability (0..1) that a leaf takes the slow mode. Default 0.01. */
  p?: number;
  /** Draw every leaf from this model instead (your own latencies, say); then give no `p`. */
  service?: ServiceOptions;
  /** Leaves per request, 1..=1024. Default 100. */
  n?: number;
  /** Parent requests simulated, 2..=1e7 (and 2 × requests × n at most the work limit). Default 20000. */
  requests?: number;
  seed?: number | bigint;
}
/** The closed forms of `simulateFanoutLatency` at one (p, n), in ms. */
export interface FanoutLatencyTheory {
  /** The parent's mean: ∫₀^∞ (1 − F(t)^n) dt. */
  parentMean: number;
  /** The parent's median: F⁻¹(0.5^(1/n)). */
  parentP50: number;
  /** The parent's p99: F⁻¹(0.99^(1/n)). */
  parentP99: number;
  leafMean: number;
  leafP50: number;
  leafP99: number;
}
"#;

/// The parent's latency when it waits for all `n` leaves, each from the Lab's service model
/// with slow probability `p`: the parents' and the leaves' mean, median and p99, beside the
/// closed forms.
#[wasm_bindgen(js_name = simulateFanoutLatency, unchecked_return_type = "FanoutLatencyResult")]
pub fn simulate_fanout_latency(
    #[wasm_bindgen(unchecked_param_type = "FanoutLatencyOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read("options", &opts, &["p", "n", "requests", "seed", "service"])?;
    let model = match (o.get("service"), o.get("p")) {
        (Some(_), Some(_)) => {
            return Err(TypeError::new("give p or service, not both").into());
        }
        (Some(v), None) => Some(service(Some(v))?),
        (None, _) => None,
    };
    let p = o.optional("p", 0.01, |v| number("p", v))?;
    let n = o.optional("n", 100, |v| count("n", v, &FANOUT).map(|n| n as u32))?;
    let requests = o.optional("requests", 20_000, |v| {
        count("requests", v, &REQUESTS_PER_CALL)
    })?;
    let seed = o.optional("seed", 1, |v| seed("seed", v))?;
    let params = FanoutLatencyParams {
        p,
        n,
        requests,
        seed,
    };
    crate::convert::check_work("2 × requests × n", params.work_units())?;
    let result = match model {
        Some(m) => simulate_on(m, n, requests, seed),
        None => simulate(params),
    };
    Ok(js_of(&result.map_err(range)?))
}

/// The closed forms of [`simulate_fanout_latency`] at slow probability `p` (0..=1) and fan-out
/// `n` (1..=1024): the parent's and the leaf's mean, median and p99 (ms). With a `service`
/// (your own latencies), the leaves are that model's and `p` is not read.
#[wasm_bindgen(js_name = fanoutLatencyTheory, unchecked_return_type = "FanoutLatencyTheory")]
pub fn fanout_latency_theory(
    #[wasm_bindgen(unchecked_param_type = "number")] p: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] n: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ServiceOptions | undefined")] service_options: JsValue,
) -> Result<JsValue, JsValue> {
    let n = count("n", &n, &FANOUT)? as u32;
    let t = if service_options.is_undefined() {
        theory(number("p", &p)?, n)
    } else {
        theory_on(&service(Some(service_options))?, n)
    }
    .map_err(range)?;
    Ok(object(&[
        ("parentMean", t.parent_mean_ms.into()),
        ("parentP50", t.parent_p50_ms.into()),
        ("parentP99", t.parent_p99_ms.into()),
        ("leafMean", t.leaf_mean_ms.into()),
        ("leafP50", t.leaf_p50_ms.into()),
        ("leafP99", t.leaf_p99_ms.into()),
    ]))
}
