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
    let mut bench = crate::ci::CORE_BENCH.to_vec();
    if quick {
        bench.push("quick");
    }
    eprintln!("\n$ cargo {}", bench.join(" "));
    let text = stdout_of("cargo", &bench)?;
    for line in text
        .lines()
        .filter(|l| l.contains(" ns/") || l.ends_with(" ms"))
    {
        println!("native  {line}");
    }
    if !quick {
        // The core's print-only tests (`ci::PRINT_ONLY`): the standard sweeps' figures.
        let mut args = crate::ci::CORE_IGNORED.to_vec();
        args.extend(["--exact", "--nocapture"]);
        args.extend(crate::ci::PRINT_ONLY);
        run("cargo", &args)?;
    }
    let mut browser = vec!["tests/bench/browser.mjs"];
    if quick {
        browser.push("--quick");
    }
    run("node", &browser)?;
    wasm_over_native(quick)
}

/// The loops `wasm_over_native` pairs: the Tail loop and each queueing engine, with the target
/// issue 19 sets for each (wasm ÷ native ≥ 0.8).
const PAIRED: [&str; 4] = ["tail-leaf", "supermarket", "loaded-none", "loaded-hedge"];

/// wasm ÷ native speed of the same loop, for the Tail loop and each queueing engine, taken
/// within each of seven rounds that run the native loop and then the wasm one (in headless
/// Chromium) back to back; prints the median and range, and each engine's median figures.
fn wasm_over_native(quick: bool) -> Result<(), String> {
    for name in PAIRED {
        let mut native = crate::ci::CORE_BENCH.to_vec();
        let mut wasm = vec!["tests/bench/wasm-leaf.mjs"];
        if name == "tail-leaf" {
            native.push("tail-leaf");
        } else {
            native.extend(["engine", name]);
            wasm.extend(["--engine", name]);
        }
        if quick {
            native.push("quick");
            wasm.push("--quick");
        }
        let mut ratios = Vec::new();
        let (mut natives, mut wasms) = (Vec::new(), Vec::new());
        let mut unit = String::new();
        for _ in 0..if quick { 1 } else { 7 } {
            let (n, u) = ns_per_unit("cargo", &native)?;
            let (w, _) = ns_per_unit("node", &wasm)?;
            ratios.push(n / w);
            natives.push(n);
            wasms.push(w);
            unit = u;
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (n, w) = (median(&mut natives), median(&mut wasms));
        println!(
            "{:<48} {n:>12.2} ns/{unit}",
            format!("native, {name} (median of rounds)")
        );
        println!(
            "{:<48} {w:>12.2} ns/{unit}",
            format!("wasm in Chromium, {name}")
        );
        if name == "supermarket" && !quick {
            let secs = w * 1e7 * 1e-9;
            let verdict = if secs <= 0.5 { "met" } else { "MISSED" };
            println!(
                "{:<48} {secs:>12.2} s          target <= 0.5 s        {verdict}",
                "  10^7 arrivals in Chromium"
            );
        }
        let mid = median(&mut ratios);
        let verdict = if mid >= 0.8 { "met" } else { "MISSED" };
        println!(
            "{:<48} {mid:>12.2} x          target >= 0.8x         {verdict}",
            format!("wasm (Chromium) ÷ native, {name}, paired rounds")
        );
        println!(
            "{:<48} {:>12} x",
            "  (range over the rounds)",
            format!("{:.2}–{:.2}", ratios[0], ratios[ratios.len() - 1])
        );
    }
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

/// Runs `program args` and reads its "N ns/UNIT" figure: the number and the unit.
fn ns_per_unit(program: &str, args: &[&str]) -> Result<(f64, String), String> {
    let text = stdout_of(program, args)?;
    text.lines()
        .find(|l| l.contains(" ns/"))
        .and_then(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let at = words.iter().position(|w| w.starts_with("ns/"))?;
            let value = words.get(at.checked_sub(1)?)?.parse().ok()?;
            Some((value, words[at]["ns/".len()..].to_string()))
        })
        .ok_or_else(|| format!("no ns/UNIT figure in the output of {program}: {text}"))
}
