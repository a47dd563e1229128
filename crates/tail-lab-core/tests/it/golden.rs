//! The generated golden vectors (`tests/golden/vectors.json`, read by the JS tests) are what the
//! code produces now: the checked-in file is compared byte for byte with `golden_json()`, so it
//! cannot drift from the core. After an intended change (of a stream, or of a result's fields),
//! regenerate it by running this test with `TAIL_LAB_WRITE_GOLDEN=1`, review the diff and commit
//! it.

use crate::common::vectors::{GOLDEN_PATH, GOLDEN_REGENERATE, golden_json};
use std::path::PathBuf;

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(GOLDEN_PATH)
}

#[test]
fn the_golden_vectors_file_is_what_the_code_produces() {
    let want = golden_json();
    let path = golden_path();
    if std::env::var_os("TAIL_LAB_WRITE_GOLDEN").is_some() {
        std::fs::write(&path, &want).expect("write the golden vectors");
    }
    let got = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; generate it with `{GOLDEN_REGENERATE}`",
            path.display()
        )
    });
    if got != want {
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| "the length".to_string(), |n| format!("line {}", n + 1));
        panic!(
            "{} differs from what the code produces (first at {line}). If the change of stream \
             is intended, regenerate it with `{GOLDEN_REGENERATE}` and review the diff.",
            path.display()
        );
    }
}
