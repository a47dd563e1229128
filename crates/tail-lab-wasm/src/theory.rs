//! Closed forms (core `theory`).

use crate::convert::{count, number};
use crate::error::range;
use tail_lab_core::theory;
use wasm_bindgen::prelude::*;

fn fanout(param: &'static str, v: &JsValue) -> Result<u32, JsValue> {
    Ok(count(param, v, &theory::FANOUT)? as u32)
}

/// `1 − (1 − p)^n`: the share of requests that meet at least one slow leaf.
#[wasm_bindgen(js_name = slowShare)]
pub fn slow_share(
    #[wasm_bindgen(unchecked_param_type = "number")] p: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] n: JsValue,
) -> Result<f64, JsValue> {
    theory::slow_share(number("p", &p)?, fanout("n", &n)?).map_err(range)
}

/// The smallest fan-out at which the parent's `q`-quantile reaches the leaf's `leafQ`-quantile.
#[wasm_bindgen]
pub fn crossover(
    #[wasm_bindgen(unchecked_param_type = "number")] q: JsValue,
    #[wasm_bindgen(js_name = leafQ, unchecked_param_type = "number")] leaf_q: JsValue,
) -> Result<f64, JsValue> {
    theory::crossover(number("q", &q)?, number("leafQ", &leaf_q)?)
        .map(|n| n as f64)
        .map_err(range)
}

/// The leaf quantile level the parent's `q`-quantile sits at: `q^(1/n)`.
#[wasm_bindgen(js_name = parentLevel)]
pub fn parent_level(
    #[wasm_bindgen(unchecked_param_type = "number")] q: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] n: JsValue,
) -> Result<f64, JsValue> {
    theory::parent_level(number("q", &q)?, fanout("n", &n)?).map_err(range)
}
