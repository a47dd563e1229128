//! Retries against hedges, and a retry storm (core `retries`): the closed form
//! `retriesTheory`, read from the options the core declares (`simulateRetries` is generated:
//! `crate::api`).

use crate::convert::{object, opt_number};
use crate::error::range;
use tail_lab_core::lab::retries::theory::{amplification_bound, budget_storm_load, storm_load};
use tail_lab_core::lab::retries::{Budget, THEORY_OPTIONS};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const RETRIES_TS: &str = r#"
/** The closed forms beside a retries run. */
export interface RetriesTheory {
  /** Work offered per unit of capacity when every attempt times out: load × maxAttempts (a storm sustains itself at ≥ 1). */
  stormLoad: number;
  /** The most a budget of `budget` lets through in a long storm: load × min(1 + budget, maxAttempts); null without a budget. */
  budgetStormLoad: number | null;
  /** The cap on amplification over `requests` requests: 1 + ⌊burst + budget × requests⌋ / requests; null without a budget. */
  amplificationBound: number | null;
}
"#;

/// The closed forms beside a retries run: the storm's load, the budget's, and the budget's
/// cap on amplification over `requests` requests.
#[wasm_bindgen(js_name = retriesTheory, unchecked_return_type = "RetriesTheory")]
pub fn retries_theory(
    #[wasm_bindgen(unchecked_param_type = "RetriesTheoryOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = crate::api::read_options(THEORY_OPTIONS, &[], &opts)?;
    let load = o.number("load").expect("load has a default");
    let max_attempts = o.count("maxAttempts") as u32;
    let requests = o.count("requests");
    let b = match o.nullable_number("budget") {
        Some(ratio) => Some(
            Budget::new(ratio, o.number("budgetBurst").expect("has a default")).map_err(range)?,
        ),
        None => None,
    };
    Ok(object(&[
        ("stormLoad", storm_load(load, max_attempts).into()),
        (
            "budgetStormLoad",
            opt_number(b.map(|b| budget_storm_load(load, b.ratio, max_attempts))),
        ),
        (
            "amplificationBound",
            opt_number(b.map(|b| amplification_bound(b, requests))),
        ),
    ]))
}
