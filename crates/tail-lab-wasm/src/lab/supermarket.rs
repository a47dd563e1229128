//! The power of d choices (core `supermarket`): `fixedPointMeanTime` and `fixedPointShare`
//! (`simulateBalance` is generated: `crate::api`).

use crate::convert::{count, number};
use crate::error::range;
use tail_lab_core::lab::supermarket::{FIXED_POINT_D, FIXED_POINT_LEVEL};
use wasm_bindgen::prelude::*;

/// Mitzenmacher's fixed point `Σ_{i≥1} λ^((d^i − d)/(d − 1))` for the mean time in system
/// with `d` choices as servers → ∞ (`1/(1 − λ)` for d = 1); `null` when λ ≥ 1.
#[wasm_bindgen(js_name = fixedPointMeanTime)]
pub fn fixed_point(
    #[wasm_bindgen(unchecked_param_type = "number")] lambda: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] d: JsValue,
) -> Result<Option<f64>, JsValue> {
    let lambda = number("lambda", &lambda)?;
    let d = count("d", &d, &FIXED_POINT_D)? as u32;
    tail_lab_core::lab::supermarket::fixed_point(lambda, d).map_err(range)
}

/// Mitzenmacher's fixed point `sᵢ = λ^((dⁱ − 1)/(d − 1))` (`λ^i` for d = 1): the share of
/// servers holding at least `i` jobs as servers → ∞; `null` when λ ≥ 1.
#[wasm_bindgen(js_name = fixedPointShare)]
pub fn fixed_point_share(
    #[wasm_bindgen(unchecked_param_type = "number")] lambda: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] d: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] i: JsValue,
) -> Result<Option<f64>, JsValue> {
    let lambda = number("lambda", &lambda)?;
    let d = count("d", &d, &FIXED_POINT_D)? as u32;
    let i = count("i", &i, &FIXED_POINT_LEVEL)? as u32;
    tail_lab_core::lab::supermarket::fixed_point_share(lambda, d, i).map_err(range)
}
