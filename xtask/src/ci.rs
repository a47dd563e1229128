//! `cargo xtask ci`: exactly what CI runs.

use crate::tools::{
    Tally, build_fault_package, build_page, chromedriver, ensure_chromium, ensure_npm_packages,
    ensure_rust_tools, run, run_counted, run_with_env,
};

/// Runs every check in order and stops at the first failure.
pub fn run_all() -> Result<(), String> {
    ensure_rust_tools()?;
    // cargo fmt, and rustfmt on the model folders declared inside `lab_models!`.
    crate::fmt::run_fmt(true)?;
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
    // The binding's wasm-only code (panic hook, allocator, failure injection) lints too.
    run(
        "cargo",
        &[
            "clippy",
            "-p",
            "tail-lab-wasm",
            "--target",
            "wasm32-unknown-unknown",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    // The core's and the binding's documentation: no broken intra-doc links, and (with their
    // `#![warn(missing_docs)]`) nothing public undocumented.
    run_with_env(
        "cargo",
        &[
            "doc",
            "--no-deps",
            "-p",
            "tail-lab-core",
            "-p",
            "tail-lab-wasm",
        ],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    // The page's JS and the JS tests: formatted and linted as biome.json says (no writes).
    ensure_npm_packages()?;
    run("node_modules/.bin/biome", &["ci", "web", "tests"])?;
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
    // The slow statistical checks (`#[ignore = "slow: …"]` in the core's `tests/it`): skipped
    // above, run here in a step of their own, from the same release build.
    let result = result.and_then(|()| {
        run_counted(
            "cargo",
            &[
                "test",
                "--release",
                "-p",
                "tail-lab-core",
                "--test",
                "it",
                "--",
                "--ignored",
            ],
            &[],
            &mut tally,
        )
    });
    // The native benchmark must still build and start (a tiny run; figures are not checked).
    let result = result
        .and_then(|()| run("cargo", &["bench", "-p", "tail-lab-core", "--", "quick"]))
        .and_then(|()| page_tests(&mut tally));
    // One plain closing line over every runner, whatever happened above. A step that failed
    // outside a test runner (a build, a lint) counts as one failure, so the line never reads
    // "0 failed" for a failing run.
    let failed = tally.failed + u64::from(result.is_err() && tally.failed == 0);
    println!("\nci: {} passed, {} failed", tally.passed, failed);
    result
}

/// The binding and the page: wasm-bindgen tests in node and headless Chromium, the JS API tests
/// against the built package, and the browser scenarios.
fn page_tests(tally: &mut Tally) -> Result<(), String> {
    build_page()?;
    // The page's JS, its workers and the node tests, type-checked against the generated
    // web/pkg/tail_lab.d.ts (TypeScript checkJs, pinned in package.json; no emit).
    for project in [
        "web/tsconfig.json",
        "web/tsconfig.workers.json",
        "tests/tsconfig.json",
    ] {
        run("node_modules/.bin/tsc", &["-p", project])?;
    }
    // The recovery tests' package, with failure injection (never shipped).
    build_fault_package()?;
    // The static bundle the site tests serve, exactly as `cargo xtask dist` lays it out.
    let root = crate::root();
    crate::dist::copy_site(&root.join("web"), &root.join("target/dist"))?;
    ensure_chromium()?;
    let chromedriver = chromedriver()?;
    // The JS tests compare the API with `tail-lab report --json`.
    run("cargo", &["build", "--release", "-p", "tail-lab"])?;
    // wasm-pack wants its flags before the crate path.
    let krate = "crates/tail-lab-wasm";
    run_counted(
        "wasm-pack",
        &["test", "--release", "--node", krate],
        &[],
        tally,
    )?;
    run_counted(
        "wasm-pack",
        &["test", "--release", "--headless", "--chrome", krate],
        &[
            ("CHROMEDRIVER", chromedriver.as_str()),
            ("WASM_BINDGEN_USE_BROWSER", "1"),
        ],
        tally,
    )?;
    run_counted(
        "node",
        &["--test", "--test-reporter=tap", "tests/js/"],
        &[],
        tally,
    )?;
    // One browser file at a time: three Chromiums beside one another on two cores would each
    // wait on the others, and the tests' waits for progress would stretch for nothing.
    run_counted(
        "node",
        &[
            "--test",
            "--test-concurrency=1",
            "--test-reporter=tap",
            "tests/e2e/",
        ],
        &[],
        tally,
    )?;
    // The browser benchmark and the paired wasm ÷ native rounds must still start: tiny runs,
    // figures not checked.
    run("node", &["tests/bench/browser.mjs", "--quick"])?;
    run("node", &["tests/bench/wasm-leaf.mjs", "--quick"])?;
    run("node", &["tests/bench/wasm-leaf.mjs", "--quick", "--node"])?;
    run(
        "cargo",
        &["bench", "-p", "tail-lab-core", "--", "tail-leaf", "quick"],
    )
}
