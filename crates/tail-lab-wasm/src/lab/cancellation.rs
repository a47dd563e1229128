//! Cancellation delay (core `cancellation`): `simulateCancellation` (one delay) and
//! `cancellationSweep` (the standard delays).

use crate::convert::{Options, check_work, count, number, seed, string};
use crate::describe::js_of;
use crate::error::range;
use crate::lab::service::service;
use tail_lab_core::lab::cancellation::{
    CancellationParams, REQUESTS_PER_RUN, SWEEP_DELAYS_MS, simulate,
};
use tail_lab_core::lab::loaded::{Cancellation, REPLICAS};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const CANCELLATION_TS: &str = r#"
/** Options of `simulateCancellation` and `cancellationSweep`: hedging on loaded replicas when
 * the cancel a request sends its losing copy lands `cancelDelayMs` after the answer. */
export interface CancellationOptions {
  /** Offered utilisation before backups, in [0.001, 2]. Default 0.5. */
  load?: number;
  /** The delay (ms) between the answer and the cancel landing: 0..=1e9, or Infinity (it never lands). Default 10. `simulateCancellation` only. */
  cancelDelayMs?: number;
  /** What a landing cancel does to the losing copy. Default "either-any" (either loser stopped, even mid-hiccup). */
  cancellation?: "backup" | "either" | "either-any" | "queued" | "never";
  /** Look for the load at which duplicating stops winning, by bisection (12 more runs). Default true. */
  bisect?: boolean;
  /** Requests per run, 1000..=1e6. Default 20000 (`cancellationSweep`: 10000). */
  requests?: number;
  /** FIFO replicas, 2..=1000. Default 10. */
  replicas?: number;
  seed?: number | bigint;
  /** Your own service model; default: the Lab's. */
  service?: ServiceOptions;
}
"#;

const POINT_KEYS: &[&str] = &[
    "load",
    "cancelDelayMs",
    "cancellation",
    "bisect",
    "requests",
    "replicas",
    "seed",
    "service",
];
const SWEEP_KEYS: &[&str] = &[
    "load",
    "cancellation",
    "bisect",
    "requests",
    "replicas",
    "seed",
    "service",
];

fn params(opts: &JsValue, sweep: bool) -> Result<CancellationParams, JsValue> {
    let o = Options::read("options", opts, if sweep { SWEEP_KEYS } else { POINT_KEYS })?;
    let defaults = CancellationParams::at_delay(10.0);
    let load = o.optional("load", defaults.load, |v| number("load", v))?;
    let cancel_delay_ms = o.optional("cancelDelayMs", 10.0, |v| number("cancelDelayMs", v))?;
    let cancellation = o.optional("cancellation", defaults.cancellation, |v| {
        Cancellation::from_name(&string("cancellation", v)?).map_err(range)
    })?;
    let bisect = o.optional("bisect", true, |v| {
        v.as_bool()
            .ok_or_else(|| crate::error::wrong_type("bisect", "a boolean", v))
    })?;
    let requests = o.optional("requests", if sweep { 10_000 } else { 20_000 }, |v| {
        count("requests", v, &REQUESTS_PER_RUN)
    })?;
    let replicas = o.optional("replicas", defaults.replicas, |v| {
        count("replicas", v, &REPLICAS).map(|n| n as u32)
    })?;
    let seed = o.optional("seed", 1, |v| seed("seed", v))?;
    let service = service(o.get("service"))?;
    Ok(CancellationParams {
        replicas,
        load,
        cancellation,
        cancel_delay_ms,
        requests,
        seed,
        service,
        bisect,
    })
}

/// One cancellation delay at one load: no backups, the hedge and duplicating, and (unless
/// `bisect: false`) the load at which duplicating stops winning.
#[wasm_bindgen(js_name = simulateCancellation, unchecked_return_type = "CancellationResult")]
pub fn simulate_cancellation(
    #[wasm_bindgen(unchecked_param_type = "CancellationOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let p = params(&opts, false)?;
    // The run count comes from the core (`runs()`), so the message cannot drift from the bound.
    check_work(
        &format!("requests × 60 × {} runs", p.runs()),
        p.work_units(),
    )?;
    Ok(js_of(&simulate(&p).map_err(range)?))
}

/// The standard delays (0, 2, 5, 10, 20, 50, 100, 200, 500 ms and ∞) at one load, in order:
/// the report's `cancellation` list when run with its requests and seed.
#[wasm_bindgen(js_name = cancellationSweep, unchecked_return_type = "CancellationResult[]")]
pub fn cancellation_sweep(
    #[wasm_bindgen(unchecked_param_type = "CancellationOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let p = params(&opts, true)?;
    check_work(
        &format!(
            "requests × 60 × {} runs × {} delays",
            p.runs(),
            SWEEP_DELAYS_MS.len()
        ),
        p.work_units() * SWEEP_DELAYS_MS.len() as f64,
    )?;
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
