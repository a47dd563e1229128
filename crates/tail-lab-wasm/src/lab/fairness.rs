//! Fairness to a tenant that does not hedge (core `fairness`): `fairnessSweep` (the standard
//! loads), read from the options the core declares (`simulateFairness`, one load, is
//! generated: `crate::api`).

use crate::describe::js_of;
use crate::error::range;
use tail_lab_core::lab::fairness::{
    FairnessParams, SWEEP_LOADS, SWEEP_OPTIONS, params, simulate, sweep_work,
};
use wasm_bindgen::prelude::*;

/// The standard loads (0.1..=0.8 in steps of 0.1), in order: the report's `fairness` list when
/// run with its requests and seed.
#[wasm_bindgen(js_name = fairnessSweep, unchecked_return_type = "FairnessResult[]")]
pub fn fairness_sweep(
    #[wasm_bindgen(unchecked_param_type = "FairnessOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = crate::api::read_options(SWEEP_OPTIONS, &[], &opts)?;
    let p = params(&o).map_err(range)?;
    crate::api::check_work(&sweep_work(&p, true))?;
    SWEEP_LOADS
        .iter()
        .map(|&load| {
            simulate(&FairnessParams { load, ..p.clone() })
                .map(|r| js_of(&r))
                .map_err(range)
        })
        .collect::<Result<js_sys::Array, _>>()
        .map(Into::into)
}
