//! Hedging on loaded replicas (core `loaded`): `simulateLoaded`.

use crate::convert::{Options, count, number, seed, string};
use crate::describe::js_of;
use crate::error::range;
use crate::lab::service::service;
use tail_lab_core::lab::loaded::{
    Cancellation, DEFAULT_REPLICAS, DelayBasis, LoadedConfig, LoadedParams, LoadedPolicy,
    LoadedService, REPLICAS, REQUESTS_PER_CALL,
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
    let replicas = o.optional("replicas", DEFAULT_REPLICAS, |v| {
        count("replicas", v, &REPLICAS).map(|n| n as u32)
    })?;
    let requests = o.optional("requests", 200_000, |v| {
        count("requests", v, &REQUESTS_PER_CALL)
    })?;
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
    let config = LoadedConfig::new(LoadedParams {
        replicas,
        load,
        policy,
        requests,
        seed,
    })
    .map_err(range)?
    .with_service(LoadedService::Lab(model))
    .with_cancellation(cancellation);
    crate::convert::check_work(
        "requests × 60 per pass (two passes for a hedge at the loaded p95)",
        config.work_units(),
    )?;
    Ok(js_of(&config.run()))
}
