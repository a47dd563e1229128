//! Running commands, and installing the tools the build needs when they are missing.
//!
//! Everything the checks use is installed here, by name from the registries this machine
//! reaches, never assumed: the wasm target, rustfmt and clippy (rustup); wasm-pack and the
//! wasm-bindgen CLI at exactly the version in Cargo.lock (crates.io); binaryen's wasm-opt,
//! playwright-core, axe-core, Biome and TypeScript (npm, pinned in package.json and
//! package-lock.json); Chromium and ChromeDriver (Debian packages).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// Tests counted across every runner CI calls, for the closing `N passed, N failed` line.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Tally {
    /// Tests that passed.
    pub passed: u64,
    /// Tests that failed.
    pub failed: u64,
}

impl Tally {
    /// Adds the counts a runner's summary line reports: cargo's
    /// `test result: ok. 38 passed; 0 failed; …` or node's `# pass 12` / `# fail 0`.
    pub fn read_line(&mut self, line: &str) {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("test result: ") {
            for part in rest.split([';', '.']) {
                let mut words = part.split_whitespace();
                if let (Some(n), Some(kind)) = (words.next(), words.next()) {
                    match (n.parse::<u64>(), kind) {
                        (Ok(n), "passed") => self.passed += n,
                        (Ok(n), "failed") => self.failed += n,
                        _ => {}
                    }
                }
            }
        } else if let Some(n) = line.strip_prefix("# pass ") {
            self.passed += n.trim().parse().unwrap_or(0);
        } else if let Some(n) = line.strip_prefix("# fail ") {
            self.failed += n.trim().parse().unwrap_or(0);
        }
    }
}

/// Runs a test command, echoing its output while counting its tests into `tally`.
pub fn run_counted(
    program: &str,
    args: &[&str],
    env: &[(&str, &str)],
    tally: &mut Tally,
) -> Result<(), String> {
    eprintln!("\n$ {program} {}", args.join(" "));
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(crate::root())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start {program}: {e}"))?;
    let stdout = child.stdout.take().expect("piped");
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| e.to_string())?;
        println!("{line}");
        tally.read_line(&line);
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

/// Runs `program args…` in the workspace root, echoing it; fails on a non-zero exit.
pub fn run(program: &str, args: &[&str]) -> Result<(), String> {
    run_with_env(program, args, &[])
}

/// Like [`run`], with extra environment variables.
pub fn run_with_env(program: &str, args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    eprintln!("\n$ {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(crate::root())
        .status()
        .map_err(|e| format!("could not start {program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

/// The trimmed standard output of a command, or `None` when it cannot run or fails.
pub fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `rustup target add wasm32-unknown-unknown` and the rustfmt/clippy components, when missing.
pub fn ensure_rust_tools() -> Result<(), String> {
    let targets = output("rustup", &["target", "list", "--installed"]).unwrap_or_default();
    if !targets.lines().any(|t| t == "wasm32-unknown-unknown") {
        run("rustup", &["target", "add", "wasm32-unknown-unknown"])?;
    }
    if output("cargo", &["fmt", "--version"]).is_none() {
        run("rustup", &["component", "add", "rustfmt"])?;
    }
    if output("cargo", &["clippy", "--version"]).is_none() {
        run("rustup", &["component", "add", "clippy"])?;
    }
    Ok(())
}

/// The wasm-bindgen version pinned in Cargo.lock.
pub fn locked_wasm_bindgen_version() -> Result<String, String> {
    let lock = std::fs::read_to_string(crate::root().join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
            {
                return Ok(v.trim_matches('"').to_string());
            }
        }
    }
    Err("Cargo.lock has no wasm-bindgen entry".into())
}

/// The wasm-pack every machine builds with: the same tool, the same output.
pub const WASM_PACK_VERSION: &str = "0.15.1";

/// wasm-pack at [`WASM_PACK_VERSION`] (`cargo install wasm-pack --version X --locked`) and the
/// wasm-bindgen CLI at the locked
/// version (`cargo install wasm-bindgen-cli --version X`, without `--locked`), when missing.
pub fn ensure_wasm_tools() -> Result<(), String> {
    let have = output("wasm-pack", &["--version"]).unwrap_or_default();
    if have.split_whitespace().nth(1) != Some(WASM_PACK_VERSION) {
        run(
            "cargo",
            &[
                "install",
                "wasm-pack",
                "--version",
                WASM_PACK_VERSION,
                "--locked",
                "--force",
            ],
        )?;
    }
    let want = locked_wasm_bindgen_version()?;
    let have = output("wasm-bindgen", &["--version"]).unwrap_or_default();
    if have.split_whitespace().nth(1) != Some(want.as_str()) {
        run(
            "cargo",
            &["install", "wasm-bindgen-cli", "--version", &want, "--force"],
        )?;
    }
    Ok(())
}

/// The npm packages in package-lock.json (`npm ci`), when one is missing or at another version.
///
/// Each package the lock file installs on this platform is compared with the `version` in its
/// installed `package.json`: an already-installed tree costs a few file reads, not an `npm ci`
/// (a file's modification time is no test: a fresh checkout or worktree touches the lock
/// file). A `node_modules` that is a link to another tree is never reinstalled through the link
/// (`npm ci` would empty the tree it points to): a stale one is an error naming the fix.
pub fn ensure_npm_packages() -> Result<(), String> {
    let root = crate::root();
    let lock = std::fs::read_to_string(root.join("package-lock.json"))
        .map_err(|e| format!("cannot read package-lock.json: {e}"))?;
    let modules = root.join("node_modules");
    let stale: Vec<String> = locked_npm_packages(&lock)
        .into_iter()
        .filter(|(name, version)| {
            let manifest = std::fs::read_to_string(modules.join(name).join("package.json"))
                .unwrap_or_default();
            manifest_version(&manifest) != Some(version.as_str())
        })
        .map(|(name, version)| format!("{name}@{version}"))
        .collect();
    if stale.is_empty() {
        return Ok(());
    }
    if modules.is_symlink() {
        return Err(format!(
            "node_modules is a link, and lacks {}: run `npm ci` where it points",
            stale.join(", ")
        ));
    }
    run("npm", &["ci", "--no-audit", "--no-fund"])
}

/// The first `"version": "…"` of a `package.json` (its own: it precedes any nested one).
fn manifest_version(manifest: &str) -> Option<&str> {
    let rest = &manifest[manifest.find("\"version\"")? + "\"version\"".len()..];
    let rest = rest
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('"')?;
    Some(&rest[..rest.find('"')?])
}

/// The packages package-lock.json installs on every platform, `(path under node_modules,
/// version)`: its `"node_modules/…"` entries that are not `"optional"` (those are the tools'
/// per-platform binaries, each installed only where it runs).
pub fn locked_npm_packages(lock: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut entry: Option<(String, Option<String>, bool)> = None;
    let mut finish = |entry: Option<(String, Option<String>, bool)>| {
        if let Some((name, Some(version), false)) = entry {
            out.push((name, version));
        }
    };
    for line in lock.lines() {
        let line = line.trim();
        if let Some(name) = line
            .strip_prefix("\"node_modules/")
            .and_then(|l| l.strip_suffix("\": {"))
        {
            finish(entry.take());
            entry = Some((name.to_string(), None, false));
        } else if let Some((_, version, optional)) = entry.as_mut() {
            if let Some(v) = line.strip_prefix("\"version\": ") {
                if version.is_none() {
                    *version = Some(v.trim_end_matches(',').trim_matches('"').to_string());
                }
            } else if line.starts_with("\"optional\": true") {
                *optional = true;
            }
        }
    }
    finish(entry);
    out
}

/// The first of `names` found in a directory on PATH.
fn on_path(names: &[&str]) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// ChromeDriver for `wasm-pack test --chrome`: `$CHROMEDRIVER`, else `chromedriver` on PATH.
pub fn chromedriver() -> Result<String, String> {
    std::env::var("CHROMEDRIVER")
        .ok()
        .or_else(|| on_path(&["chromedriver"]).map(|p| p.display().to_string()))
        .ok_or_else(|| "no chromedriver: set CHROMEDRIVER or put chromedriver on PATH".into())
}

/// Chromium and ChromeDriver for the browser tests (npm cannot download a browser here):
/// `$CHROMIUM`/`$CHROMEDRIVER` when set, else found on PATH. When missing they are installed
/// from Debian's packages, which needs root and apt-get; anywhere else this says what to
/// install instead of failing obscurely.
pub fn ensure_chromium() -> Result<(), String> {
    let browser = std::env::var_os("CHROMIUM").is_some()
        || on_path(&["chromium", "chromium-browser", "google-chrome"]).is_some();
    if browser && chromedriver().is_ok() {
        return Ok(());
    }
    let root = output("id", &["-u"]).as_deref() == Some("0");
    if !root || on_path(&["apt-get"]).is_none() {
        return Err(
            "the browser tests need Chromium and a matching ChromeDriver: install them \
            (Debian: `apt-get install chromium chromium-driver`; elsewhere your system's chromium \
            and chromedriver packages) or set CHROMIUM and CHROMEDRIVER to their paths"
                .into(),
        );
    }
    run("apt-get", &["update"])?;
    run_with_env(
        "apt-get",
        &[
            "install",
            "-y",
            "--no-install-recommends",
            "chromium",
            "chromium-driver",
        ],
        &[("DEBIAN_FRONTEND", "noninteractive")],
    )
}

/// Builds the wasm package into web/pkg and optimises it with binaryen's wasm-opt.
pub fn build_page() -> Result<(), String> {
    ensure_rust_tools()?;
    ensure_wasm_tools()?;
    ensure_npm_packages()?;
    run(
        "wasm-pack",
        &[
            "build",
            "crates/tail-lab-wasm",
            "--target",
            "web",
            "--out-name",
            "tail_lab",
            "--out-dir",
            "../../web/pkg",
            "--profile",
            "wasm-release",
            "--no-pack",
        ],
    )?;
    write_package_manifest()?;
    crate::glue::harden_package(&crate::root().join("web/pkg"))?;
    optimise_wasm("web/pkg/tail_lab_bg.wasm")
}

/// binaryen's wasm-opt on `wasm` (a path in the workspace), in place. Its output for the same
/// input, flags and binaryen is kept in `target/wasm-opt/`, so a wasm-pack build that found
/// nothing to rebuild (the same bytes again) is not optimised again: the kept output is copied
/// back, as wasm-opt would have written it.
fn optimise_wasm(wasm: &str) -> Result<(), String> {
    const FLAGS: [&str; 5] = [
        "-O3",
        "--enable-bulk-memory",
        "--enable-nontrapping-float-to-int",
        "--enable-sign-ext",
        "--enable-mutable-globals",
    ];
    let root = crate::root();
    let path = root.join(wasm);
    let input = std::fs::read(&path).map_err(|e| format!("cannot read {wasm}: {e}"))?;
    let binaryen = std::fs::read_to_string(root.join("node_modules/binaryen/package.json"))
        .unwrap_or_default();
    let mut key = input.clone();
    key.extend(FLAGS.join(" ").bytes());
    key.extend(manifest_version(&binaryen).unwrap_or("").bytes());
    let kept_dir = root.join("target/wasm-opt");
    let kept = kept_dir.join(format!("{:016x}-{}.wasm", fnv1a(&key), input.len()));
    if kept.is_file() {
        eprintln!(
            "\n(wasm-opt: {wasm} is the input of {}, copied)",
            kept.display()
        );
        return std::fs::copy(&kept, &path)
            .map(|_| ())
            .map_err(|e| format!("cannot copy {}: {e}", kept.display()));
    }
    let mut args = FLAGS.to_vec();
    args.extend([wasm, "-o", wasm]);
    run("node_modules/.bin/wasm-opt", &args)?;
    // Only the latest is kept.
    let _ = std::fs::remove_dir_all(&kept_dir);
    std::fs::create_dir_all(&kept_dir)
        .and_then(|()| std::fs::copy(&path, &kept))
        .map(|_| ())
        .map_err(|e| format!("cannot keep {}: {e}", kept.display()))
}

/// 64-bit FNV-1a: a cache key, not a defence against anyone.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The recovery tests' package in target/fault-pkg: the binding built with its
/// `fault-injection` feature (exports that panic or exhaust memory on purpose), in the plain
/// release profile (no LTO: it is small and quick to build), through the same wasm-bindgen CLI.
/// The shipped package in web/pkg never has these exports.
///
/// It builds in a target folder of its own, `target/fault-build`: a cdylib's output file has no
/// hash in its name, so in the shared folder this build and `wasm-pack test`'s (the same crate
/// and profile, other features) overwrote each other's `tail_lab_wasm.wasm`, and each CI run
/// rebuilt the binding twice.
pub fn build_fault_package() -> Result<(), String> {
    run(
        "cargo",
        &[
            "build",
            "-p",
            "tail-lab-wasm",
            "--target",
            "wasm32-unknown-unknown",
            "--release",
            "--features",
            "fault-injection",
            "--target-dir",
            "target/fault-build",
        ],
    )?;
    run(
        "wasm-bindgen",
        &[
            "--target",
            "web",
            "--out-dir",
            "target/fault-pkg",
            "--out-name",
            "tail_lab",
            "target/fault-build/wasm32-unknown-unknown/release/tail_lab_wasm.wasm",
        ],
    )?;
    crate::glue::harden_package(&crate::root().join("target/fault-pkg"))
}

/// The npm package's manifest and README, next to what wasm-pack built in web/pkg: an ES module
/// for browsers and node, typed by the generated `.d.ts`.
fn write_package_manifest() -> Result<(), String> {
    let root = crate::root();
    let version = std::fs::read_to_string(root.join("Cargo.toml"))
        .map_err(|e| e.to_string())?
        .lines()
        .find_map(|l| l.trim().strip_prefix("version = "))
        .map(|v| v.trim_matches('"').to_string())
        .ok_or("the workspace Cargo.toml has no version")?;
    let manifest = format!(
        r#"{{
  "name": "tail-latency-lab",
  "version": "{version}",
  "description": "Why a request that fans out to 100 leaves inherits their rare tail as its median, and what hedging, partial results and the power of d choices do about it: seeded simulations checked against closed forms, compiled from Rust to WebAssembly.",
  "license": "MIT OR Apache-2.0",
  "keywords": ["tail latency", "hedged requests", "queueing", "simulation", "webassembly"],
  "type": "module",
  "main": "./tail_lab.js",
  "types": "./tail_lab.d.ts",
  "exports": {{
    ".": {{ "types": "./tail_lab.d.ts", "default": "./tail_lab.js" }},
    "./tail_lab_bg.wasm": "./tail_lab_bg.wasm",
    "./package.json": "./package.json"
  }},
  "files": ["tail_lab.js", "tail_lab.d.ts", "tail_lab_bg.wasm", "tail_lab_bg.wasm.d.ts", "README.md"],
  "sideEffects": ["./tail_lab.js"]
}}
"#
    );
    let pkg = root.join("web/pkg");
    std::fs::write(pkg.join("package.json"), manifest).map_err(|e| e.to_string())?;
    std::fs::copy(
        root.join("crates/tail-lab-wasm/README.md"),
        pkg.join("README.md"),
    )
    .map_err(|e| format!("cannot copy the package README: {e}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_files_packages_are_read_without_the_optional_ones() {
        let lock = std::fs::read_to_string(crate::root().join("package-lock.json")).unwrap();
        let packages = locked_npm_packages(&lock);
        for name in [
            "playwright-core",
            "axe-core",
            "@biomejs/biome",
            "typescript",
            "binaryen",
        ] {
            assert!(
                packages.iter().any(|(n, _)| n == name),
                "{name}: {packages:?}"
            );
        }
        assert!(
            packages
                .iter()
                .all(|(n, v)| !n.contains("cli-") && !v.is_empty())
        );
    }

    #[test]
    fn tally_reads_cargo_and_node_summaries() {
        let mut t = Tally::default();
        t.read_line("test result: ok. 38 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.17s");
        t.read_line("test result: FAILED. 6 passed; 4 failed; 0 ignored");
        t.read_line("# pass 12");
        t.read_line("# fail 1");
        t.read_line("running 3 tests");
        assert_eq!(
            t,
            Tally {
                passed: 56,
                failed: 5
            }
        );
    }
}
