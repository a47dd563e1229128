//! Hedging on loaded replicas (core `loaded`): `simulateLoaded`.

use crate::convert::{field, integer, number, object, opt_number, options, seed, string};
use crate::error::range;
use tail_lab_core::ParamError;
use tail_lab_core::loaded::{LoadedConfig, LoadedPolicy, calibrated_hedge_delay};
use wasm_bindgen::prelude::*;

/// Runs one loaded-replica simulation: `{ load = 0.5, policy = "none" | "hedge" |
/// "duplicate", requests = 200000, replicas = 10, seed = 1 }` →
/// `{ load, policy, stable, p50, p99, p999, mean, extraRequests, extraWork, capacityCost }`
/// (ms and fractions; latencies `null` when unstable). `hedge` waits the idle p95.
#[wasm_bindgen(js_name = simulateLoaded)]
pub fn simulate_loaded(opts: JsValue) -> Result<JsValue, JsValue> {
    let o = options("options", &opts)?;
    let load = field(&o, "load")
        .map(|v| number("load", &v))
        .transpose()?
        .unwrap_or(0.5);
    let replicas = field(&o, "replicas")
        .map(|v| integer("replicas", &v, 0.0, 1000.0, "an integer in 2..=1000"))
        .transpose()?
        .unwrap_or(10.0) as u32;
    let requests = field(&o, "requests")
        .map(|v| {
            integer(
                "requests",
                &v,
                1000.0,
                1e8,
                "an integer in 1000..=100000000",
            )
        })
        .transpose()?
        .unwrap_or(200_000.0) as u64;
    let seed = field(&o, "seed")
        .map(|v| seed("seed", &v))
        .transpose()?
        .unwrap_or(1);
    let policy = match field(&o, "policy")
        .map(|v| string("policy", &v))
        .transpose()?
        .as_deref()
    {
        None | Some("none") => LoadedPolicy::None,
        Some("hedge") => LoadedPolicy::Hedge {
            delay_ms: calibrated_hedge_delay(seed),
        },
        Some("duplicate") => LoadedPolicy::Duplicate,
        Some(other) => {
            return Err(range(ParamError::UnknownName {
                param: "policy",
                got: other.to_string(),
                expected: "\"none\", \"hedge\", \"duplicate\"",
            }));
        }
    };
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
