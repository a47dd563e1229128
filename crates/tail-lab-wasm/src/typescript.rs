//! The TypeScript declarations of every registered model's result, rendered from the core's
//! description (`tail_lab_core::describe`). The build script renders them into the package's
//! `.d.ts`; this file depends on the core alone, so the build script can include it.

use tail_lab_core::describe::{Field, Value, camel_case};
use tail_lab_core::model::MODELS;

/// Every registered model's result interface (and the interfaces nested in it), in model order.
pub fn declarations() -> String {
    let mut out = String::from(
        "\n// Results: generated from the core's descriptions (tail_lab_core::describe).\n",
    );
    for model in MODELS {
        let fields = (model.example)();
        interface(&mut out, model.result_type, model.result_doc, &fields);
    }
    out
}

/// `fields` as `export interface name { … }`, after the interfaces of its nested records.
pub fn interface(out: &mut String, name: &str, doc: &str, fields: &[Field]) {
    for f in fields {
        if let Value::Record { name, fields } = &f.value {
            interface(out, name, f.doc, fields);
        }
    }
    out.push_str(&format!("/** {doc} */\nexport interface {name} {{\n"));
    for f in fields {
        let unit = f.unit.describe();
        let unit = if unit.is_empty() {
            String::new()
        } else {
            format!(" ({unit})")
        };
        out.push_str(&format!(
            "  /** {}{unit} */\n  {}: {};\n",
            f.doc,
            camel_case(f.key),
            type_of(&f.value)
        ));
    }
    out.push_str("}\n");
}

/// The TypeScript type of a value.
pub fn type_of(v: &Value) -> String {
    match v {
        Value::Number(_) | Value::Integer(_) => "number".into(),
        Value::MaybeNumber(_) => "number | null".into(),
        Value::Flag(_) => "boolean".into(),
        Value::Name { choices, .. } => choices
            .iter()
            .map(|c| format!("{c:?}"))
            .collect::<Vec<_>>()
            .join(" | "),
        Value::MaybeText(_) => "string | null".into(),
        Value::Series(_) => "Float64Array".into(),
        Value::Record { name, .. } => (*name).into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_declares_its_result_with_typed_fields() {
        let ts = declarations();
        for model in MODELS {
            assert!(ts.contains(&format!("export interface {} {{", model.result_type)));
        }
        // Names are unions of their choices, missing values are null, series typed arrays.
        assert!(
            ts.contains("policy: \"none\" | \"hedge\" | \"duplicate\";"),
            "{ts}"
        );
        assert!(ts.contains("unstableReason: string | null;"));
        assert!(ts.contains("export interface SurvivalCurves {"));
        assert!(ts.contains("tMs: Float64Array;"));
        assert!(ts.contains("curves: SurvivalCurves;"));
        assert!(ts.contains("/** Mean latency after warm-up. (ms) */\n  mean: number | null;"));
    }
}
