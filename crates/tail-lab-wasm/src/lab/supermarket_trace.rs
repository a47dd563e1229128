//! A trace of the supermarket chain (core `supermarket::trace`): `traceSupermarket`, the
//! events of a small system for the balance section's animation of its queues.

use crate::convert::{Options, count, number, object, seed};
use crate::error::range;
use js_sys::{Float64Array, Uint8Array, Uint32Array};
use tail_lab_core::lab::supermarket::trace::{
    SupermarketTraceParams, TRACE_ARRIVALS, TRACE_SERVERS, TRACE_WARMUP, trace,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const SUPERMARKET_TRACE_TS: &str = r#"
/** Options of `traceSupermarket`. `policy` and `d` name the same thing; give either. */
export interface SupermarketTraceOptions {
  /** Arrival rate per server in units of the service rate, 0.001..<1. Default 0.9. */
  lambda?: number;
  policy?: "random" | "two" | "three";
  /** Servers sampled per arrival, 1..=servers. Default 2. */
  d?: number;
  /** Servers, 1..=32. Default 10. */
  servers?: number;
  /** Arrivals recorded, 1..=50000. Default 200. */
  arrivals?: number;
  /** Arrivals run (from empty) before the first recorded, 0..=20000. Default 1000. */
  warmup?: number;
  seed?: number | bigint;
}
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
    let o = Options::read(
        "options",
        &opts,
        &[
            "lambda", "policy", "d", "servers", "arrivals", "warmup", "seed",
        ],
    )?;
    let defaults = SupermarketTraceParams::default();
    let lambda = o.optional("lambda", defaults.lambda, |v| number("lambda", v))?;
    let d = crate::lab::supermarket::choices_option(&o, defaults.d)?;
    let servers = o.optional("servers", defaults.servers, |v| {
        count("servers", v, &TRACE_SERVERS).map(|n| n as u32)
    })?;
    let arrivals = o.optional("arrivals", defaults.arrivals, |v| {
        count("arrivals", v, &TRACE_ARRIVALS)
    })?;
    let warmup = o.optional("warmup", defaults.warmup, |v| {
        count("warmup", v, &TRACE_WARMUP)
    })?;
    let seed = o.optional("seed", defaults.seed, |v| seed("seed", v))?;
    let t = trace(SupermarketTraceParams {
        servers,
        lambda,
        d,
        arrivals,
        warmup,
        seed,
    })
    .map_err(range)?;
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
