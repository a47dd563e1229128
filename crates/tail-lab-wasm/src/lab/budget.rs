//! Hedge budgets and a disable switch (core `budget`): `simulateBudget`, and the closed form
//! `budgetHedgeBound`.

use crate::convert::{Options, count, number, seed, string};
use crate::describe::js_of;
use crate::error::{range, wrong_type};
use crate::lab::service::service;
use tail_lab_core::lab::budget::params::{MAX_TOKENS, REPLICAS, WINDOWS};
use tail_lab_core::lab::budget::{BudgetConfig, BudgetParams, DelayRule, theory};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const BUDGET_TS: &str = r#"
/** Options of `simulateBudget`. */
export interface BudgetOptions {
  /** Offered utilisation before backups, 0.01..=2. Default 0.5. */
  load?: number;
  /** How many times slower replica 0 serves in the outage, 1..=1000 (1: no outage). Default 10. */
  slowdown?: number;
  /** FIFO replicas, 2..=1000. Default 10. */
  replicas?: number;
  /** Simulated time in which requests arrive (ms), up to 600000. Default 60000. */
  spanMs?: number;
  /** The outage's start (ms), 0..=spanMs. Default a third of the span (20000). */
  outageStartMs?: number;
  /** The outage's end (ms), outageStartMs..=spanMs. Default two thirds of the span (40000). */
  outageEndMs?: number;
  /** Windows of simulated time for the series, 4..=200. Default 30. */
  windows?: number;
  /** "fixed": always `delayMs`; "tracking": the p95 of the last 1000 answers, every 50. Default "fixed". */
  delayRule?: "fixed" | "tracking";
  /** The fixed delay, and where a tracking one starts (ms, > 0). Default the service's p95. */
  delayMs?: number;
  /** Tokens a full bucket holds, 2..=1e6, or "unlimited". Default 10. */
  maxTokens?: number | "unlimited";
  /** Tokens each request adds, 0.001..=1 (kept to thousandths). Default 0.25. */
  tokenRatio?: number;
  /** No hedge when the backup's replica holds more copies than this (≥ 0; Infinity: never). Default 4. */
  disableDepth?: number;
  /** Also no hedge while the offered utilisation (1 + h)ρ over the last second is above one. Default true. */
  disableUtilisation?: boolean;
  seed?: number | bigint;
  /** Your own service model; default: the Lab's. */
  service?: ServiceOptions;
}
"#;

/// Runs the four policies (none, hedge, budgeted, disabled) through a partial outage on the
/// same arrivals: whole-run latencies and costs, and series per window of simulated time.
#[wasm_bindgen(js_name = simulateBudget, unchecked_return_type = "BudgetResult")]
pub fn simulate_budget(
    #[wasm_bindgen(unchecked_param_type = "BudgetOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read(
        "options",
        &opts,
        &[
            "load",
            "slowdown",
            "replicas",
            "spanMs",
            "outageStartMs",
            "outageEndMs",
            "windows",
            "delayRule",
            "delayMs",
            "maxTokens",
            "tokenRatio",
            "disableDepth",
            "disableUtilisation",
            "seed",
            "service",
        ],
    )?;
    let d = BudgetParams::default();
    let num = |key: &'static str, default: f64| o.optional(key, default, |v| number(key, v));
    let span_ms = num("spanMs", d.span_ms)?;
    let params = BudgetParams {
        load: num("load", d.load)?,
        slowdown: num("slowdown", d.slowdown)?,
        replicas: o.optional("replicas", d.replicas, |v| {
            count("replicas", v, &REPLICAS).map(|n| n as u32)
        })?,
        span_ms,
        // The middle third of the span unless told.
        outage_start_ms: num("outageStartMs", span_ms / 3.0)?,
        outage_end_ms: num("outageEndMs", 2.0 * span_ms / 3.0)?,
        windows: o.optional("windows", d.windows, |v| {
            count("windows", v, &WINDOWS).map(|n| n as u32)
        })?,
        delay_rule: o.optional("delayRule", d.delay_rule, |v| {
            DelayRule::from_name(&string("delayRule", v)?).map_err(range)
        })?,
        delay_ms: o
            .get("delayMs")
            .map(|v| number("delayMs", &v))
            .transpose()?,
        max_tokens: o.optional("maxTokens", d.max_tokens, |v| {
            if v.as_string().as_deref() == Some("unlimited") {
                Ok(None)
            } else if v.as_f64().is_some() {
                count("maxTokens", v, &MAX_TOKENS).map(|n| Some(n as u32))
            } else {
                Err(wrong_type("maxTokens", "a number or \"unlimited\"", v))
            }
        })?,
        token_ratio: num("tokenRatio", d.token_ratio)?,
        disable_depth: num("disableDepth", d.disable_depth)?,
        disable_utilisation: o.optional("disableUtilisation", d.disable_utilisation, |v| {
            v.as_bool()
                .ok_or_else(|| wrong_type("disableUtilisation", "a boolean", v))
        })?,
        seed: o.optional("seed", d.seed, |v| seed("seed", v))?,
    };
    let model = service(o.get("service"))?;
    let config = BudgetConfig::with_service(params, model).map_err(range)?;
    crate::convert::check_work(
        "expected requests × 4 policies × 60",
        config.expected_requests() * 4.0 * 60.0,
    )?;
    Ok(js_of(&config.run()))
}

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
    let requests = crate::convert::integer(
        "requests",
        &requests,
        0.0,
        1e12,
        "a whole number of requests in 0..=1e12",
    )? as u64;
    Ok(theory::hedge_bound(max, ratio, requests).map_err(range)? as f64)
}
