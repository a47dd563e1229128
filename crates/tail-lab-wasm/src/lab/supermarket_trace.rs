//! A trace of the supermarket chain (core `supermarket::trace`): `traceSupermarket`, the
//! events of a small system for the balance section's animation of its queues, read from the
//! options the core declares (`SupermarketTraceOptions`, rendered with `simulateBalance`'s).

use crate::convert::object;
use crate::error::range;
use js_sys::{Float64Array, Uint8Array, Uint32Array};
use tail_lab_core::lab::supermarket::trace::{TRACE_OPTIONS, trace, trace_params};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const SUPERMARKET_TRACE_TS: &str = r#"
/**
 * The events of a supermarket run's window, in order. Event `i` happened at `times[i]` (mean
 * service times); it was an arrival that joined `server[i]` when `arrival[i]` is 1, else a
 * departure from it; after it, server `s` held `lengths[i * servers + s]` jobs. The `j`-th
 * arrival sampled `sampled[j * d .. (j + 1) * d]` (draw order) and joined the first shortest.
 */
export interface SupermarketTrace {
  servers: number;
  d: number;
  times: Float64Array;
  server: Uint32Array;
  arrival: Uint8Array;
  sampled: Uint32Array;
  lengths: Uint32Array;
}
"#;

/// Runs a small supermarket system and returns its events (typed arrays, copied out of wasm
/// memory).
#[wasm_bindgen(js_name = traceSupermarket, unchecked_return_type = "SupermarketTrace")]
pub fn trace_supermarket(
    #[wasm_bindgen(unchecked_param_type = "SupermarketTraceOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = crate::api::read_options(TRACE_OPTIONS, &[], &opts)?;
    let t = trace(trace_params(&o).map_err(range)?).map_err(range)?;
    Ok(object(&[
        ("servers", t.servers.into()),
        ("d", t.d.into()),
        ("times", Float64Array::from(&t.times[..]).into()),
        ("server", Uint32Array::from(&t.server[..]).into()),
        ("arrival", Uint8Array::from(&t.arrival[..]).into()),
        ("sampled", Uint32Array::from(&t.sampled[..]).into()),
        ("lengths", Uint32Array::from(&t.lengths[..]).into()),
    ]))
}
