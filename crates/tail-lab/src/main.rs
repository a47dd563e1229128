//! `tail-lab`: the native command on the same core as the page.
//!
//! ```text
//! tail-lab report [--json] [--seed N] [--requests N] [--threads N]
//! ```
//! prints every experiment's simulated value beside its closed form and the seed documents'
//! figure; `--json` prints the same as one JSON object with stable keys (times in ms, fractions
//! as 0..1). Bad arguments print a message naming the argument and exit with status 2. The
//! runs use every core (`--threads` to choose); the numbers do not depend on it.

mod json;
mod parallel;
mod table;

use std::process::ExitCode;
use tail_lab_core::report::{self, DEFAULT_REQUESTS};

const USAGE: &str = "usage: tail-lab report [--json] [--seed N] [--requests N]

  --json          print one JSON object instead of a table
  --seed N        seed for every experiment (an integer in 0..=2^64-1; default 1)
  --requests N    parent requests per experiment (an integer in 1..=100000000; default 200000)
  --threads N     threads to run the experiments on (an integer in 1..=1024; default: every
                  core). The numbers are the same for any N.";

/// What the command line asked for.
#[derive(Debug, PartialEq)]
struct Options {
    json: bool,
    seed: u64,
    requests: u64,
    threads: usize,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        Some("report") => {}
        Some("-h" | "--help" | "help") => return Err(String::new()),
        Some(other) => return Err(format!("unknown command {other:?}: expected \"report\"")),
        None => return Err("missing command: expected \"report\"".into()),
    }
    let mut options = Options {
        json: false,
        seed: 1,
        requests: DEFAULT_REQUESTS,
        threads: parallel::default_threads(),
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => options.json = true,
            "--seed" => options.seed = number(&mut it, "--seed", "an integer in 0..=2^64-1")?,
            "--requests" => {
                options.requests = number(&mut it, "--requests", "an integer in 1..=100000000")?;
                if !(1..=100_000_000).contains(&options.requests) {
                    return Err(format!(
                        "--requests must be an integer in 1..=100000000 (got {})",
                        options.requests
                    ));
                }
            }
            "--threads" => {
                let n = number(&mut it, "--threads", "an integer in 1..=1024")?;
                if !(1..=1024).contains(&n) {
                    return Err(format!(
                        "--threads must be an integer in 1..=1024 (got {n})"
                    ));
                }
                options.threads = n as usize;
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

fn number<'a>(
    it: &mut impl Iterator<Item = &'a String>,
    name: &str,
    expected: &str,
) -> Result<u64, String> {
    let value = it
        .next()
        .ok_or_else(|| format!("{name} needs a value: {expected}"))?;
    value
        .parse::<u64>()
        .map_err(|_| format!("{name} must be {expected} (got {value:?})"))
}

/// The arguments as UTF-8 strings; one that is not (a stray byte from a shell) is a usage error
/// naming its position, not a panic.
fn utf8_args(raw: impl Iterator<Item = std::ffi::OsString>) -> Result<Vec<String>, String> {
    raw.enumerate()
        .map(|(i, a)| {
            a.into_string().map_err(|bad| {
                format!(
                    "argument {} is not valid UTF-8 ({:?})",
                    i + 1,
                    bad.to_string_lossy()
                )
            })
        })
        .collect()
}

/// Progress on stderr for a report that takes more than a moment: a bar redrawn in place on a
/// terminal, otherwise a plain line at most every five seconds. Short runs print nothing.
struct ProgressBar {
    start: std::time::Instant,
    last_line: Option<std::time::Instant>,
    terminal: bool,
    drawn: bool,
}

impl ProgressBar {
    const QUIET_FOR: std::time::Duration = std::time::Duration::from_millis(1500);

    fn new() -> Self {
        use std::io::IsTerminal;
        ProgressBar {
            start: std::time::Instant::now(),
            last_line: None,
            terminal: std::io::stderr().is_terminal(),
            drawn: false,
        }
    }

    fn show(&mut self, p: report::Progress) {
        if self.start.elapsed() < Self::QUIET_FOR {
            return;
        }
        eprint!("{}", self.render(p));
        self.drawn = true;
    }

    /// What to print for `p` now ("" when a plain line is not due yet).
    fn render(&mut self, p: report::Progress) -> String {
        let total = report::REPORT_STEPS;
        if self.terminal {
            let filled = (p.done * 30 / total) as usize;
            return format!(
                "\r[{}{}] {}/{total} runs ({})   ",
                "#".repeat(filled),
                ".".repeat(30 - filled),
                p.done,
                p.section
            );
        }
        let now = std::time::Instant::now();
        if self
            .last_line
            .is_some_and(|t| now - t < std::time::Duration::from_secs(5))
            && p.done < total
        {
            return String::new();
        }
        self.last_line = Some(now);
        format!("tail-lab: {}/{total} runs done ({})\n", p.done, p.section)
    }

    fn finish(&self) {
        if self.drawn && self.terminal {
            eprintln!();
        }
    }
}

fn main() -> ExitCode {
    let options = match utf8_args(std::env::args_os().skip(1)).and_then(|a| parse(&a)) {
        Ok(o) => o,
        Err(message) if message.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("tail-lab: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut bar = ProgressBar::new();
    let computed = parallel::compute(options.seed, options.requests, options.threads, &mut |p| {
        bar.show(p)
    });
    bar.finish();
    match computed {
        Ok(r) if options.json => {
            println!("{}", json::report(&r));
            ExitCode::SUCCESS
        }
        Ok(r) => {
            print!("{}", table::report(&r));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("tail-lab: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    #[cfg(unix)]
    fn a_non_utf8_argument_is_a_usage_error_not_a_panic() {
        use std::os::unix::ffi::OsStringExt;
        let raw = vec![
            std::ffi::OsString::from("report"),
            std::ffi::OsString::from_vec(vec![b'-', b'-', 0xff]),
        ];
        let e = utf8_args(raw.into_iter()).unwrap_err();
        assert!(e.starts_with("argument 2 is not valid UTF-8"), "{e}");
    }

    #[test]
    fn the_progress_bar_fills_and_names_the_section() {
        let mut bar = ProgressBar {
            start: std::time::Instant::now(),
            last_line: None,
            terminal: true,
            drawn: false,
        };
        let half = bar.render(report::Progress {
            done: 26,
            section: "loaded",
        });
        assert!(
            half.starts_with("\r[###############..............."),
            "{half:?}"
        );
        assert!(half.contains("26/51 runs (loaded)"));
        bar.terminal = false;
        let line = bar.render(report::Progress {
            done: 27,
            section: "loaded",
        });
        assert_eq!(line, "tail-lab: 27/51 runs done (loaded)\n");
        // A plain line at most every five seconds, but always the last.
        assert_eq!(
            bar.render(report::Progress {
                done: 28,
                section: "loaded"
            }),
            ""
        );
        assert!(
            !bar.render(report::Progress {
                done: 51,
                section: "balance"
            })
            .is_empty()
        );
    }

    #[test]
    fn parses_flags() {
        assert_eq!(
            parse(&args("report --json --seed 7 --requests 10 --threads 3")).unwrap(),
            Options {
                json: true,
                seed: 7,
                requests: 10,
                threads: 3
            }
        );
        let defaults = parse(&args("report")).unwrap();
        assert_eq!(defaults.requests, DEFAULT_REQUESTS);
        assert_eq!(defaults.threads, parallel::default_threads());
    }

    #[test]
    fn bad_arguments_name_themselves() {
        let e = parse(&args("report --seed -1")).unwrap_err();
        assert!(e.contains("--seed") && e.contains("0..=2^64-1"), "{e}");
        let e = parse(&args("report --requests 0")).unwrap_err();
        assert!(
            e.contains("--requests") && e.contains("1..=100000000"),
            "{e}"
        );
        assert!(
            parse(&args("report --requests"))
                .unwrap_err()
                .contains("needs a value")
        );
        assert!(
            parse(&args("report --fast"))
                .unwrap_err()
                .contains("--fast")
        );
        let e = parse(&args("report --threads 0")).unwrap_err();
        assert!(e.contains("--threads") && e.contains("1..=1024"), "{e}");
        assert!(parse(&args("draw")).unwrap_err().contains("report"));
        assert!(parse(&[]).is_err());
    }
}
