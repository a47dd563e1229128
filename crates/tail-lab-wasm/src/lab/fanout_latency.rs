//! Fan-out latency (core `fanout_latency`): its closed forms, `fanoutLatencyTheory`
//! (`simulateFanoutLatency` is generated: `crate::api`).

use crate::api::service;
use crate::convert::{count, number, object};
use crate::error::range;
use tail_lab_core::lab::fanout_latency::{theory, theory_on};
use tail_lab_core::theory::FANOUT;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const FANOUT_LATENCY_TS: &str = r#"
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

/// The closed forms of `simulateFanoutLatency` at slow probability `p` (0..=1) and fan-out
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
