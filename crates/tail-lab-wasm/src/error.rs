//! `ParamError` → JS errors. The messages come from the core; this file only picks the class.

use js_sys::{RangeError, TypeError};
use tail_lab_core::ParamError;
use wasm_bindgen::JsValue;

/// A bad value (out of range, NaN, unknown name) becomes a `RangeError`; arguments of the
/// wrong shape (one missing that another needs, two that go together given apart:
/// [`ParamError::is_shape`]) a `TypeError`.
pub fn range(e: ParamError) -> JsValue {
    if e.is_shape() {
        TypeError::new(&e.to_string()).into()
    } else {
        RangeError::new(&e.to_string()).into()
    }
}

/// A value of the wrong JS type becomes a `TypeError` naming the argument.
pub fn wrong_type(param: &str, expected: &str, got: &JsValue) -> JsValue {
    TypeError::new(&format!(
        "{param} must be {expected} (got {})",
        describe(got)
    ))
    .into()
}

fn describe(v: &JsValue) -> String {
    if v.is_undefined() {
        "undefined".into()
    } else if v.is_null() {
        "null".into()
    } else if let Some(s) = v.as_string() {
        format!("the string {}", tail_lab_core::error::echoed(&s))
    } else if v.is_bigint() {
        "a bigint".into()
    } else if v.is_object() {
        "an object".into()
    } else {
        v.js_typeof().as_string().unwrap_or_default()
    }
}
