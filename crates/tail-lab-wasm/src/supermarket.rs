//! The power of d choices (core `supermarket`): `simulateBalance`.

use crate::convert::{field, integer, number, object, opt_number, options, seed};
use crate::error::range;
use tail_lab_core::supermarket::SupermarketConfig;
use wasm_bindgen::prelude::*;

/// Runs the supermarket model: `{ lambda = 0.9, d = 2, servers = 100, arrivals = 1e6,
/// seed = 1 }` → `{ lambda, d, stable, meanTime, p99, theory }` (times in mean service times;
/// `null` when λ ≥ 1).
#[wasm_bindgen(js_name = simulateBalance)]
pub fn simulate_balance(opts: JsValue) -> Result<JsValue, JsValue> {
    let o = options("options", &opts)?;
    let lambda = field(&o, "lambda")
        .map(|v| number("lambda", &v))
        .transpose()?
        .unwrap_or(0.9);
    let d = field(&o, "d")
        .map(|v| integer("d", &v, 0.0, 100_000.0, "an integer in 1..=servers"))
        .transpose()?
        .unwrap_or(2.0) as u32;
    let servers = field(&o, "servers")
        .map(|v| integer("servers", &v, 1.0, 100_000.0, "an integer in 1..=100000"))
        .transpose()?
        .unwrap_or(100.0) as u32;
    let arrivals = field(&o, "arrivals")
        .map(|v| {
            integer(
                "arrivals",
                &v,
                1000.0,
                1e9,
                "an integer in 1000..=1000000000",
            )
        })
        .transpose()?
        .unwrap_or(1e6) as u64;
    let seed = field(&o, "seed")
        .map(|v| seed("seed", &v))
        .transpose()?
        .unwrap_or(1);
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
