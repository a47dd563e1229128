//! Hedge budgets and a disable switch (core `budget`): the closed form `budgetHedgeBound`
//! (`simulateBudget` is generated: `crate::api`).

use crate::convert::{count, number};
use crate::error::range;
use tail_lab_core::lab::budget::params::MAX_TOKENS;
use tail_lab_core::lab::budget::theory::{self, BOUND_REQUESTS};
use wasm_bindgen::prelude::*;

/// The most backups a bucket of `maxTokens` tokens (2..=1e6) gaining `tokenRatio` tokens a
/// request (0.001..=1, kept to thousandths) allows over `requests` requests (a whole number
/// ≥ 0): `⌊(1000·ratio·requests + 500·maxTokens + 999) / 1000⌋`.
#[wasm_bindgen(js_name = budgetHedgeBound)]
pub fn budget_hedge_bound(
    #[wasm_bindgen(js_name = maxTokens, unchecked_param_type = "number")] max_tokens: JsValue,
    #[wasm_bindgen(js_name = tokenRatio, unchecked_param_type = "number")] token_ratio: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] requests: JsValue,
) -> Result<f64, JsValue> {
    let max = count("maxTokens", &max_tokens, &MAX_TOKENS)? as u32;
    let ratio = number("tokenRatio", &token_ratio)?;
    let requests = count("requests", &requests, &BOUND_REQUESTS)?;
    Ok(theory::hedge_bound(max, ratio, requests).map_err(range)? as f64)
}
