//! Hedging on loaded replicas (core `loaded`): `simulateLoaded`.

use crate::convert::{Options, integer, number, object, opt_number, seed, string};
use crate::error::range;
use crate::lab::service::service;
use tail_lab_core::lab::loaded::{
    Cancellation, DelayBasis, LoadedConfig, LoadedPolicy, LoadedService,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const LOADED_TS: &str = r#"
/** Options of `simulateLoaded`. */
export interface LoadedOptions {
  /** Offered utilisation before backups, in (0, 2]. Default 0.5. */
  load?: number;
  /** Used when `delay` is absent. Default "none". */
  policy?: "none" | "hedge" | "duplicate";
  /** Send the backup after this many ms (≥ 0); 0 duplicates every request. Overrides `policy`. */
  delay?: number;
  /** What the "hedge" policy's p95 delay is measured on. Default "loaded" (same load, no backups). */
  delayBasis?: "loaded" | "idle";
  /** What happens to the copy that did not answer first. Default "backup". */
  cancellation?: "backup" | "either" | "either-any" | "queued" | "never";
  /** Requests simulated, 1000..=2e6. Default 200000. */
  requests?: number;
  /** FIFO replicas, 2..=1000. Default 10. */
  replicas?: number;
  seed?: number | bigint;
  /** Your own service model; default: the Lab's. */
  service?: ServiceOptions;
}
/** `tail-lab report`'s `loaded` entry in camelCase. Latencies are ms, null when unstable. */
export interface LoadedResult {
  load: number;
  policy: "none" | "hedge" | "duplicate";
  cancellation: "backup" | "either" | "either-any" | "queued" | "never";
  /** The delay (ms) backups were sent after: 0 for duplicates, null without backups. */
  delayMs: number | null;
  stable: boolean;
  /** Stable but with the replicas busy ≥ 98% of the time: latencies grow with run length. */
  atCapacity: boolean;
  p50: number | null; p95: number | null; p99: number | null; p999: number | null;
  mean: number | null;
  /** Fraction (0..1) of requests that sent a backup. */
  extraRequests: number;
  /** Backup service time over the primaries' full service time (fraction). */
  extraWork: number;
  /** Server time beyond the primaries' full service time, per unit of capacity. */
  capacityCost: number;
  /** Server time actually consumed per unit of capacity, over the window requests arrived
   * in: 0..1 while stable. Past the stability boundary the backlog is served after the last
   * arrival, so it passes 1 (up to about 4 with duplicates never cancelled): there it reads as
   * the work demanded per unit of the capacity available while requests arrived. */
  utilisation: number;
  /** Why the run has no latencies, in a sentence (null when stable): overloaded, a hedge with
   * no p95 to wait for (so it sends no backups), latencies that kept climbing, more than
   * 200,000 requests waiting (arrivals then stop, and those that came are served to the end,
   * so memory stays bounded), or latencies past the histogram's top (2^20 ms). */
  unstableReason: string | null;
}
"#;

/// Runs one loaded-replica simulation (ms and fractions; latencies `null` when unstable).
#[wasm_bindgen(js_name = simulateLoaded, unchecked_return_type = "LoadedResult")]
pub fn simulate_loaded(
    #[wasm_bindgen(unchecked_param_type = "LoadedOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read(
        "options",
        &opts,
        &[
            "load",
            "policy",
            "delay",
            "delayBasis",
            "cancellation",
            "requests",
            "replicas",
            "seed",
            "service",
        ],
    )?;
    let load = o.optional("load", 0.5, |v| number("load", v))?;
    let replicas = o.optional("replicas", 10.0, |v| {
        integer("replicas", v, 2.0, 1000.0, "an integer in 2..=1000")
    })? as u32;
    let requests = o.optional("requests", 200_000.0, |v| {
        // Memory follows the requests in flight (a few hundred in a stable run), but past the
        // stability boundary most of the run is in flight at the end: about 200 bytes each,
        // so 2,000,000 keeps the worst case near 400 MB, and the work near seconds.
        integer("requests", v, 1000.0, 2e6, "an integer in 1000..=2000000")
    })? as u64;
    let seed = o.optional("seed", 1, |v| seed("seed", v))?;
    let basis = o.optional("delayBasis", DelayBasis::Loaded, |v| {
        DelayBasis::from_name(&string("delayBasis", v)?).map_err(range)
    })?;
    let cancellation = o.optional("cancellation", Cancellation::Backup, |v| {
        Cancellation::from_name(&string("cancellation", v)?).map_err(range)
    })?;
    let policy = match o.get("delay") {
        Some(v) => LoadedPolicy::after_delay(number("delay", &v)?).map_err(range)?,
        None => {
            let name = o.optional("policy", "none".to_string(), |v| string("policy", v))?;
            LoadedPolicy::from_name(&name, basis).map_err(range)?
        }
    };
    let model = service(o.get("service"))?;
    let config = LoadedConfig::new(replicas, load, policy, requests, seed)
        .and_then(|c| c.with_service(LoadedService::Lab(model)))
        .map_err(range)?
        .with_cancellation(cancellation);
    crate::convert::check_work(
        "requests × 60 per pass (two passes for a hedge at the loaded p95)",
        config.work_units(),
    )?;
    let r = config.run();
    Ok(object(&[
        ("load", r.load.into()),
        ("policy", r.policy.into()),
        ("cancellation", r.cancellation.into()),
        ("delayMs", opt_number(r.delay_ms)),
        ("stable", r.stable.into()),
        ("atCapacity", r.at_capacity().into()),
        ("p50", opt_number(r.latency.map(|p| p.p50))),
        ("p95", opt_number(r.latency.map(|p| p.p95))),
        ("p99", opt_number(r.latency.map(|p| p.p99))),
        ("p999", opt_number(r.latency.map(|p| p.p999))),
        ("mean", opt_number(r.mean_ms)),
        ("extraRequests", r.extra_requests.into()),
        ("extraWork", r.extra_work.into()),
        ("capacityCost", r.capacity_cost.into()),
        ("utilisation", r.utilisation.into()),
        (
            "unstableReason",
            r.unstable
                .map_or(JsValue::NULL, |u| JsValue::from(u.describe())),
        ),
    ]))
}
