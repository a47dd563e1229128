//! The power of d choices (core `supermarket`): `simulateBalance`, `fixedPointMeanTime` and
//! `fixedPointShare`.

use crate::convert::{Options, count, number, seed, string};
use crate::describe::js_of;
use crate::error::range;
use tail_lab_core::lab::precision::{LengthChoice, run_length};
use tail_lab_core::lab::supermarket::{
    ARRIVALS, CHOICES, FIXED_POINT_D, FIXED_POINT_LEVEL, MODEL, SERVERS, SupermarketConfig,
    SupermarketParams, choices,
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
  /**
   * Arrivals simulated, 1000..=1e9 (default 1000000); or "auto", as many as the balance's
   * precision targets need (runLengths()), planned from a pilot on its own seed; or "pilot",
   * that pilot.
   */
  arrivals?: number | "auto" | "pilot";
  seed?: number | bigint;
}
"#;

/// The number of queues an arrival samples, from `policy` ("random", "two-choices", …) or `d`,
/// read alike by `simulateBalance` and `traceSupermarket`.
pub(crate) fn choices_option(o: &Options, default_d: u32) -> Result<u32, JsValue> {
    let policy = o.get("policy").map(|v| string("policy", &v)).transpose()?;
    let d = o
        .get("d")
        .map(|v| count("d", &v, &CHOICES).map(|d| d as u32))
        .transpose()?;
    choices(policy.as_deref(), d, default_d).map_err(range)
}

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
    let defaults = SupermarketParams::default();
    let lambda = o.optional("lambda", defaults.lambda, |v| number("lambda", v))?;
    let d = choices_option(&o, defaults.d)?;
    let servers = o.optional("servers", defaults.servers, |v| {
        count("servers", v, &SERVERS).map(|n| n as u32)
    })?;
    let rule = run_length(MODEL.key).expect("the balance has a run-length rule");
    let (arrivals, choice) =
        o.optional("arrivals", (defaults.arrivals, LengthChoice::Fixed), |v| {
            crate::convert::run_length("arrivals", v, &ARRIVALS, rule)
        })?;
    let seed = o.optional("seed", defaults.seed, |v| seed("seed", v))?;
    let config = SupermarketConfig::new(SupermarketParams {
        servers,
        lambda,
        d,
        arrivals,
        seed,
    })
    .map_err(range)?;
    crate::convert::check_work(
        &format!(
            "{} × (8 + 3 a server drawn, or 8 above 16384 servers)",
            crate::convert::length_words("arrivals", choice, arrivals)
        ),
        config.work_units(),
    )?;
    Ok(js_of(&config.run_by(choice)))
}

/// Mitzenmacher's fixed point `Σ_{i≥1} λ^((d^i − d)/(d − 1))` for the mean time in system
/// with `d` choices as servers → ∞ (`1/(1 − λ)` for d = 1); `null` when λ ≥ 1.
#[wasm_bindgen(js_name = fixedPointMeanTime)]
pub fn fixed_point(
    #[wasm_bindgen(unchecked_param_type = "number")] lambda: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] d: JsValue,
) -> Result<Option<f64>, JsValue> {
    let lambda = number("lambda", &lambda)?;
    let d = count("d", &d, &FIXED_POINT_D)? as u32;
    tail_lab_core::lab::supermarket::fixed_point(lambda, d).map_err(range)
}

/// Mitzenmacher's fixed point `sᵢ = λ^((dⁱ − 1)/(d − 1))` (`λ^i` for d = 1): the share of
/// servers holding at least `i` jobs as servers → ∞; `null` when λ ≥ 1.
#[wasm_bindgen(js_name = fixedPointShare)]
pub fn fixed_point_share(
    #[wasm_bindgen(unchecked_param_type = "number")] lambda: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] d: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] i: JsValue,
) -> Result<Option<f64>, JsValue> {
    let lambda = number("lambda", &lambda)?;
    let d = count("d", &d, &FIXED_POINT_D)? as u32;
    let i = count("i", &i, &FIXED_POINT_LEVEL)? as u32;
    tail_lab_core::lab::supermarket::fixed_point_share(lambda, d, i).map_err(range)
}
