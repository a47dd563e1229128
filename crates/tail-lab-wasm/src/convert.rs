//! Reading arguments and option objects from JS, and building plain result objects.

use crate::error::{range, wrong_type};
use js_sys::{Object, Reflect};
use tail_lab_core::ParamError;
use wasm_bindgen::{JsCast, JsValue};

/// Largest integer a JS number holds exactly.
pub const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// A JS number (not NaN-checked: range checks reject NaN with a `RangeError`).
pub fn number(param: &'static str, v: &JsValue) -> Result<f64, JsValue> {
    v.as_f64().ok_or_else(|| wrong_type(param, "a number", v))
}

/// An integer in `lo..=hi`.
pub fn integer(
    param: &'static str,
    v: &JsValue,
    lo: f64,
    hi: f64,
    expected: &'static str,
) -> Result<f64, JsValue> {
    let x = number(param, v)?;
    if x.is_finite() && x.fract() == 0.0 && x >= lo && x <= hi {
        Ok(x)
    } else {
        Err(range(ParamError::OutOfRange {
            param,
            got: x,
            expected,
        }))
    }
}

/// A seed: a safe non-negative integer number, or a bigint in `0..2^64`.
pub fn seed(param: &'static str, v: &JsValue) -> Result<u64, JsValue> {
    if v.is_bigint() {
        let b: js_sys::BigInt = v.clone().unchecked_into();
        let text = b
            .to_string(10)
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or_default();
        return text.parse::<u64>().map_err(|_| {
            js_sys::RangeError::new(&format!(
                "{param} must be an integer in 0..=2^64-1 (got {text}n)"
            ))
            .into()
        });
    }
    Ok(integer(
        param,
        v,
        0.0,
        MAX_SAFE,
        "an integer in 0..=2^53-1 (or a bigint below 2^64)",
    )? as u64)
}

/// A string.
pub fn string(param: &'static str, v: &JsValue) -> Result<String, JsValue> {
    v.as_string()
        .ok_or_else(|| wrong_type(param, "a string", v))
}

/// An options object (or `undefined`/`null`, meaning "all defaults").
pub fn options(param: &'static str, v: &JsValue) -> Result<Option<Object>, JsValue> {
    if v.is_undefined() || v.is_null() {
        Ok(None)
    } else if v.is_object() && !js_sys::Array::is_array(v) {
        Ok(Some(v.clone().unchecked_into()))
    } else {
        Err(wrong_type(param, "an options object", v))
    }
}

/// `options[key]`, or `None` when absent or `undefined`.
pub fn field(options: &Option<Object>, key: &str) -> Option<JsValue> {
    let o = options.as_ref()?;
    Reflect::get(o, &JsValue::from_str(key))
        .ok()
        .filter(|v| !v.is_undefined())
}

/// `options[key]` parsed by `parse`, or `default` when the field is absent or `undefined`.
pub fn optional<T>(
    options: &Option<Object>,
    key: &str,
    default: T,
    parse: impl FnOnce(&JsValue) -> Result<T, JsValue>,
) -> Result<T, JsValue> {
    field(options, key).map_or(Ok(default), |v| parse(&v))
}

/// Builds a plain object from key/value pairs.
pub fn object(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        // Setting a property on a fresh plain object cannot fail.
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    o.into()
}

/// A number or `null` for `None`.
pub fn opt_number(v: Option<f64>) -> JsValue {
    v.map(JsValue::from_f64).unwrap_or(JsValue::NULL)
}
