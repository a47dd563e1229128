//! `cargo xtask fmt`: `cargo fmt`, and rustfmt on the model folders `cargo fmt` cannot see.
//!
//! The core declares its Lab models inside the `lab_models!` macro (one line registers a
//! model), and rustfmt does not follow `mod` items a macro expands to. So every file under
//! `crates/tail-lab-core/src/lab/` is also given to rustfmt by name. `ci` runs the same with
//! `--check`.

use crate::tools::run;

/// Every `.rs` file under `crates/tail-lab-core/src/lab/` and the model template
/// (`xtask/templates/model/`, which `cargo xtask new-model` copies), relative to the
/// workspace, sorted.
fn model_files() -> Result<Vec<String>, String> {
    let root = crate::root();
    let mut out = Vec::new();
    let mut dirs = vec![
        root.join("crates/tail-lab-core/src/lab"),
        root.join("xtask/templates/model"),
    ];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| format!("could not read {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let rel = path.strip_prefix(&root).map_err(|e| e.to_string())?;
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Formats everything (`check`: fails on any file that is not formatted, writing nothing).
pub fn run_fmt(check: bool) -> Result<(), String> {
    if check {
        run("cargo", &["fmt", "--all", "--", "--check"])?;
    } else {
        run("cargo", &["fmt", "--all"])?;
    }
    let files = model_files()?;
    let mut args = vec!["--edition", "2024"];
    if check {
        args.push("--check");
    }
    args.extend(files.iter().map(String::as_str));
    run("rustfmt", &args)
}
