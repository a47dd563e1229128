//! Mitigations (core `mitigation`): `mitigations()`.

use crate::convert::{object, string};
use crate::error::range;
use js_sys::Array;
use tail_lab_core::tail::mitigation::Mitigation;
use wasm_bindgen::prelude::*;

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
