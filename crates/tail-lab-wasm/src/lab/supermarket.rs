//! The power of d choices (core `supermarket`): `simulateBalance`.

use crate::convert::{integer, number, object, opt_number, optional, options, seed};
use crate::error::range;
use tail_lab_core::lab::supermarket::SupermarketConfig;
use wasm_bindgen::prelude::*;

/// Runs the supermarket model: `{ lambda = 0.9, d = 2, servers = 100, arrivals = 1e6,
/// seed = 1 }` → `{ lambda, d, stable, meanTime, p99, theory }` (times in mean service times;
/// `null` when λ ≥ 1).
#[wasm_bindgen(js_name = simulateBalance)]
pub fn simulate_balance(opts: JsValue) -> Result<JsValue, JsValue> {
    let o = options("options", &opts)?;
    let lambda = optional(&o, "lambda", 0.9, |v| number("lambda", v))?;
    let d = optional(&o, "d", 2.0, |v| {
        integer("d", v, 1.0, 100_000.0, "an integer in 1..=servers")
    })? as u32;
    let servers = optional(&o, "servers", 100.0, |v| {
        integer("servers", v, 1.0, 100_000.0, "an integer in 1..=100000")
    })? as u32;
    let arrivals = optional(&o, "arrivals", 1e6, |v| {
        integer(
            "arrivals",
            v,
            1000.0,
            1e9,
            "an integer in 1000..=1000000000",
        )
    })? as u64;
    let seed = optional(&o, "seed", 1, |v| seed("seed", v))?;
    let r = SupermarketConfig::new(servers, lambda, d, arrivals, seed)
        .map_err(range)?
        .run();
    Ok(object(&[
        ("lambda", r.lambda.into()),
        ("d", r.d.into()),
        ("stable", r.stable.into()),
        ("meanTime", opt_number(r.mean_time)),
        ("p99", opt_number(r.p99)),
        ("theory", opt_number(r.theory)),
    ]))
}
