//! Hedging on loaded replicas (core `loaded`): the closed forms `noBackupMeanMs` and
//! `serviceMoments` (`simulateLoaded` is generated: `crate::api`).

use crate::api::service;
use crate::convert::number;
use crate::error::range;
use wasm_bindgen::prelude::*;

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
