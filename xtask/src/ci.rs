//! `cargo xtask ci`: exactly what CI runs.

use std::time::Instant;

use crate::tools::{
    Tally, build_fault_package, build_page, chromedriver, ensure_chromium, ensure_npm_packages,
    ensure_rust_tools, run, run_counted, run_with_env,
};

/// The wall-clock time of each step CI ran, printed as a table at its end: what a change to CI
/// saves is read from it. Figures only: nothing is asserted about them (the machine is shared
/// and they vary from run to run).
#[derive(Default)]
struct Clock {
    steps: Vec<(&'static str, f64)>,
}

impl Clock {
    /// Runs `step`, recording how long it took under `name` (also when it fails).
    fn time<T>(
        &mut self,
        name: &'static str,
        step: impl FnOnce() -> Result<T, String>,
    ) -> Result<T, String> {
        let start = Instant::now();
        let out = step();
        self.steps.push((name, start.elapsed().as_secs_f64()));
        out
    }

    /// The table: one line a step, then the total.
    fn print(&self) {
        let width = self.steps.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        println!("\nci: wall-clock time per step");
        for (name, secs) in &self.steps {
            println!("  {name:<width$}  {secs:>7.1} s");
        }
        let total: f64 = self.steps.iter().map(|(_, s)| s).sum();
        println!("  {:<width$}  {total:>7.1} s", "total");
    }
}

/// `cargo` arguments that run the core's ignored (slow or print-only) integration tests from
/// the release build; names and flags go after them.
pub const CORE_IGNORED: &[&str] = &[
    "test",
    "--release",
    "-p",
    "tail-lab-core",
    "--test",
    "it",
    "--",
    "--ignored",
];

/// `cargo` arguments that run the native benchmark alone (`--bench models`: a bare `cargo
/// bench` also builds the core's unit tests again under the bench profile's fat LTO, to run
/// none of them); its own arguments go after them.
pub const CORE_BENCH: &[&str] = &["bench", "-p", "tail-lab-core", "--bench", "models", "--"];

/// The core's ignored tests that assert nothing and print figures (`#[ignore = "exploration:
/// …"]`): not run by CI's slow step, printed by `cargo xtask bench`.
pub const PRINT_ONLY: [&str; 2] = ["cancellation::print_the_sweep", "fairness::print_the_sweep"];

/// Runs every check in order and stops at the first failure.
pub fn run_all() -> Result<(), String> {
    let mut clock = Clock::default();
    let mut tally = Tally::default();
    let result = checks(&mut clock, &mut tally);
    clock.print();
    // One plain closing line over every runner, whatever happened above. A step that failed
    // outside a test runner (a build, a lint) counts as one failure, so the line never reads
    // "0 failed" for a failing run.
    let failed = tally.failed + u64::from(result.is_err() && tally.failed == 0);
    println!("\nci: {} passed, {} failed", tally.passed, failed);
    result
}

fn checks(clock: &mut Clock, tally: &mut Tally) -> Result<(), String> {
    clock.time("rust tools", ensure_rust_tools)?;
    // cargo fmt, and rustfmt on the model folders declared inside `lab_models!`.
    clock.time("fmt", || crate::fmt::run_fmt(true))?;
    clock.time("clippy", || {
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
        )
    })?;
    // The binding's wasm-only code (panic hook, allocator, failure injection) lints too.
    clock.time("clippy wasm32", || {
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
        )
    })?;
    // The core's and the binding's documentation: no broken intra-doc links, and (with their
    // `#![warn(missing_docs)]`) nothing public undocumented.
    clock.time("doc", || {
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
        )
    })?;
    // The page's JS and the JS tests: formatted and linted as biome.json says (no writes).
    clock.time("npm packages", ensure_npm_packages)?;
    clock.time("biome", || {
        run("node_modules/.bin/biome", &["ci", "web", "tests"])
    })?;
    // The core must build for the browser's target with no wasm-specific code of its own.
    clock.time("core for wasm32", || {
        run(
            "cargo",
            &[
                "build",
                "-p",
                "tail-lab-core",
                "--target",
                "wasm32-unknown-unknown",
            ],
        )
    })?;
    // Statistical tests need release speed; one build serves every test.
    clock.time("cargo test", || {
        run_counted("cargo", &["test", "--workspace", "--release"], &[], tally)
    })?;
    // The slow statistical checks (`#[ignore = "slow: …"]` in the core's `tests/it`): skipped
    // above, run here in a step of their own, from the same release build. The ignored tests
    // that only print figures (`PRINT_ONLY`) are no check: `cargo xtask bench` prints them.
    clock.time("cargo test --ignored (slow)", || {
        let mut args = CORE_IGNORED.to_vec();
        for name in PRINT_ONLY {
            args.extend(["--skip", name]);
        }
        run_counted("cargo", &args, &[], tally)
    })?;
    // The native benchmark must still build and start (a tiny run; figures are not checked).
    clock.time("cargo bench quick", || {
        run("cargo", &[CORE_BENCH, &["quick"]].concat())
    })?;
    page_tests(clock, tally)
}

/// The binding and the page: wasm-bindgen tests in node and headless Chromium, the JS API tests
/// against the built package, and the browser scenarios.
fn page_tests(clock: &mut Clock, tally: &mut Tally) -> Result<(), String> {
    clock.time("wasm package (web/pkg)", build_page)?;
    // The page's JS, its workers and the node tests, type-checked against the generated
    // web/pkg/tail_lab.d.ts (TypeScript checkJs, pinned in package.json; no emit).
    clock.time("tsc", || {
        for project in [
            "web/tsconfig.json",
            "web/tsconfig.workers.json",
            "tests/tsconfig.json",
        ] {
            run("node_modules/.bin/tsc", &["-p", project])?;
        }
        Ok(())
    })?;
    // The recovery tests' package, with failure injection (never shipped).
    clock.time("fault package", build_fault_package)?;
    // The static bundle the site tests serve, exactly as `cargo xtask dist` lays it out.
    let root = crate::root();
    crate::dist::copy_site(&root.join("web"), &root.join("target/dist"))?;
    clock.time("chromium", ensure_chromium)?;
    let chromedriver = chromedriver()?;
    // The JS tests compare the API with `tail-lab report --json`.
    clock.time("tail-lab release build", || {
        run("cargo", &["build", "--release", "-p", "tail-lab"])
    })?;
    // wasm-pack wants its flags before the crate path.
    let krate = "crates/tail-lab-wasm";
    clock.time("wasm-pack test node", || {
        run_counted(
            "wasm-pack",
            &["test", "--release", "--node", krate],
            &[],
            tally,
        )
    })?;
    clock.time("wasm-pack test chrome", || {
        run_counted(
            "wasm-pack",
            &["test", "--release", "--headless", "--chrome", krate],
            &[
                ("CHROMEDRIVER", chromedriver.as_str()),
                ("WASM_BINDGEN_USE_BROWSER", "1"),
            ],
            tally,
        )
    })?;
    // The JS tests keep each distinct `tail-lab report` they ask for in target/report-cache
    // (tests/support.mjs `nativeReport`): cleared here, so every report this run reads is
    // computed once, in this run, by the binary just built.
    let cache = root.join("target/report-cache");
    if cache.exists() {
        std::fs::remove_dir_all(&cache)
            .map_err(|e| format!("cannot clear {}: {e}", cache.display()))?;
    }
    clock.time("node tests/js", || {
        run_counted(
            "node",
            &["--test", "--test-reporter=tap", "tests/js/"],
            &[],
            tally,
        )
    })?;
    // One browser file at a time: three Chromiums beside one another on two cores would each
    // wait on the others, and the tests' waits for progress would stretch for nothing. One
    // Chromium for the whole suite: the runner starts it and every file connects to it (each
    // in contexts of its own), instead of a launch a file.
    clock.time("node tests/e2e", || {
        run_counted(
            "node",
            &[
                "tests/e2e/run.mjs",
                "--test-concurrency=1",
                "--test-reporter=tap",
                "tests/e2e/",
            ],
            &[],
            tally,
        )
    })?;
    // The browser benchmark and the paired wasm ÷ native rounds must still start: tiny runs,
    // figures not checked.
    clock.time("benchmarks start (quick)", || {
        run("node", &["tests/bench/browser.mjs", "--quick"])?;
        run("node", &["tests/bench/wasm-leaf.mjs", "--quick"])?;
        run("node", &["tests/bench/wasm-leaf.mjs", "--quick", "--node"])?;
        run("cargo", &[CORE_BENCH, &["tail-leaf", "quick"]].concat())
    })
}
