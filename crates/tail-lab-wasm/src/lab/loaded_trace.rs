//! A trace of a loaded run (core `loaded::trace`): `traceLoaded`, each replica's primaries and
//! backups after each event, for the loaded section's animation of its queues.

use crate::convert::object;
use crate::describe::js_of;
use crate::error::range;
use js_sys::{Float64Array, Uint8Array, Uint32Array};
use tail_lab_core::lab::loaded::trace::{trace, trace_on};
use tail_lab_core::lab::loaded::{TRACE_OPTIONS, trace_params};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const LOADED_TRACE_TS: &str = r#"
/**
 * The events of a loaded run's window, in order: event `i` happened at `times[i]` (ms) and was
 * an arrival (`kind` 0), a hedge timer (1) or a completion (2); after it replica `r` held
 * `primaries[i * replicas + r]` primaries and `backups[i * replicas + r]` backups, queued or
 * in service. `summary` is the traced run's result (the same as an untraced run's).
 */
export interface LoadedTrace {
  replicas: number;
  times: Float64Array;
  kind: Uint8Array;
  primaries: Uint32Array;
  backups: Uint32Array;
  summary: LoadedResult;
}
"#;

/// Runs the Lab's loaded replicas and returns each replica's queue after each event (typed
/// arrays, copied out of wasm memory).
#[wasm_bindgen(js_name = traceLoaded, unchecked_return_type = "LoadedTrace")]
pub fn trace_loaded(
    #[wasm_bindgen(unchecked_param_type = "LoadedTraceOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = crate::api::read_options(TRACE_OPTIONS, &[], &opts)?;
    let params = trace_params(&o).map_err(range)?;
    let t = match o.given_service("service") {
        None => trace(params),
        Some(model) => trace_on(params, model),
    }
    .map_err(range)?;
    Ok(object(&[
        ("replicas", t.replicas.into()),
        ("times", Float64Array::from(&t.times[..]).into()),
        ("kind", Uint8Array::from(&t.kind[..]).into()),
        ("primaries", Uint32Array::from(&t.primaries[..]).into()),
        ("backups", Uint32Array::from(&t.backups[..]).into()),
        ("summary", js_of(&t.summary)),
    ]))
}
