//! Renders, from the core's registry and descriptions: the TypeScript declarations of every
//! registered model's result into `$OUT_DIR/results.d.ts` (which `describe.rs` adds to the
//! package's `.d.ts`), and the list `models()` returns into `$OUT_DIR/models.rs`, so the wasm
//! module carries the list's words and not the models' report runners; and every registered
//! call's exported function and options interface (`calls.rs`, `options.d.ts`).

#[path = "src/typescript.rs"]
mod typescript;

fn main() {
    println!("cargo:rerun-if-changed=src/typescript.rs");
    println!("cargo:rerun-if-changed=../tail-lab-core/src");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let path = std::path::Path::new(&out).join("results.d.ts");
    std::fs::write(&path, typescript::declarations()).expect("OUT_DIR is writable");
    let mut models = String::from("&[\n");
    for m in tail_lab_core::model::MODELS {
        models.push_str(&format!(
            "    ModelInfo {{ key: {:?}, title: {:?}, call: {:?}, result_type: {:?}, sweep: {:?}, \
             closed_forms: &{:?} }},\n",
            m.key, m.title, m.call, m.result_type, m.sweep, m.closed_forms
        ));
    }
    models.push(']');
    std::fs::write(std::path::Path::new(&out).join("models.rs"), models)
        .expect("OUT_DIR is writable");
    calls(std::path::Path::new(&out));
}

/// Every registered call ([`tail_lab_core::api`]): its exported function into `calls.rs`
/// (included by `src/api.rs`), its options' interface into `options.d.ts`.
fn calls(out: &std::path::Path) {
    let mut rust = String::new();
    let mut ts = String::from(
        "\n// Options: generated from the core's declarations (tail_lab_core::api).\n",
    );
    ts.push_str(&tail_lab_core::api::service_typescript());
    for model in tail_lab_core::model::MODELS {
        let Some(call) = model.api else { continue };
        ts.push_str(&call.typescript());
        rust.push_str(&format!(
            "#[doc = {doc:?}]\n\
             #[wasm_bindgen(js_name = {name}, unchecked_return_type = {result:?})]\n\
             pub fn {rust_name}(\n    \
                 #[wasm_bindgen(unchecked_param_type = {options:?})] opts: JsValue,\n\
             ) -> Result<JsValue, JsValue> {{\n    run({key:?}, &opts)\n}}\n\n",
            doc = call.doc,
            name = call.name,
            result = call.result_type,
            rust_name = snake_case(call.name),
            options = format!("{} | undefined", call.options_type),
            key = model.key,
        ));
    }
    std::fs::write(out.join("calls.rs"), rust).expect("OUT_DIR is writable");
    std::fs::write(out.join("options.d.ts"), ts).expect("OUT_DIR is writable");
}

/// `simulateQueue` → `simulate_queue`.
fn snake_case(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}
