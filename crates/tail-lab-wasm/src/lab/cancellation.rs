//! Cancellation delay (core `cancellation`): `cancellationSweep` (the standard delays), read
//! from the options the core declares (`simulateCancellation`, one delay, is generated:
//! `crate::api`).

use crate::describe::js_of;
use crate::error::range;
use tail_lab_core::lab::cancellation::{
    CancellationParams, SWEEP_DELAYS_MS, SWEEP_OPTIONS, simulate, sweep_params, sweep_work,
};
use wasm_bindgen::prelude::*;

/// The standard delays (0, 2, 5, 10, 20, 50, 100, 200, 500 ms and ∞) at one load, in order:
/// the report's `cancellation` list when run with its requests and seed.
#[wasm_bindgen(js_name = cancellationSweep, unchecked_return_type = "CancellationResult[]")]
pub fn cancellation_sweep(
    #[wasm_bindgen(unchecked_param_type = "CancellationOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = crate::api::read_options(SWEEP_OPTIONS, &[], &opts)?;
    let p = sweep_params(&o).map_err(range)?;
    crate::api::check_work(&sweep_work(&p, true))?;
    SWEEP_DELAYS_MS
        .iter()
        .map(|&d| {
            simulate(&CancellationParams {
                cancel_delay_ms: d,
                ..p.clone()
            })
            .map(|r| js_of(&r))
            .map_err(range)
        })
        .collect::<Result<js_sys::Array, _>>()
        .map(Into::into)
}
