//! The Lab's service model (core `service`): reading a reader's own `service` option.

use crate::convert::{field, number, options};
use crate::error::range;
use tail_lab_core::lab::service::ServiceModel;
use tail_lab_core::sampling::lognormal::LogNormalMs;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const SERVICE_TS: &str = r#"
/** A lognormal: median (ms, > 0) and log-spread sigma (0 < sigma ≤ 5). */
export interface LogNormalOptions { medianMs: number; sigma: number; }
/** A service-time model: a lognormal body, replaced with probability `slow.p` (0..1) by a slow mode. */
export interface ServiceOptions { body: LogNormalOptions; slow?: LogNormalOptions & { p: number }; }
"#;

fn lognormal(param: &'static str, v: &JsValue) -> Result<LogNormalMs, JsValue> {
    let o = options(param, v)?;
    let get = |key: &'static str| {
        field(&o, key).ok_or_else(|| {
            JsValue::from(js_sys::TypeError::new(&format!(
                "{param}.{key} is required (a number)"
            )))
        })
    };
    let median = number("medianMs", &get("medianMs")?)?;
    let sigma = number("sigma", &get("sigma")?)?;
    LogNormalMs::new(median, sigma).map_err(range)
}

/// `{ body: { medianMs, sigma }, slow?: { p, medianMs, sigma } }` → a [`ServiceModel`]; absent
/// means the Lab's default (body 7.7 ms, σ 0.5; 1% slow mode at 1 s, σ 0.35).
pub fn service(v: Option<JsValue>) -> Result<ServiceModel, JsValue> {
    let Some(v) = v else {
        return Ok(ServiceModel::default());
    };
    let o = options("service", &v)?;
    let body = lognormal(
        "service.body",
        &field(&o, "body").unwrap_or(JsValue::UNDEFINED),
    )?;
    match field(&o, "slow") {
        None => ServiceModel::new(body, 0.0, body).map_err(range),
        Some(slow) => {
            let so = options("service.slow", &slow)?;
            let p = number("slow.p", &field(&so, "p").unwrap_or(JsValue::UNDEFINED))?;
            ServiceModel::new(body, p, lognormal("service.slow", &slow)?).map_err(range)
        }
    }
}
