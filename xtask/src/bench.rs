//! `cargo xtask bench [--quick]`: the native benchmarks, then the browser benchmark in
//! headless Chromium, then wasm ÷ native in paired rounds, one line per figure. Measurements only: it exits 0 whatever the figures
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
    let text = stdout_of("cargo", &bench)?;
    for line in text
        .lines()
        .filter(|l| l.contains(" ns/") || l.ends_with(" ms"))
    {
        println!("native  {line}");
    }
    let mut browser = vec!["tests/bench/browser.mjs"];
    if quick {
        browser.push("--quick");
    }
    run("node", &browser)?;
    wasm_over_native(quick)
}

/// wasm ÷ native speed of the same Tail loop, taken within each of seven rounds that run the
/// native loop and then the wasm one (in headless Chromium) back to back; prints the median
/// and range.
fn wasm_over_native(quick: bool) -> Result<(), String> {
    let quick_arg = |args: &mut Vec<&'static str>, flag| {
        if quick {
            args.push(flag);
        }
    };
    let mut native = vec!["bench", "-p", "tail-lab-core", "--", "tail-leaf"];
    quick_arg(&mut native, "quick");
    let mut wasm = vec!["tests/bench/wasm-leaf.mjs"];
    quick_arg(&mut wasm, "--quick");
    let mut ratios = Vec::new();
    for _ in 0..if quick { 1 } else { 7 } {
        let n = ns_per_request("cargo", &native)?;
        let w = ns_per_request("node", &wasm)?;
        ratios.push(n / w);
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    let verdict = if median >= 0.8 { "met" } else { "MISSED" };
    println!(
        "{:<48} {median:>12.2} x          target >= 0.8x         {verdict}",
        "wasm (Chromium) ÷ native, same loop, paired rounds"
    );
    println!(
        "{:<48} {:>12} x",
        "  (range over the rounds)",
        format!("{:.2}–{:.2}", ratios[0], ratios[ratios.len() - 1])
    );
    Ok(())
}

/// Runs `program args` in the workspace and returns what it printed, or why it failed.
fn stdout_of(program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(crate::root())
        .output()
        .map_err(|e| format!("could not start {program}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{program} {} failed:\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs `program args` and reads the ns/request figure from its output.
fn ns_per_request(program: &str, args: &[&str]) -> Result<f64, String> {
    let text = stdout_of(program, args)?;
    text.lines()
        .find(|l| l.contains("ns/request"))
        .and_then(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let at = words.iter().position(|w| w.starts_with("ns/request"))?;
            words.get(at.checked_sub(1)?)?.parse().ok()
        })
        .ok_or_else(|| format!("no ns/request figure in the output of {program}: {text}"))
}
