//! `cargo xtask bench [--quick]`: the native benchmarks, then the browser benchmark in
//! headless Chromium, one line per figure. Measurements only: it exits 0 whatever the figures
//! are (targets and the latest figures live in BENCHMARKS.md).

use crate::tools::{build_page, ensure_chromium, run};
use std::process::Command;

/// Runs both benchmarks; `--quick` makes every run tiny (what CI uses to check they start).
pub fn run_all(args: &[String]) -> Result<(), String> {
    let quick = args.iter().any(|a| a == "--quick");
    build_page()?;
    ensure_chromium()?;
    let mut bench = vec!["bench", "-p", "tail-lab-core"];
    if quick {
        bench.extend(["--", "quick"]);
    }
    eprintln!("\n$ cargo {}", bench.join(" "));
    let out = Command::new("cargo")
        .args(&bench)
        .current_dir(crate::root())
        .output()
        .map_err(|e| format!("could not start cargo bench: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "cargo bench failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut native_ns_per_leaf = None;
    for line in text
        .lines()
        .filter(|l| l.contains(" ns/") || l.ends_with(" ms"))
    {
        println!("native  {line}");
        if line.starts_with("fan-out-100 request into histograms, fix none") {
            native_ns_per_leaf = line
                .split_whitespace()
                .find_map(|w| w.parse::<f64>().ok())
                .map(|ns_per_request| ns_per_request / 100.0);
        }
    }
    let mut browser = vec!["tests/bench/browser.mjs".to_string()];
    if quick {
        browser.push("--quick".into());
    }
    if let Some(ns) = native_ns_per_leaf {
        browser.extend(["--native-ns-per-leaf".into(), format!("{ns:.3}")]);
    }
    let browser: Vec<&str> = browser.iter().map(String::as_str).collect();
    run("node", &browser)
}
