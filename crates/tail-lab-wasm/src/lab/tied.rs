//! Tied requests (core `tied`): the closed form `tiedTheory` (M/M/c, the check).
//! (`simulateTied` is generated: `crate::api`.)

use crate::convert::{count, number, object};
use crate::error::range;
use tail_lab_core::ParamError;
use tail_lab_core::lab::loaded::{LoadedService, exponential};
use tail_lab_core::lab::tied::{REPLICAS, THEORY_LOAD, theory};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TIED_TS: &str = r#"
/** The M/M/c closed forms of the tied check (ms). */
export interface TiedTheory {
  /** Mean time in system. */
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  /** Erlang C: the share of requests that wait (0..1). */
  waitProbability: number;
}
"#;

/// The M/M/c closed forms of the tied check: `replicas` (2..=100) servers at per-server
/// utilisation `load` (in (0, 1)), exponential service of mean `meanMs` (ms, > 0): mean
/// sojourn, its p50, p99 and p99.9 (ms), and Erlang C.
#[wasm_bindgen(js_name = tiedTheory, unchecked_return_type = "TiedTheory")]
pub fn tied_theory(
    #[wasm_bindgen(unchecked_param_type = "number")] replicas: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] load: JsValue,
    #[wasm_bindgen(js_name = meanMs, unchecked_param_type = "number")] mean_ms: JsValue,
) -> Result<JsValue, JsValue> {
    let c = count("replicas", &replicas, &REPLICAS)? as u32;
    let load = THEORY_LOAD
        .check("load", number("load", &load)?)
        .map_err(range)?;
    let mean = match exponential(number("meanMs", &mean_ms)?) {
        Ok(LoadedService::Exponential(m)) => m.get(),
        Ok(_) => unreachable!("exponential gives an exponential"),
        Err(e) => return Err(as_param(e, "meanMs")),
    };
    Ok(object(&[
        ("meanMs", theory::mmc_mean_ms(c, load, mean).into()),
        ("p50Ms", theory::mmc_quantile_ms(c, load, 0.5, mean).into()),
        ("p99Ms", theory::mmc_quantile_ms(c, load, 0.99, mean).into()),
        (
            "p999Ms",
            theory::mmc_quantile_ms(c, load, 0.999, mean).into(),
        ),
        (
            "waitProbability",
            theory::mmc_wait_probability(c, load).into(),
        ),
    ]))
}

/// The core's error on an exponential's mean (`mean_ms`), named as the caller wrote it.
fn as_param(e: ParamError, param: &'static str) -> JsValue {
    match e {
        ParamError::OutOfRange { got, expected, .. } => range(ParamError::OutOfRange {
            param,
            got,
            expected,
        }),
        other => range(other),
    }
}
