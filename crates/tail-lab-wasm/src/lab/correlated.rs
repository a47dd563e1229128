//! Correlated stragglers (core `correlated`): its closed forms, `correlatedTheory`, read
//! from the options the core declares (`simulateCorrelated` is generated: `crate::api`).

use crate::convert::object;
use crate::error::range;
use tail_lab_core::lab::correlated::{CALL, OPTIONS, closed_form, params};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const CORRELATED_TS: &str = r#"
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

/// The closed forms of `simulateCorrelated` at one setting: each fix's parent percentiles
/// and slow share at its `c`, and the leaf's own median, p99 and p99.9. Under a millisecond in
/// node at any `n` and drop, so a page may call it on the main thread.
#[wasm_bindgen(js_name = correlatedTheory, unchecked_return_type = "CorrelatedTheory")]
pub fn correlated_theory(
    #[wasm_bindgen(unchecked_param_type = "CorrelatedOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = crate::api::read_options(OPTIONS, CALL.exclusive, &opts)?;
    let checked = params(&o).check().map_err(range)?;
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
