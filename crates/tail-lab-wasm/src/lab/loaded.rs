//! Hedging on loaded replicas (core `loaded`): `simulateLoaded`, and the closed forms
//! `noBackupMeanMs` and `serviceMoments`.

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
    let (policy, cancellation) = policy_options(&o)?;
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

/// The options that choose what a loaded run does with duplicates, read alike by
/// `simulateLoaded` and `traceLoaded`: `delayBasis`, `cancellation`, and `delay` (which
/// overrides) or `policy`.
pub(crate) fn policy_options(o: &Options) -> Result<(LoadedPolicy, Cancellation), JsValue> {
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
    Ok((policy, cancellation))
}

/// Pollaczek–Khinchine's M/G/1 mean (ms): the mean latency of a loaded run with no backups at
/// utilisation `load` (0.001..=2), each replica an M/G/1 queue, under `service` (default: the
/// Lab's model); `null` when `load` ≥ 1.
#[wasm_bindgen(js_name = noBackupMeanMs)]
pub fn no_backup_mean_ms(
    #[wasm_bindgen(unchecked_param_type = "number")] load: JsValue,
    #[wasm_bindgen(js_name = service, unchecked_param_type = "ServiceOptions | undefined")]
    service_options: JsValue,
) -> Result<Option<f64>, JsValue> {
    let load = number("load", &load)?;
    let model = service((!service_options.is_undefined()).then_some(service_options))?;
    tail_lab_core::lab::loaded::theory::no_backup_mean_ms(&model, load).map_err(range)
}

#[wasm_bindgen(typescript_custom_section)]
const SERVICE_MOMENTS_TS: &str = r#"
/** A service model's moments, in closed form. */
export interface ServiceMoments {
  /** Mean service time E[S] (ms): ≈ 19.3 for the Lab's model, the hiccups included. */
  meanMs: number;
  /** Second moment E[S²] (ms²): ≈ 12,873 for the Lab's model, 99% of it from the hiccups. */
  secondMomentMs2: number;
  /** Mean of the body alone (ms): ≈ 8.7 for the Lab's model, about one normal service; null for your own data, which has no modes. */
  bodyMeanMs: number | null;
  /** Mean of the slow mode alone (ms): ≈ 1063 for the Lab's model; null for your own data. */
  slowMeanMs: number | null;
}
"#;

/// The moments of `service` (default: the Lab's model) that the loaded section's numbers rest
/// on: the mean service time, which extra work is divided by, its second moment, which sets
/// the no-backup mean ([`no_backup_mean_ms`]), and the means of its two modes.
#[wasm_bindgen(js_name = serviceMoments, unchecked_return_type = "ServiceMoments")]
pub fn service_moments(
    #[wasm_bindgen(js_name = service, unchecked_param_type = "ServiceOptions | undefined")]
    service_options: JsValue,
) -> Result<JsValue, JsValue> {
    let m = service((!service_options.is_undefined()).then_some(service_options))?;
    Ok(crate::convert::object(&[
        ("meanMs", m.mean_ms().into()),
        ("secondMomentMs2", m.second_moment_ms2().into()),
        (
            "bodyMeanMs",
            m.body().map_or(JsValue::NULL, |b| b.mean_ms().into()),
        ),
        (
            "slowMeanMs",
            m.slow().map_or(JsValue::NULL, |s| s.mean_ms().into()),
        ),
    ]))
}
