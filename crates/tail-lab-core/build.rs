//! Finds each model's integration tests: a model folder `src/lab/<model>/` may hold `it.rs`,
//! tests that use the crate's public API only. They are not part of the library (no `mod it;`
//! declares them); this script lists them as modules of the `tests/it` test crate, so adding a
//! model's tests is adding the file, with no list to edit (`tests/it/main.rs` includes
//! `$OUT_DIR/model_tests.rs`).

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let lab = Path::new(&manifest).join("src/lab");
    // A new folder (or a new it.rs in one) changes the folder's listing; cargo reruns the
    // script when anything under src/lab changes.
    println!("cargo:rerun-if-changed={}", lab.display());
    let mut models: Vec<String> = std::fs::read_dir(&lab)
        .expect("src/lab is readable")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.is_dir() && path.join("it.rs").is_file())
                .then(|| path.file_name()?.to_str().map(str::to_owned))
                .flatten()
        })
        .collect();
    models.sort();
    let mut out = String::new();
    for model in &models {
        let file = lab.join(model).join("it.rs");
        writeln!(
            out,
            "#[path = {:?}]\nmod {model};",
            file.to_str().expect("paths are UTF-8")
        )
        .expect("writing to a String cannot fail");
    }
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("model_tests.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
