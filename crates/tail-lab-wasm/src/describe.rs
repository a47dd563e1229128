//! Results as JS objects, rendered from the core's description (core `describe`): the keys are
//! the described keys in camelCase, series are `Float64Array`s, nested records objects. The
//! TypeScript of the same shapes is generated from the same description (`typescript.rs`).

use crate::convert::object;
use js_sys::Float64Array;
use tail_lab_core::describe::{Describe, Field, Value, camel_case};
use wasm_bindgen::prelude::*;

/// `result` as a plain JS object.
pub fn js_of(result: &impl Describe) -> JsValue {
    js(&result.describe())
}

/// Described fields as a plain JS object.
pub fn js(fields: &[Field]) -> JsValue {
    let pairs: Vec<(String, JsValue)> = fields
        .iter()
        .map(|f| (camel_case(f.key), value(&f.value)))
        .collect();
    let borrowed: Vec<(&str, JsValue)> =
        pairs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    object(&borrowed)
}

fn value(v: &Value) -> JsValue {
    match v {
        Value::Number(x) => JsValue::from_f64(*x),
        Value::MaybeNumber(x) => x.map_or(JsValue::NULL, JsValue::from_f64),
        // Exact: every described integer is a count far below 2^53.
        Value::Integer(n) => JsValue::from_f64(*n as f64),
        Value::Flag(b) => JsValue::from_bool(*b),
        Value::Name { value, .. } => JsValue::from_str(value),
        Value::MaybeText(t) => t.as_deref().map_or(JsValue::NULL, JsValue::from_str),
        Value::Series(xs) => Float64Array::from(&xs[..]).into(),
        Value::Record { fields, .. } => js(fields),
    }
}

#[wasm_bindgen(typescript_custom_section)]
const RESULTS_TS: &str = include_str!(concat!(env!("OUT_DIR"), "/results.d.ts"));

#[wasm_bindgen(typescript_custom_section)]
const MODELS_TS: &str = r#"
/** A registered model: its report key (the `tail-lab report --json` key), the API call that
 * runs it (null for the Tail piece, which is the class `TailRun`), the TypeScript interface of
 * its result, and whether the report holds a sweep of them. */
export interface ModelInfo {
  key: string; title: string; call: string | null; resultType: string; sweep: boolean;
  /** The closed forms of the API that belong to the model (microseconds each). */
  closedForms: string[];
}
"#;

/// What `models()` says of one registered model (the core's `Model` without its runners).
struct ModelInfo {
    key: &'static str,
    title: &'static str,
    call: Option<&'static str>,
    result_type: &'static str,
    sweep: bool,
    closed_forms: &'static [&'static str],
}

/// `tail_lab_core::model::MODELS`, as the build script wrote it out.
const MODELS: &[ModelInfo] = include!(concat!(env!("OUT_DIR"), "/models.rs"));

/// Every registered model, in the report's order.
#[wasm_bindgen(js_name = models, unchecked_return_type = "ModelInfo[]")]
pub fn models() -> JsValue {
    let list = js_sys::Array::new();
    for m in MODELS {
        list.push(&object(&[
            ("key", JsValue::from_str(m.key)),
            ("title", JsValue::from_str(m.title)),
            ("call", m.call.map_or(JsValue::NULL, JsValue::from_str)),
            ("resultType", JsValue::from_str(m.result_type)),
            ("sweep", JsValue::from_bool(m.sweep)),
            (
                "closedForms",
                m.closed_forms
                    .iter()
                    .map(|n| JsValue::from_str(n))
                    .collect::<js_sys::Array>()
                    .into(),
            ),
        ]));
    }
    list.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_list_is_the_core_registry() {
        let core = tail_lab_core::model::MODELS;
        assert_eq!(MODELS.len(), core.len());
        for (m, c) in MODELS.iter().zip(core) {
            assert_eq!(
                (
                    m.key,
                    m.title,
                    m.call,
                    m.result_type,
                    m.sweep,
                    m.closed_forms
                ),
                (
                    c.key,
                    c.title,
                    c.call,
                    c.result_type,
                    c.sweep,
                    c.closed_forms
                )
            );
        }
    }
}
