//! Run lengths chosen by precision (core `lab::precision`): `runLengths`, the one table of
//! targets and caps that the charts' notes quote.

use crate::convert::object;
use tail_lab_core::lab::precision::RUN_LENGTHS;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const RUN_LENGTHS_TS: &str = r#"
/** One model's run-length rule: what a point run with its length option "auto" aims for. */
export interface RunLength {
  /** The model's report key ("queue", "balance"). */
  model: string;
  /** The call's length option ("requests" or "arrivals"). */
  size: string;
  /** Target half-width of the mean's 95% interval, as a fraction of the mean. */
  mean: number;
  /** Target half-width of the p99's 95% interval, as a fraction of the p99. */
  p99: number;
  /** The pilot's length, on its own seed. */
  pilot: number;
  /** Shortest planned run. */
  floor: number;
  /** Longest planned run. */
  cap: number;
}
"#;

/// The run-length rules, one per model whose points may be run to a precision (the core's
/// `RUN_LENGTHS`).
#[wasm_bindgen(js_name = runLengths, unchecked_return_type = "RunLength[]")]
pub fn run_lengths() -> JsValue {
    RUN_LENGTHS
        .iter()
        .map(|r| {
            object(&[
                ("model", r.model.into()),
                ("size", r.size.into()),
                ("mean", r.mean.into()),
                ("p99", r.p99.into()),
                ("pilot", (r.pilot as f64).into()),
                ("floor", (r.floor as f64).into()),
                ("cap", (r.cap as f64).into()),
            ])
        })
        .collect::<js_sys::Array>()
        .into()
}
