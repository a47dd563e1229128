//! The Lab's service model (core `service`): reading a reader's own `service` option.

use crate::convert::{Options, float64_values, number};
use crate::error::range;
use std::sync::Arc;
use tail_lab_core::ParamError;
use tail_lab_core::lab::service::ServiceModel;
use tail_lab_core::sampling::empirical::{EmpiricalDistribution, MAX_KNOTS};
use tail_lab_core::sampling::lognormal::LogNormalMs;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const SERVICE_TS: &str = r#"
/** A lognormal: median (ms, > 0) and log-spread sigma (0 < sigma ≤ 5). */
export interface LogNormalOptions { medianMs: number; sigma: number; }
/** A service-time model: a lognormal body, replaced with probability `slow.p` (0..1) by a slow mode. */
export interface MixtureServiceOptions { body: LogNormalOptions; slow?: LogNormalOptions & { p: number }; }
/**
 * Your own latencies as a distribution: its quantile function at knots, linear between them
 * (`parseLatencies(...).service` gives one). `levels` rise strictly from exactly 0 to exactly 1;
 * `ms` (ms, > 0) never fall; 2 to 65,538 knots.
 */
export interface EmpiricalServiceOptions { empirical: { levels: Float64Array; ms: Float64Array } }
/** A service-time model: the Lab's mixture, or your own latencies. */
export type ServiceOptions = MixtureServiceOptions | EmpiricalServiceOptions;
"#;

/// `{ levels, ms }`: a distribution's knots, each a `Float64Array`.
fn empirical(v: &JsValue) -> Result<ServiceModel, JsValue> {
    let o = Options::read("service.empirical", v, &["levels", "ms"])?;
    let array = |key: &'static str, param: &'static str| -> Result<Vec<f64>, JsValue> {
        let v = required(&o, key, param)?;
        float64_values(param, &v, "a Float64Array", |n| {
            if n.is_finite() && (2.0..=(MAX_KNOTS + 2) as f64).contains(&n) {
                Ok(n as usize)
            } else {
                Err(range(ParamError::OutOfRange {
                    param,
                    got: n,
                    expected: "a length in 2..=65538",
                }))
            }
        })
    };
    let levels = array("levels", "service.empirical.levels")?;
    let ms = array("ms", "service.empirical.ms")?;
    let distribution = EmpiricalDistribution::from_knots(levels, ms).map_err(|e| {
        renamed(
            e,
            &[
                ("knots", "service.empirical"),
                ("knots.levels", "service.empirical.levels"),
                ("knots.ms", "service.empirical.ms"),
            ],
        )
    })?;
    ServiceModel::empirical(Arc::new(distribution)).map_err(range)
}

/// The core names its parameters as Rust does; say them as the caller wrote them.
fn renamed(e: ParamError, names: &[(&str, &'static str)]) -> JsValue {
    let as_written = |param: &'static str| {
        names
            .iter()
            .find(|(from, _)| *from == param)
            .map_or(param, |(_, to)| to)
    };
    let e = match e {
        ParamError::OutOfRange {
            param,
            got,
            expected,
        } => ParamError::OutOfRange {
            param: as_written(param),
            got,
            expected,
        },
        ParamError::UnknownName {
            param,
            got,
            expected,
        } => ParamError::UnknownName {
            param: as_written(param),
            got,
            expected,
        },
        ParamError::NotAccepted {
            param,
            got,
            expected,
        } => ParamError::NotAccepted {
            param: as_written(param),
            got,
            expected,
        },
        ParamError::Conflict { param, reason } => ParamError::Conflict {
            param: as_written(param),
            reason,
        },
        // The core's empirical knots and lognormals raise neither.
        other @ (ParamError::Shape { .. } | ParamError::Within { .. }) => other,
    };
    range(e)
}

fn required(parent: &Options, key: &str, what: &str) -> Result<JsValue, JsValue> {
    parent
        .get(key)
        .ok_or_else(|| JsValue::from(js_sys::TypeError::new(&format!("{what} is required"))))
}

/// `{ medianMs, sigma }` under `names` (the caller's spelling of median and sigma).
fn lognormal(
    param: &'static str,
    v: &JsValue,
    names: [&'static str; 2],
    known: &'static [&'static str],
) -> Result<LogNormalMs, JsValue> {
    lognormal_of(&Options::read(param, v, known)?, names)
}

/// The lognormal of options already read (each key read once).
fn lognormal_of(o: &Options, names: [&'static str; 2]) -> Result<LogNormalMs, JsValue> {
    let median = number(names[0], &required(o, "medianMs", names[0])?)?;
    let sigma = number(names[1], &required(o, "sigma", names[1])?)?;
    LogNormalMs::new(median, sigma)
        .map_err(|e| renamed(e, &[("median_ms", names[0]), ("sigma", names[1])]))
}

/// `{ body: { medianMs, sigma }, slow?: { p, medianMs, sigma } }` or `{ empirical: { levels,
/// ms } }` → a [`ServiceModel`]; absent means the Lab's default (body 7.7 ms, σ 0.5; 1% slow
/// mode at 1 s, σ 0.35).
pub fn service(v: Option<JsValue>) -> Result<ServiceModel, JsValue> {
    let Some(v) = v else {
        return Ok(ServiceModel::default());
    };
    let o = Options::read("service", &v, &["body", "slow", "empirical"])?;
    if let Some(knots) = o.get("empirical") {
        if o.get("body").is_some() || o.get("slow").is_some() {
            return Err(js_sys::TypeError::new(
                "service: give empirical, or body and slow, not both",
            )
            .into());
        }
        return empirical(&knots);
    }
    let body = required(&o, "body", "service.body ({ medianMs, sigma })")?;
    let body = lognormal(
        "service.body",
        &body,
        ["service.body.medianMs", "service.body.sigma"],
        &["medianMs", "sigma"],
    )?;
    match o.get("slow") {
        None => ServiceModel::new(body, 0.0, body).map_err(range),
        Some(slow) => {
            let so = Options::read("service.slow", &slow, &["p", "medianMs", "sigma"])?;
            let p = number("service.slow.p", &required(&so, "p", "service.slow.p")?)?;
            // The keys were read once, above: a getter on `slow` runs once.
            let mode = lognormal_of(&so, ["service.slow.medianMs", "service.slow.sigma"])?;
            ServiceModel::new(body, p, mode)
                .map_err(|e| renamed(e, &[("slow_probability", "service.slow.p")]))
        }
    }
}
