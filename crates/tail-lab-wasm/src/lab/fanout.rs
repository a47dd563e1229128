//! Fan-out (core `fanout`): `simulateFanout`.

use crate::convert::{Options, count, number, seed};
use crate::describe::js_of;
use crate::error::range;
use tail_lab_core::lab::fanout::{FanoutParams, REQUESTS_PER_CALL, simulate};
use tail_lab_core::theory::FANOUT;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const FANOUT_TS: &str = r#"
/** Options of `simulateFanout`. */
export interface FanoutOptions {
  /** Probability (0..1) that one leaf is slow. Default 0.01. */
  p?: number;
  /** Leaves per request, 1..=1024. Default 100. */
  n?: number;
  /** Requests simulated, 1..=1e7. Default 100000. */
  requests?: number;
  seed?: number | bigint;
}
"#;

/// The share of `requests` simulated parents over `n` leaves that meet a slow leaf, beside
/// `1 − (1 − p)^n`.
#[wasm_bindgen(js_name = simulateFanout, unchecked_return_type = "FanoutResult")]
pub fn simulate_fanout(
    #[wasm_bindgen(unchecked_param_type = "FanoutOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read("options", &opts, &["p", "n", "requests", "seed"])?;
    let p = o.optional("p", 0.01, |v| number("p", v))?;
    let n = o.optional("n", 100, |v| count("n", v, &FANOUT).map(|n| n as u32))?;
    let requests = o.optional("requests", 100_000, |v| {
        count("requests", v, &REQUESTS_PER_CALL)
    })?;
    let seed = o.optional("seed", 1, |v| seed("seed", v))?;
    crate::convert::check_work("requests × n", requests as f64 * f64::from(n))?;
    let params = FanoutParams {
        p,
        n,
        requests,
        seed,
    };
    Ok(js_of(&simulate(params).map_err(range)?))
}
