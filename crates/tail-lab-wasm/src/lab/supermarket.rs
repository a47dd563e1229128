//! The power of d choices (core `supermarket`): `simulateBalance` and `fixedPointMeanTime`.

use crate::convert::{Options, integer, number, seed, string};
use crate::describe::js_of;
use crate::error::range;
use js_sys::RangeError;
use tail_lab_core::lab::supermarket::{
    DEFAULT_SERVERS, POLICIES, SupermarketConfig, fixed_point_mean_time,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const BALANCE_TS: &str = r#"
/** Options of `simulateBalance`. `policy` and `d` name the same thing; give either. */
export interface BalanceOptions {
  /** Arrival rate per server in units of the service rate, > 0. Default 0.9. */
  lambda?: number;
  /** "random" (d = 1), "two" (d = 2) or "three" (d = 3). */
  policy?: "random" | "two" | "three";
  /** Servers sampled per arrival, 1..=servers. Default 2. */
  d?: number;
  /** Servers, 1..=100000. Default 100. */
  servers?: number;
  /** Arrivals simulated, 1000..=1e9. Default 1000000. */
  arrivals?: number;
  seed?: number | bigint;
}
"#;

/// Runs the supermarket model: each arrival joins the shortest of `d` sampled queues.
#[wasm_bindgen(js_name = simulateBalance, unchecked_return_type = "BalanceResult")]
pub fn simulate_balance(
    #[wasm_bindgen(unchecked_param_type = "BalanceOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read(
        "options",
        &opts,
        &["lambda", "policy", "d", "servers", "arrivals", "seed"],
    )?;
    let lambda = o.optional("lambda", 0.9, |v| number("lambda", v))?;
    let from_policy = o
        .get("policy")
        .map(|v| {
            let name = string("policy", &v)?;
            POLICIES
                .iter()
                .position(|p| *p == name)
                .map(|i| i as u32 + 1)
                .ok_or_else(|| {
                    JsValue::from(RangeError::new(&format!(
                        "policy must be one of \"random\", \"two\", \"three\" (got {name:?})"
                    )))
                })
        })
        .transpose()?;
    let from_d = o
        .get("d")
        .map(|v| integer("d", &v, 1.0, 100_000.0, "an integer in 1..=servers").map(|d| d as u32))
        .transpose()?;
    let d = match (from_policy, from_d) {
        (Some(p), Some(d)) if p != d => {
            return Err(RangeError::new(&format!(
                "policy {:?} means d = {p}, but d is {d}: give one of them",
                POLICIES[p as usize - 1]
            ))
            .into());
        }
        (p, d) => p.or(d).unwrap_or(2),
    };
    let servers = o.optional("servers", f64::from(DEFAULT_SERVERS), |v| {
        integer("servers", v, 1.0, 100_000.0, "an integer in 1..=100000")
    })? as u32;
    let arrivals = o.optional("arrivals", 1e6, |v| {
        integer(
            "arrivals",
            v,
            1000.0,
            1e9,
            "an integer in 1000..=1000000000",
        )
    })? as u64;
    let seed = o.optional("seed", 1, |v| seed("seed", v))?;
    let config = SupermarketConfig::new(servers, lambda, d, arrivals, seed).map_err(range)?;
    crate::convert::check_work(
        "arrivals × (8 + 3 a server drawn, or 8 above 16384 servers)",
        config.work_units(),
    )?;
    Ok(js_of(&config.run()))
}

/// Mitzenmacher's fixed point `Σ_{i≥1} λ^((d^i − d)/(d − 1))` for the mean time in system
/// with `d` choices as servers → ∞ (`1/(1 − λ)` for d = 1); `null` when λ ≥ 1.
#[wasm_bindgen(js_name = fixedPointMeanTime)]
pub fn fixed_point(
    #[wasm_bindgen(unchecked_param_type = "number")] lambda: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] d: JsValue,
) -> Result<Option<f64>, JsValue> {
    let lambda = number("lambda", &lambda)?;
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(range(tail_lab_core::ParamError::OutOfRange {
            param: "lambda",
            got: lambda,
            expected: "a rate > 0",
        }));
    }
    let d = integer("d", &d, 1.0, 100_000.0, "an integer in 1..=100000")? as u32;
    Ok(fixed_point_mean_time(lambda, d))
}
