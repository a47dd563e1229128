//! Build, serve and CI entry point (the cargo-xtask convention).
//!
//! - `cargo xtask ci` — everything CI runs, in order; passes locally ⇒ CI green.
//! - `cargo xtask serve [--port N]` — builds the page and serves `web/` on localhost.
//! - `cargo xtask bench [--quick]` — native and browser benchmarks (not a test).
//! - `cargo xtask dist [--out DIR]` — the static site as one self-contained folder.
//! - `cargo xtask pkg` — the wasm packages only (web/pkg and the tests' target/fault-pkg).
//! - `cargo xtask new-model NAME` — a new model folder and section folder from the templates
//!   in `xtask/templates/`, registered (scaffold.rs).
//! - `cargo xtask fmt` — `cargo fmt`, and rustfmt on the Lab's model folders, which are
//!   declared inside a macro where `cargo fmt` cannot see them.
//!
//! Both install what they need when it is missing (see `tools.rs`), so they work on a fresh
//! machine of this project's kind.

mod bench;
mod ci;
mod dist;
mod fmt;
mod glue;
mod scaffold;
mod serve;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

  ci              run every check CI runs (fmt, clippy, wasm build, all tests)
  bench [--quick] native and in-browser benchmarks, one line per figure (see BENCHMARKS.md)
  serve [--port N]  build the page and serve it on http://127.0.0.1:N/ (default 8000)
  dist [--out DIR]  build the site into one static folder (default dist/) for any static host
  pkg             build the wasm packages only: web/pkg and the tests' target/fault-pkg
  fmt             cargo fmt, and rustfmt on the model folders cargo fmt cannot see
  new-model NAME  a new Lab model (core folder) and its section (web folder) from the templates";

/// The workspace root (the folder holding this crate's parent).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci::run_all(),
        Some("serve") => serve::run(&args[1..]),
        Some("bench") => bench::run_all(&args[1..]),
        Some("dist") => dist::run(&args[1..]),
        Some("fmt") => fmt::run_fmt(false),
        Some("new-model") => scaffold::run(&args[1..]),
        Some("pkg") => tools::build_page().and_then(|()| tools::build_fault_package()),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        other => Err(format!("unknown command {other:?}\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}
