//! Mitigations (core `mitigation`): `mitigations()`, `droppedLeaves(fix, fanout)`.

use crate::convert::{count, object, opt_number, string};
use crate::error::range;
use js_sys::Array;
use tail_lab_core::tail::mitigation::Mitigation;
use tail_lab_core::theory::FANOUT;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const DROPPED_TS: &str = r#"
/** What a fix leaves out of a parent's answer at one fan-out (see `droppedLeaves`). */
export interface DroppedLeaves {
  /** Leaves the parent answers without, slow or not: ⌊fanout · k / 100⌋ for "drop slowest
   * k%", 0 for the other fixes. */
  leaves: number;
  /** `leaves / fanout`: the share of leaves dropped, a fraction 0..=0.5. */
  share: number;
  /** The smallest fan-out at which the fix drops a leaf at all (100 for "drop-1", 20 for
   * "drop-5"); null for a fix that never drops. */
  firstFanout: number | null;
}
"#;

/// Parses a mitigation ("fix") name.
pub fn fix(v: &JsValue) -> Result<Mitigation, JsValue> {
    Mitigation::from_name(&string("fix", v)?).map_err(range)
}

/// The mitigations a parent can apply: `[{ name, label }]`.
#[wasm_bindgen(unchecked_return_type = "Mitigation[]")]
pub fn mitigations() -> Array {
    Mitigation::PRESETS
        .iter()
        .map(|(name, label, _)| object(&[("name", (*name).into()), ("label", (*label).into())]))
        .collect()
}

/// What fix `fix` leaves out at fan-out `fanout` (1..=1024): `{ leaves, share, firstFanout }`.
#[wasm_bindgen(js_name = droppedLeaves, unchecked_return_type = "DroppedLeaves")]
pub fn dropped_leaves(
    #[wasm_bindgen(js_name = fix, unchecked_param_type = "FixName")] fix_name: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] fanout: JsValue,
) -> Result<JsValue, JsValue> {
    let m = fix(&fix_name)?;
    let n = count("fanout", &fanout, &FANOUT)? as u32;
    let share = m.dropped_share(n).map_err(range)?;
    Ok(object(&[
        ("leaves", f64::from(m.dropped_leaves(n)).into()),
        ("share", share.into()),
        (
            "firstFanout",
            opt_number(m.first_dropping_fanout().map(f64::from)),
        ),
    ]))
}
