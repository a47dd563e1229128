//! Hedging on idle replicas (core `hedge_idle`): `simulateHedge`.

use crate::convert::{Options, integer, number, object, seed};
use crate::error::range;
use crate::lab::service::service;
use js_sys::{Float64Array, TypeError};
use tail_lab_core::lab::hedge_idle::IdleHedge;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const HEDGE_TS: &str = r#"
/** Options of `simulateHedge`. Give `delayQ` or `delayMs`, not both. */
export interface HedgeOptions {
  /** The hedge delay as a quantile level of the service time, in (0, 1). Default 0.95. */
  delayQ?: number;
  /** The hedge delay in ms (≥ 0), instead of `delayQ`. */
  delayMs?: number;
  /** Requests simulated, 1..=1e7. Default 200000. */
  requests?: number;
  seed?: number | bigint;
  /** Your own service model; default: the Lab's. */
  service?: ServiceOptions;
}
/** Latency survival P(T > t) at `tMs`, simulated and in closed form. */
export interface SurvivalCurves {
  tMs: Float64Array; before: Float64Array; after: Float64Array;
  theoryBefore: Float64Array; theoryAfter: Float64Array;
}
/** `tail-lab report`'s `hedge_idle` entry in camelCase (ms and fractions 0..1), plus curves. */
export interface HedgeResult {
  requests: number;
  /** The delay's quantile level, or null when `delayMs` was given. */
  delayQ: number | null;
  delayMs: number;
  p50Before: number; p99Before: number; p999Before: number;
  p50After: number; p99After: number; p999After: number;
  theoryP999Before: number; theoryP999After: number;
  extraRequests: number; theoryExtraRequests: number;
  extraWork: number; theoryExtraWork: number;
  curves: SurvivalCurves;
}
"#;

/// Hedged requests on idle replicas: the backup goes out once the primary has been
/// outstanding for the delay, and the first answer wins.
#[wasm_bindgen(js_name = simulateHedge, unchecked_return_type = "HedgeResult")]
pub fn simulate_hedge(
    #[wasm_bindgen(unchecked_param_type = "HedgeOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read(
        "options",
        &opts,
        &["delayQ", "delayMs", "requests", "seed", "service"],
    )?;
    let requests = o.optional("requests", 200_000.0, |v| {
        integer("requests", v, 1.0, 1e7, "an integer in 1..=10000000")
    })? as u64;
    let seed = o.optional("seed", 1, |v| seed("seed", v))?;
    let model = service(o.get("service"))?;
    let delay_ms = o
        .get("delayMs")
        .map(|v| number("delayMs", &v))
        .transpose()?;
    let hedge = match (delay_ms, o.get("delayQ")) {
        (Some(_), Some(_)) => {
            return Err(TypeError::new("give delayQ or delayMs, not both").into());
        }
        (Some(ms), None) => IdleHedge::with_delay_ms(model, ms, seed),
        (None, q) => {
            let q = q.map(|v| number("delayQ", &v)).transpose()?.unwrap_or(0.95);
            IdleHedge::new(model, q, seed)
        }
    }
    .map_err(range)?;
    let (r, c) = hedge.run_with_curves(requests).map_err(range)?;
    let array = |v: &[f64]| JsValue::from(Float64Array::from(v));
    let curves = object(&[
        ("tMs", array(&c.t_ms)),
        ("before", array(&c.before)),
        ("after", array(&c.after)),
        ("theoryBefore", array(&c.theory_before)),
        ("theoryAfter", array(&c.theory_after)),
    ]);
    Ok(object(&[
        ("requests", (r.requests as f64).into()),
        (
            "delayQ",
            if delay_ms.is_some() {
                JsValue::NULL
            } else {
                r.delay_quantile.into()
            },
        ),
        ("delayMs", r.delay_ms.into()),
        ("p50Before", r.before.p50.into()),
        ("p99Before", r.before.p99.into()),
        ("p999Before", r.before.p999.into()),
        ("p50After", r.after.p50.into()),
        ("p99After", r.after.p99.into()),
        ("p999After", r.after.p999.into()),
        ("theoryP999Before", r.theory_p999_before.into()),
        ("theoryP999After", r.theory_p999_after.into()),
        ("extraRequests", r.extra_requests.into()),
        ("theoryExtraRequests", r.theory_extra_requests.into()),
        ("extraWork", r.extra_work.into()),
        ("theoryExtraWork", r.theory_extra_work.into()),
        ("curves", curves),
    ]))
}
