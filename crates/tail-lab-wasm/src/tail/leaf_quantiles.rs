//! The measured leaf distribution (core `leaf_quantiles`): `leafQuantile`, `parentQuantile`.

use crate::convert::{count, number};
use crate::error::range;
use crate::tail::request::{Settings, with_model};
use tail_lab_core::error::check_quantile_level;
use tail_lab_core::theory::FANOUT;
use wasm_bindgen::prelude::*;

/// A quantile level in 0..=1, checked by the core's rule before any work is done.
pub fn level(param: &'static str, v: &JsValue) -> Result<f64, JsValue> {
    check_quantile_level(param, number(param, v)?).map_err(range)
}

/// The measured leaf `q`-quantile (ms) of `cfg`'s profile and seed.
#[wasm_bindgen(js_name = leafQuantile)]
pub fn leaf_quantile(
    #[wasm_bindgen(unchecked_param_type = "number")] q: JsValue,
    #[wasm_bindgen(unchecked_param_type = "TailOptions | undefined")] cfg: JsValue,
) -> Result<f64, JsValue> {
    let q = level("q", &q)?;
    let settings = Settings::read(&cfg, &Settings::default())?;
    with_model(&settings, |m| m.leaf_quantiles().quantile(q))?.map_err(range)
}

/// The parent's `q`-quantile (ms) at fan-out `n`, from `F(t)^n` on the measured leaves.
#[wasm_bindgen(js_name = parentQuantile)]
pub fn parent_quantile(
    #[wasm_bindgen(unchecked_param_type = "number")] q: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] n: JsValue,
    #[wasm_bindgen(unchecked_param_type = "TailOptions | undefined")] cfg: JsValue,
) -> Result<f64, JsValue> {
    let q = level("q", &q)?;
    let n = count("n", &n, &FANOUT)? as u32;
    let settings = Settings::read(&cfg, &Settings::default())?;
    with_model(&settings, |m| m.leaf_quantiles().parent_quantile(q, n))?.map_err(range)
}
