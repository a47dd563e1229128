//! Retries against hedges, and a retry storm (core `retries`): `simulateRetries`, and the
//! closed form `retriesTheory`.

use crate::convert::{Options, count, number, object, opt_number, seed, string};
use crate::describe::js_of;
use crate::error::range;
use crate::lab::service::service;
use tail_lab_core::lab::retries::theory::{amplification_bound, budget_storm_load, storm_load};
use tail_lab_core::lab::retries::{
    Backoff, Budget, DEFAULT_BURST, MAX_ATTEMPTS, Policy, QUEUE_LIMIT, REPLICAS, RetriesConfig,
    RetriesParams, Spike, WINDOWS,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const RETRIES_TS: &str = r#"
/** Options of `simulateRetries`. Defaults: the metastable setting (10 replicas at 40% load, 1 s timeout, 3 attempts, no backoff, a 2.5× spike from 10 to 20 s of a 60 s run, 1 s windows). */
export interface RetriesOptions {
  /** What a request sends besides its first attempt. Default "retry". */
  policy?: "none" | "retry" | "hedge";
  /** Offered utilisation outside the spike, first attempts only, in [0.001, 2]. Default 0.4. */
  load?: number;
  /** The client's timeout in ms (> 0; Infinity: never): per attempt for a retry, per request otherwise. Default 1000. */
  timeoutMs?: number;
  /** Attempts a retrying request may make, its first included, 1..=10. Default 3. */
  maxAttempts?: number;
  /** The wait before a retry: none, base·2^(k−1) capped, or that with full jitter. Default "none". */
  backoff?: "none" | "exponential" | "jitter";
  /** The first retry's wait (ms, 0..=600000). Default 100. */
  backoffBaseMs?: number;
  /** The longest wait (ms, 0..=600000). Default 2000. */
  backoffCapMs?: number;
  /** A hedge's delay after arrival (ms, ≥ 0; Infinity: no backups). Default 20. */
  hedgeDelayMs?: number;
  /** Budget tokens deposited per request (0..=10); a retry or backup spends one. null or absent: no budget. */
  budget?: number | null;
  /** Tokens the budget holds at most and starts with (0..=1e6). Default 10. */
  budgetBurst?: number;
  /** The arrival rate's multiplier during the spike, 1..=10 (1: none). Default 2.5. */
  spike?: number;
  /** When the spike starts (ms, within the run). Default a sixth of `durationMs` (10000). */
  spikeStartMs?: number;
  /** When it ends (ms, from its start to the run's end). Default a third of `durationMs` (20000). */
  spikeEndMs?: number;
  /** Attempts a replica holds queued before refusing more at once, 1..=100000; null: no limit. Default 1000. */
  queueLimit?: number | null;
  /** Simulated ms in which requests arrive, 100..=3600000. Default 60000. */
  durationMs?: number;
  /** Windows the series are cut into, 4..=1000. Default 60. */
  windows?: number;
  /** FIFO replicas, 2..=1000. Default 10. */
  replicas?: number;
  seed?: number | bigint;
  /** Your own service model; default: the Lab's. */
  service?: ServiceOptions;
}

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

const KEYS: [&str; 19] = [
    "policy",
    "load",
    "timeoutMs",
    "maxAttempts",
    "backoff",
    "backoffBaseMs",
    "backoffCapMs",
    "hedgeDelayMs",
    "budget",
    "budgetBurst",
    "spike",
    "spikeStartMs",
    "spikeEndMs",
    "queueLimit",
    "durationMs",
    "windows",
    "replicas",
    "seed",
    "service",
];

/// A number, or `None` for `null`.
fn maybe(param: &'static str, v: &JsValue) -> Result<Option<f64>, JsValue> {
    if v.is_null() {
        Ok(None)
    } else {
        number(param, v).map(Some)
    }
}

/// The budget read from `budget` and `budgetBurst`.
fn budget(o: &Options) -> Result<Option<Budget>, JsValue> {
    let burst = o.optional("budgetBurst", DEFAULT_BURST, |v| number("budgetBurst", v))?;
    match o.optional("budget", None, |v| maybe("budget", v))? {
        Some(ratio) => Budget::new(ratio, burst).map(Some).map_err(range),
        None => Ok(None),
    }
}

fn params(o: &Options) -> Result<RetriesParams, JsValue> {
    let d = RetriesParams::default();
    let policy = o.optional("policy", d.policy, |v| {
        Policy::from_name(&string("policy", v)?).map_err(range)
    })?;
    let base = o.optional("backoffBaseMs", 100.0, |v| number("backoffBaseMs", v))?;
    let cap = o.optional("backoffCapMs", 2000.0, |v| number("backoffCapMs", v))?;
    let backoff = o.optional("backoff", "none".to_string(), |v| string("backoff", v))?;
    let backoff = Backoff::from_name(&backoff, base, cap).map_err(range)?;
    let duration_ms = o.optional("durationMs", d.duration_ms, |v| number("durationMs", v))?;
    // The default spike keeps its place in the run: from a sixth to a third of it.
    let spike = Spike {
        factor: o.optional("spike", d.spike.factor, |v| number("spike", v))?,
        start_ms: o.optional("spikeStartMs", duration_ms / 6.0, |v| {
            number("spikeStartMs", v)
        })?,
        end_ms: o.optional("spikeEndMs", duration_ms / 3.0, |v| number("spikeEndMs", v))?,
    };
    let queue_limit = o.optional("queueLimit", d.queue_limit.map(f64::from), |v| {
        maybe("queueLimit", v)
    })?;
    let queue_limit = match queue_limit {
        Some(q) => Some(QUEUE_LIMIT.check_number("queueLimit", q).map_err(range)? as u32),
        None => None,
    };
    Ok(RetriesParams {
        replicas: o.optional("replicas", d.replicas, |v| {
            count("replicas", v, &REPLICAS).map(|n| n as u32)
        })?,
        load: o.optional("load", d.load, |v| number("load", v))?,
        policy,
        timeout_ms: o.optional("timeoutMs", d.timeout_ms, |v| number("timeoutMs", v))?,
        max_attempts: o.optional("maxAttempts", d.max_attempts, |v| {
            count("maxAttempts", v, &MAX_ATTEMPTS).map(|n| n as u32)
        })?,
        backoff,
        hedge_delay_ms: o.optional("hedgeDelayMs", d.hedge_delay_ms, |v| {
            number("hedgeDelayMs", v)
        })?,
        budget: budget(o)?,
        spike,
        queue_limit,
        duration_ms,
        windows: o.optional("windows", d.windows, |v| {
            count("windows", v, &WINDOWS).map(|n| n as u32)
        })?,
        seed: o.optional("seed", d.seed, |v| seed("seed", v))?,
    })
}

/// Runs one retries simulation: whole-run counts and latencies, and series per window of
/// simulated time (latencies `null` when the run hit the runaway cap).
#[wasm_bindgen(js_name = simulateRetries, unchecked_return_type = "RetriesResult")]
pub fn simulate_retries(
    #[wasm_bindgen(unchecked_param_type = "RetriesOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read("options", &opts, &KEYS)?;
    let p = params(&o)?;
    let model = service(o.get("service"))?;
    let config = RetriesConfig::new(p).map_err(range)?.with_service(model);
    crate::convert::check_work(
        "expected requests × max(maxAttempts, 2) × 100 × (1 + requests waiting out a backoff / \
         30000)",
        config.work_units(),
    )?;
    Ok(js_of(&config.run()))
}

/// The closed forms beside a retries run: the storm's load, the budget's, and the budget's
/// cap on amplification over `requests` requests.
#[wasm_bindgen(js_name = retriesTheory, unchecked_return_type = "RetriesTheory")]
pub fn retries_theory(
    #[wasm_bindgen(
        unchecked_param_type = "{ load?: number; maxAttempts?: number; budget?: number | null; budgetBurst?: number; requests?: number } | undefined"
    )]
    opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read(
        "options",
        &opts,
        &["load", "maxAttempts", "budget", "budgetBurst", "requests"],
    )?;
    let d = RetriesParams::default();
    let load = o.optional("load", d.load, |v| number("load", v))?;
    let max_attempts = o.optional("maxAttempts", d.max_attempts, |v| {
        count("maxAttempts", v, &MAX_ATTEMPTS).map(|n| n as u32)
    })?;
    let requests = o.optional("requests", 1_000u64, |v| {
        count(
            "requests",
            v,
            &tail_lab_core::count_range!(1, 1000000000000),
        )
    })?;
    // The load is checked as a run's is.
    RetriesConfig::new(RetriesParams {
        load,
        max_attempts,
        ..d
    })
    .map_err(range)?;
    let b = budget(&o)?;
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
