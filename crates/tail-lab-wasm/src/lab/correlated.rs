//! Correlated stragglers (core `correlated`): `simulateCorrelated` and its closed forms,
//! `correlatedTheory`.

use crate::convert::{Options, check_work, count, number, object, seed};
use crate::describe::js_of;
use crate::error::range;
use crate::lab::service::service;
use js_sys::TypeError;
use tail_lab_core::lab::correlated::{
    CorrelatedParams, Delay, FANOUT, REQUESTS_PER_CALL, closed_form, simulate,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const CORRELATED_TS: &str = r#"
/** Options of `simulateCorrelated` and `correlatedTheory`: n leaves, each taking the request's
 * shared draw (its episode) with probability `c`, else its own; every leaf's own law is the
 * service model's. Give `delayQ` or `delayMs`, not both. */
export interface CorrelatedOptions {
  /** Leaves per request, 1..=1000. Default 100. */
  n?: number;
  /** Leaf correlation, 0..=1: the chance that a leaf takes the shared draw. Default 0.3. */
  c?: number;
  /** Replica correlation, 0..=1: the chance that a hedge's backup takes its primary's own draw. Default 0.5. */
  cr?: number;
  /** The share of leaves the partial-results parent drops, 0..=0.5. Default 0.01. */
  drop?: number;
  /** The hedge delay as a quantile level of the service time, in (0, 1). Default 0.95. */
  delayQ?: number;
  /** The hedge delay in ms (0..=1e9), instead of `delayQ`. */
  delayMs?: number;
  /** The slow level, in (0, 1): a leaf is slow above its (1 − p)-quantile. Default 0.01. */
  p?: number;
  /** Requests simulated (`simulateCorrelated` only), 1..=1e7, and 4 × requests × n at most the work limit. Default 20000. */
  requests?: number;
  /** The seed (`simulateCorrelated` only). */
  seed?: number | bigint;
  /** Your own service model; default: the Lab's. */
  service?: ServiceOptions;
}
/** One fix's closed forms: the parent's percentiles (ms) and slow share. */
export interface CorrelatedTheoryOutcome {
  p50: number;
  p99: number;
  p999: number;
  /** The share of parents later than the slow threshold (fraction 0..1). */
  slowShare: number;
}
/** The closed forms of `simulateCorrelated` at one setting (its `c`; pass `c: 0` for independence). */
export interface CorrelatedTheory {
  /** Leaves the partial-results parent drops. */
  dropped: number;
  /** The hedge delay (ms). */
  delayMs: number;
  /** The slow threshold: the leaf's (1 − p)-quantile (ms). */
  slowMs: number;
  /** The leaf's own median, p99 and p99.9 (ms), the same at every c. */
  leafP50: number;
  leafP99: number;
  leafP999: number;
  none: CorrelatedTheoryOutcome;
  drop: CorrelatedTheoryOutcome;
  hedge: CorrelatedTheoryOutcome;
}
"#;

/// The options of `simulateCorrelated`.
const SIMULATE_KEYS: &[&str] = &[
    "n", "c", "cr", "drop", "delayQ", "delayMs", "p", "requests", "seed", "service",
];
/// The options of `correlatedTheory`: the same without `requests` and `seed`.
const THEORY_KEYS: &[&str] = &["n", "c", "cr", "drop", "delayQ", "delayMs", "p", "service"];

/// Reads the options both calls take (`requests` and `seed` only when `simulate`).
fn params(opts: &JsValue, simulate: bool) -> Result<CorrelatedParams, JsValue> {
    let o = Options::read(
        "options",
        opts,
        if simulate { SIMULATE_KEYS } else { THEORY_KEYS },
    )?;
    let n = o.optional("n", 100, |v| count("n", v, &FANOUT).map(|n| n as u32))?;
    let c = o.optional("c", 0.3, |v| number("c", v))?;
    let cr = o.optional("cr", 0.5, |v| number("cr", v))?;
    let drop = o.optional("drop", 0.01, |v| number("drop", v))?;
    let p = o.optional("p", 0.01, |v| number("p", v))?;
    let (requests, seed) = if simulate {
        (
            o.optional("requests", 20_000, |v| {
                count("requests", v, &REQUESTS_PER_CALL)
            })?,
            o.optional("seed", 1, |v| seed("seed", v))?,
        )
    } else {
        (1, 1)
    };
    let model = service(o.get("service"))?;
    let delay = match (o.get("delayMs"), o.get("delayQ")) {
        (Some(_), Some(_)) => return Err(TypeError::new("give delayQ or delayMs, not both").into()),
        (Some(ms), None) => Delay::Ms(number("delayMs", &ms)?),
        (None, q) => Delay::Quantile(q.map(|v| number("delayQ", &v)).transpose()?.unwrap_or(0.95)),
    };
    Ok(CorrelatedParams {
        model,
        n,
        c,
        cr,
        drop,
        delay,
        p,
        requests,
        seed,
    })
}

/// Correlated stragglers: the parent of `n` leaves that share a slow episode with probability
/// `c` each, with no fix, its slowest leaves dropped and a hedge, at `c` and at `c = 0`, beside
/// the closed forms; the hedge's gain as the replica correlation rises; the leaf's own law.
#[wasm_bindgen(js_name = simulateCorrelated, unchecked_return_type = "CorrelatedResult")]
pub fn simulate_correlated(
    #[wasm_bindgen(unchecked_param_type = "CorrelatedOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let params = params(&opts, true)?;
    check_work("4 × requests × n", params.work_units())?;
    Ok(js_of(&simulate(params).map_err(range)?))
}

/// The closed forms of [`simulate_correlated`] at one setting: each fix's parent percentiles
/// and slow share at its `c`, and the leaf's own median, p99 and p99.9. Under a millisecond in
/// node at any `n` and drop, so a page may call it on the main thread.
#[wasm_bindgen(js_name = correlatedTheory, unchecked_return_type = "CorrelatedTheory")]
pub fn correlated_theory(
    #[wasm_bindgen(unchecked_param_type = "CorrelatedOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let checked = params(&opts, false)?.check().map_err(range)?;
    let model = &checked.params().model;
    let outcome = |setting| {
        let [p50, p99, p999, slow] = closed_form(model, setting, checked.slow_ms);
        object(&[
            ("p50", p50.into()),
            ("p99", p99.into()),
            ("p999", p999.into()),
            ("slowShare", slow.into()),
        ])
    };
    let [none, drop, hedge] = checked.settings(checked.params().c);
    Ok(object(&[
        ("dropped", checked.dropped.into()),
        ("delayMs", checked.delay_ms.into()),
        ("slowMs", checked.slow_ms.into()),
        ("leafP50", model.quantile(0.5).into()),
        ("leafP99", model.quantile(0.99).into()),
        ("leafP999", model.quantile(0.999).into()),
        ("none", outcome(none)),
        ("drop", outcome(drop)),
        ("hedge", outcome(hedge)),
    ]))
}
