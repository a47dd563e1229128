//! Renders the TypeScript declarations of every registered model's result from the core's
//! descriptions into `$OUT_DIR/results.d.ts`, which `lib.rs` adds to the package's `.d.ts`.

#[path = "src/typescript.rs"]
mod typescript;

fn main() {
    println!("cargo:rerun-if-changed=src/typescript.rs");
    println!("cargo:rerun-if-changed=../tail-lab-core/src");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let path = std::path::Path::new(&out).join("results.d.ts");
    std::fs::write(&path, typescript::declarations()).expect("OUT_DIR is writable");
}
