//! Hedging on loaded replicas (core `loaded`): `simulateLoaded`.

use crate::convert::{integer, number, object, opt_number, optional, options, seed, string};
use crate::error::range;
use tail_lab_core::lab::loaded::{LoadedConfig, LoadedPolicy};
use wasm_bindgen::prelude::*;

/// Runs one loaded-replica simulation: `{ load = 0.5, policy = "none" | "hedge" |
/// "duplicate", requests = 200000, replicas = 10, seed = 1 }` →
/// `{ load, policy, stable, p50, p99, p999, mean, extraRequests, extraWork, capacityCost }`
/// (ms and fractions; latencies `null` when unstable). `hedge` waits the idle p95.
#[wasm_bindgen(js_name = simulateLoaded)]
pub fn simulate_loaded(opts: JsValue) -> Result<JsValue, JsValue> {
    let o = options("options", &opts)?;
    let load = optional(&o, "load", 0.5, |v| number("load", v))?;
    let replicas = optional(&o, "replicas", 10.0, |v| {
        integer("replicas", v, 2.0, 1000.0, "an integer in 2..=1000")
    })? as u32;
    let requests = optional(&o, "requests", 200_000.0, |v| {
        integer("requests", v, 1000.0, 1e8, "an integer in 1000..=100000000")
    })? as u64;
    let seed = optional(&o, "seed", 1, |v| seed("seed", v))?;
    let policy = optional(&o, "policy", "none".to_string(), |v| string("policy", v))?;
    let policy = LoadedPolicy::from_name(&policy, seed).map_err(range)?;
    let r = LoadedConfig::new(replicas, load, policy, requests, seed)
        .map_err(range)?
        .run();
    Ok(object(&[
        ("load", r.load.into()),
        ("policy", r.policy.into()),
        ("stable", r.stable.into()),
        ("p50", opt_number(r.latency.map(|p| p.p50))),
        ("p99", opt_number(r.latency.map(|p| p.p99))),
        ("p999", opt_number(r.latency.map(|p| p.p999))),
        ("mean", opt_number(r.mean_ms)),
        ("extraRequests", r.extra_requests.into()),
        ("extraWork", r.extra_work.into()),
        ("capacityCost", r.capacity_cost.into()),
    ]))
}
