//! `cargo xtask ci`: exactly what CI runs.

use crate::tools::{Tally, ensure_rust_tools, run, run_counted};

/// Runs every check in order and stops at the first failure.
pub fn run_all() -> Result<(), String> {
    ensure_rust_tools()?;
    run("cargo", &["fmt", "--all", "--", "--check"])?;
    run(
        "cargo",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    // The core must build for the browser's target with no wasm-specific code of its own.
    run(
        "cargo",
        &[
            "build",
            "-p",
            "tail-lab-core",
            "--target",
            "wasm32-unknown-unknown",
        ],
    )?;
    // Statistical tests need release speed; one build serves every test.
    let mut tally = Tally::default();
    let result = run_counted(
        "cargo",
        &["test", "--workspace", "--release"],
        &[],
        &mut tally,
    );
    // The benchmark target must still build and start (a tiny run; figures are not checked).
    let result =
        result.and_then(|()| run("cargo", &["bench", "-p", "tail-lab-core", "--", "quick"]));
    // One plain closing line over every runner, whatever happened above.
    println!("\nci: {} passed, {} failed", tally.passed, tally.failed);
    result
}
