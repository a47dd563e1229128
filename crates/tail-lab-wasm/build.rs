//! Renders, from the core's registry and descriptions: the TypeScript declarations of every
//! registered model's result into `$OUT_DIR/results.d.ts` (which `describe.rs` adds to the
//! package's `.d.ts`), and the list `models()` returns into `$OUT_DIR/models.rs`, so the wasm
//! module carries the list's words and not the models' report runners.

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
}
