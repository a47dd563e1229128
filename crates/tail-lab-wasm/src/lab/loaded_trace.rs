//! A trace of a loaded run (core `loaded::trace`): `traceLoaded`, each replica's primaries and
//! backups after each event, for the loaded section's animation of its queues.

use crate::convert::{Options, count, number, object, seed};
use crate::describe::js_of;
use crate::error::range;
use js_sys::{Float64Array, Uint8Array, Uint32Array};
use tail_lab_core::lab::loaded::trace::{
    LoadedTraceParams, TRACE_REPLICAS, TRACE_REQUESTS, TRACE_WARMUP, trace, trace_on,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const LOADED_TRACE_TS: &str = r#"
/** Options of `traceLoaded` (the Lab's service model). */
export interface LoadedTraceOptions {
  /** Offered utilisation before backups, 0.001..=0.99. Default 0.7. */
  load?: number;
  /** Used when `delay` is absent. Default "none". */
  policy?: "none" | "hedge" | "duplicate";
  /** Send the backup after this many ms (≥ 0); 0 duplicates every request. Overrides `policy`. */
  delay?: number;
  /** What the "hedge" policy's p95 delay is measured on. Default "loaded". */
  delayBasis?: "loaded" | "idle";
  /** What happens to the copy that did not answer first. Default "backup". */
  cancellation?: "backup" | "either" | "either-any" | "queued" | "never";
  /** FIFO replicas, 2..=16. Default 10. */
  replicas?: number;
  /** Requests whose arrivals the window spans, 1..=20000. Default 300. */
  requests?: number;
  /** Requests run (from empty) before the window opens, 0..=20000. Default 2000. */
  warmup?: number;
  /** Your own service model; default: the Lab's. */
  service?: ServiceOptions;
  seed?: number | bigint;
}
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
    let o = Options::read(
        "options",
        &opts,
        &[
            "load",
            "policy",
            "delay",
            "delayBasis",
            "cancellation",
            "replicas",
            "requests",
            "warmup",
            "seed",
            "service",
        ],
    )?;
    let defaults = LoadedTraceParams::default();
    let load = o.optional("load", defaults.load, |v| number("load", v))?;
    let replicas = o.optional("replicas", defaults.replicas, |v| {
        count("replicas", v, &TRACE_REPLICAS).map(|n| n as u32)
    })?;
    let requests = o.optional("requests", defaults.requests, |v| {
        count("requests", v, &TRACE_REQUESTS)
    })?;
    let warmup = o.optional("warmup", defaults.warmup, |v| {
        count("warmup", v, &TRACE_WARMUP)
    })?;
    let seed = o.optional("seed", defaults.seed, |v| seed("seed", v))?;
    let (policy, cancellation) = crate::lab::loaded::policy_options(&o)?;
    let params = LoadedTraceParams {
        replicas,
        load,
        policy,
        cancellation,
        requests,
        warmup,
        seed,
    };
    let t = match o.get("service") {
        None => trace(params),
        Some(v) => trace_on(params, crate::lab::service::service(Some(v))?),
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
