//! Hedging on idle replicas (core `hedge_idle`): `simulateHedge`.

use crate::convert::{Options, count, number, seed};
use crate::describe::js_of;
use crate::error::range;
use crate::lab::service::service;
use js_sys::TypeError;
use tail_lab_core::lab::hedge_idle::{IdleHedge, REQUESTS_PER_CALL};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const HEDGE_TS: &str = r#"
/** Options of `simulateHedge`. Give `delayQ` or `delayMs`, not both. */
export interface HedgeOptions {
  /** The hedge delay as a quantile level of the service time, in (0, 1). Default 0.95. */
  delayQ?: number;
  /** The hedge delay in ms (≥ 0), instead of `delayQ`. */
  delayMs?: number;
  /** Requests simulated, 1..=1e7. Default 200000. */
  requests?: number;
  seed?: number | bigint;
  /** Your own service model; default: the Lab's. */
  service?: ServiceOptions;
}
"#;

/// Hedged requests on idle replicas: the backup goes out once the primary has been
/// outstanding for the delay, and the first answer wins.
#[wasm_bindgen(js_name = simulateHedge, unchecked_return_type = "HedgeResult")]
pub fn simulate_hedge(
    #[wasm_bindgen(unchecked_param_type = "HedgeOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read(
        "options",
        &opts,
        &["delayQ", "delayMs", "requests", "seed", "service"],
    )?;
    let requests = o.optional("requests", 200_000, |v| {
        count("requests", v, &REQUESTS_PER_CALL)
    })?;
    let seed = o.optional("seed", 1, |v| seed("seed", v))?;
    let model = service(o.get("service"))?;
    let delay_ms = o
        .get("delayMs")
        .map(|v| number("delayMs", &v))
        .transpose()?;
    let hedge = match (delay_ms, o.get("delayQ")) {
        (Some(_), Some(_)) => {
            return Err(TypeError::new("give delayQ or delayMs, not both").into());
        }
        (Some(ms), None) => IdleHedge::with_delay_ms(model, ms, seed),
        (None, q) => {
            let q = q.map(|v| number("delayQ", &v)).transpose()?.unwrap_or(0.95);
            IdleHedge::new(model, q, seed)
        }
    }
    .map_err(range)?;
    Ok(js_of(&hedge.run_with_curves(requests).map_err(range)?))
}
