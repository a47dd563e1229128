//! Reading arguments and option objects from JS, and building plain result objects.

use crate::error::{range, wrong_type};
use js_sys::{Object, Reflect};
use tail_lab_core::ParamError;
use tail_lab_core::error::CountRange;
use wasm_bindgen::{JsCast, JsValue};

/// Refuses a call whose work in units (`what` says how it is counted, e.g. "requests ×
/// fanout") is over the core's limit ([`tail_lab_core::api::WORK_LIMIT`]), in the core's words
/// ([`tail_lab_core::api::Work::check`]), for the calls the core does not declare yet.
pub fn check_work(what: &str, work: f64) -> Result<(), JsValue> {
    crate::api::check_work(&tail_lab_core::api::Work {
        units: work,
        counted_as: what.to_string(),
    })
}

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

/// A JS number that must be a whole number in `range`: the bounds and the words are the
/// core's, only the conversion is the binding's.
pub fn count(param: &'static str, v: &JsValue, range: &CountRange) -> Result<u64, JsValue> {
    range
        .check_number(param, number(param, v)?)
        .map_err(crate::error::range)
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
            // A bigint of 400 digits is said by its size, not written out.
            let got = if text.len() > 24 {
                format!("a bigint of {} digits", text.trim_start_matches('-').len())
            } else {
                format!("{text}n")
            };
            js_sys::RangeError::new(&format!(
                "{param} must be an integer in 0..=2^64-1 (got {got})"
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

/// The reflection the options reader needs, declared with `catch`: a Proxy trap or a replaced
/// built-in that throws comes back as an `Err` instead of unwinding through wasm. (The glue
/// also resets the module after any exception that does unwind: `xtask/src/glue.rs`.)
#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn own_enumerable_keys(o: &JsValue) -> Result<js_sys::Array, JsValue>;
    #[wasm_bindgen(js_namespace = Object, js_name = getPrototypeOf, catch)]
    fn prototype_of(o: &JsValue) -> Result<JsValue, JsValue>;
    /// A `Float64Array` the module made, seen only for its `set`.
    #[wasm_bindgen(js_name = Float64Array)]
    type OwnFloat64Array;
    #[wasm_bindgen(method, js_class = "Float64Array", js_name = set, catch)]
    fn set_from(this: &OwnFloat64Array, source: &JsValue) -> Result<(), JsValue>;
}

/// A `Float64Array` argument copied into the module. Its `length` is read once (through a
/// catching import) and checked by `check`; the values are then copied into a fresh array of
/// that length with `set`, also catching, so a subclass or Proxy whose length changes between
/// reads gets a `RangeError`, never a panic.
pub fn float64_values(
    param: &'static str,
    v: &JsValue,
    expected: &'static str,
    check: impl FnOnce(f64) -> Result<usize, JsValue>,
) -> Result<Vec<f64>, JsValue> {
    if v.dyn_ref::<js_sys::Float64Array>().is_none() {
        return Err(wrong_type(param, expected, v));
    }
    let length = Reflect::get(v, &JsValue::from_str("length"))?
        .as_f64()
        .unwrap_or(f64::NAN);
    let n = check(length)?;
    let own = js_sys::Float64Array::new_with_length(n as u32);
    own.unchecked_ref::<OwnFloat64Array>().set_from(v)?;
    Ok(own.to_vec())
}

/// An options object, read once: a plain object (or `undefined`/`null`, meaning "all
/// defaults") whose *own enumerable* keys are all ones the call knows, each value read exactly
/// once. Inherited keys are never read (a polluted `Object.prototype` cannot set an option). A
/// misspelt key is an error naming it and the known ones, not a silent default; a getter or a
/// Proxy trap that throws has its error passed on.
pub struct Options {
    values: Vec<(&'static str, JsValue)>,
}

impl Options {
    /// Reads `v` as the options `param` of a call that knows the keys `known`.
    pub fn read(param: &str, v: &JsValue, known: &[&'static str]) -> Result<Options, JsValue> {
        if v.is_undefined() || v.is_null() {
            return Ok(Options { values: Vec::new() });
        }
        if !is_plain_object(v)? {
            return Err(wrong_type(param, "a plain options object", v));
        }
        let own = own_enumerable_keys(v)?;
        let mut present = Vec::with_capacity(known.len());
        for i in 0..own.length() {
            let key = own.get(i).as_string().unwrap_or_default();
            match known.iter().find(|k| **k == key) {
                Some(k) => present.push(*k),
                None => {
                    return Err(js_sys::TypeError::new(&format!(
                        "{param} has an unknown key {}; the known ones are {}",
                        tail_lab_core::error::echoed(&key),
                        known.join(", ")
                    ))
                    .into());
                }
            }
        }
        let mut values = Vec::with_capacity(present.len());
        // In the order the call knows them, so errors come in a fixed order.
        for &key in known.iter().filter(|k| present.contains(k)) {
            let value = Reflect::get(v, &JsValue::from_str(key))?;
            if !value.is_undefined() {
                values.push((key, value));
            }
        }
        Ok(Options { values })
    }

    /// The value under `key`, or `None` when absent or `undefined`.
    pub fn get(&self, key: &str) -> Option<JsValue> {
        self.values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
    }

    /// The value under `key` parsed by `parse`, or `default` when absent or `undefined`.
    pub fn optional<T>(
        &self,
        key: &str,
        default: T,
        parse: impl FnOnce(&JsValue) -> Result<T, JsValue>,
    ) -> Result<T, JsValue> {
        self.get(key).map_or(Ok(default), |v| parse(&v))
    }
}

/// True for `{}`-style objects: prototype `Object.prototype` or `null`. Arrays, Maps, Dates,
/// boxed primitives, typed arrays and class instances are not options objects. A Proxy whose
/// `getPrototypeOf` trap throws passes its error on.
fn is_plain_object(v: &JsValue) -> Result<bool, JsValue> {
    if !v.is_object() || v.is_function() {
        return Ok(false);
    }
    let proto = prototype_of(v)?;
    Ok(proto.is_null() || proto == JsValue::from(Object::get_prototype_of(&Object::new())))
}

/// Builds a plain object from key/value pairs. Built with `Object.fromEntries`, which defines
/// properties rather than assigning them, so no setter on `Object.prototype` runs page code
/// while the module is busy. `Object.fromEntries` only fails when the page has replaced a
/// built-in it uses (the array iterator, say): then the page's exception is thrown on, which
/// resets the module like any exception through wasm, rather than a `null` result.
pub fn object(pairs: &[(&str, JsValue)]) -> JsValue {
    let entries = js_sys::Array::new();
    for (k, v) in pairs {
        entries.push(&js_sys::Array::of2(&JsValue::from_str(k), v));
    }
    match Object::from_entries(&entries) {
        Ok(o) => o.into(),
        Err(e) => wasm_bindgen::throw_val(e),
    }
}

/// A number or `null` for `None`.
pub fn opt_number(v: Option<f64>) -> JsValue {
    v.map(JsValue::from_f64).unwrap_or(JsValue::NULL)
}
