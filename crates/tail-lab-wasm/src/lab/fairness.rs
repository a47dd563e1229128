//! Fairness to a tenant that does not hedge (core `fairness`): `simulateFairness` (one load)
//! and `fairnessSweep` (the standard loads).

use crate::convert::{Options, check_work, count, number, seed, string};
use crate::describe::js_of;
use crate::error::range;
use crate::lab::service::service;
use tail_lab_core::lab::fairness::{
    FairnessParams, REQUESTS_PER_RUN, SWEEP_LOADS, TenantPolicy, simulate,
};
use tail_lab_core::lab::loaded::{Cancellation, REPLICAS};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const FAIRNESS_TS: &str = r#"
/** Options of `simulateFairness` and `fairnessSweep`: two tenants share loaded replicas and only
 * tenant A sends backups. */
export interface FairnessOptions {
  /** Offered utilisation of both tenants together, before backups, in [0.001, 2]. Default 0.5. `simulateFairness` only. */
  load?: number;
  /** The share of requests that are tenant A's, 0..=1. Default 0.5. */
  shareA?: number;
  /** What tenant A sends; tenant B never sends a backup. Default "duplicate". */
  policy?: "hedge" | "duplicate" | "none";
  /** What happens to the copy that did not answer first. Default "backup" (the loaded model's). */
  cancellation?: "backup" | "either" | "either-any" | "queued" | "never";
  /** Requests per run (two runs a load), 1000..=1e6. Default 40000. */
  requests?: number;
  /** FIFO replicas, 2..=1000. Default 10. */
  replicas?: number;
  seed?: number | bigint;
  /** Your own service model; default: the Lab's. */
  service?: ServiceOptions;
}
"#;

const POINT_KEYS: &[&str] = &[
    "load",
    "shareA",
    "policy",
    "cancellation",
    "requests",
    "replicas",
    "seed",
    "service",
];
const SWEEP_KEYS: &[&str] = &[
    "shareA",
    "policy",
    "cancellation",
    "requests",
    "replicas",
    "seed",
    "service",
];

fn params(opts: &JsValue, sweep: bool) -> Result<FairnessParams, JsValue> {
    let o = Options::read("options", opts, if sweep { SWEEP_KEYS } else { POINT_KEYS })?;
    let defaults = FairnessParams::at_load(0.5);
    let load = o.optional("load", defaults.load, |v| number("load", v))?;
    let share_a = o.optional("shareA", defaults.share_a, |v| number("shareA", v))?;
    let policy = o.optional("policy", defaults.policy, |v| {
        TenantPolicy::from_name(&string("policy", v)?).map_err(range)
    })?;
    let cancellation = o.optional("cancellation", defaults.cancellation, |v| {
        Cancellation::from_name(&string("cancellation", v)?).map_err(range)
    })?;
    let requests = o.optional("requests", defaults.requests, |v| {
        count("requests", v, &REQUESTS_PER_RUN)
    })?;
    let replicas = o.optional("replicas", defaults.replicas, |v| {
        count("replicas", v, &REPLICAS).map(|n| n as u32)
    })?;
    let seed = o.optional("seed", 1, |v| seed("seed", v))?;
    let service = service(o.get("service"))?;
    Ok(FairnessParams {
        replicas,
        load,
        share_a,
        policy,
        cancellation,
        requests,
        seed,
        service,
    })
}

/// Both tenants at one load, with A following the policy and with nobody hedging.
#[wasm_bindgen(js_name = simulateFairness, unchecked_return_type = "FairnessResult")]
pub fn simulate_fairness(
    #[wasm_bindgen(unchecked_param_type = "FairnessOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let p = params(&opts, false)?;
    check_work("requests × 60 × 2 runs", p.work_units())?;
    Ok(js_of(&simulate(&p).map_err(range)?))
}

/// The standard loads (0.1..=0.8 in steps of 0.1), in order: the report's `fairness` list when
/// run with its requests and seed.
#[wasm_bindgen(js_name = fairnessSweep, unchecked_return_type = "FairnessResult[]")]
pub fn fairness_sweep(
    #[wasm_bindgen(unchecked_param_type = "FairnessOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let p = params(&opts, true)?;
    check_work(
        "requests × 60 × 2 runs × 8 loads",
        p.work_units() * SWEEP_LOADS.len() as f64,
    )?;
    SWEEP_LOADS
        .iter()
        .map(|&load| {
            simulate(&FairnessParams { load, ..p.clone() })
                .map(|r| js_of(&r))
                .map_err(range)
        })
        .collect::<Result<js_sys::Array, _>>()
        .map(Into::into)
}
