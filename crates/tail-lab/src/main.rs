//! `tail-lab`: the native command on the same core as the page.
//!
//! ```text
//! tail-lab report [--json] [--seed N] [--requests N] [--threads N]
//! ```
//! prints every experiment's simulated value beside its closed form and the seed documents'
//! figure; `--json` prints the same as one JSON object with stable keys (times in ms, fractions
//! as 0..1). The runs use every core (`--threads` to choose); the numbers do not depend on it.
//!
//! Numbers are written one way only: plain decimal digits, with no sign, no leading zero (`0`
//! itself aside) and no spaces, so `+5000` and `05000` are refused rather than read as 5000.
//! Each flag may be given once; a repeated flag is refused rather than the last one winning.
//!
//! Exit status:
//! - **0**: the report (or, for `--help`, the usage) was written; or the reader of stdout went
//!   away first (a closed pipe, as in `tail-lab report | head -1`). The reader has what it
//!   wanted, so the command stops quietly with 0: no message, and not the 141 of a death by
//!   SIGPIPE (Rust ignores that signal), so `set -o pipefail` scripts carry on.
//! - **1**: stdout could not be written for any other reason (`> /dev/full`, a full disk, an I/O
//!   error); one line on stderr says so and why.
//! - **2**: bad arguments, or a request count the core refuses: a message naming the argument
//!   and its valid range, then the usage.
//!
//! Neither its arguments nor its output streams can make it panic. Messages and progress on stderr
//! are best effort: when stderr itself cannot be written (a closed pipe, a full device), they
//! are dropped, since there is nowhere left to say so, and the exit status still tells.

mod json;
mod parallel;
mod table;

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tail_lab_core::report::{self, DEFAULT_REQUESTS};

const USAGE: &str = "usage: tail-lab report [--json] [--seed N] [--requests N] [--threads N]

  --json          print one JSON object instead of a table
  --seed N        seed for every experiment (an integer in 0..=2^64-1; default 1)
  --requests N    parent requests per experiment (an integer in 1..=100000000; default 200000).
                  The time grows with N: about 16 s of one core per million (measured on a
                  2-core machine), so 10^7 takes a minute or two and 10^8 a quarter of an
                  hour; a run expected to take over ten seconds says so when it starts.
  --threads N     threads to run the experiments on (an integer in 1..=1024; default: every
                  core). The numbers are the same for any N.

Numbers are plain decimal digits (no sign, no leading zero); each flag may be given once.

exit status: 0 the report was written, or stdout's reader closed the pipe first (| head)
             1 stdout could not be written (a full disk, say); stderr says why
             2 bad arguments";

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
    let mut seen: Vec<&str> = Vec::new();
    while let Some(arg) = it.next() {
        let flag = arg.as_str();
        // Anything but a known flag ends the parse below the first time it is seen, and values
        // are taken by `number`, so only flags reach this list.
        if seen.contains(&flag) {
            return Err(format!(
                "{flag} is given more than once: give each flag at most once"
            ));
        }
        seen.push(flag);
        match flag {
            "--json" => options.json = true,
            "--seed" => options.seed = number(&mut it, "--seed", "an integer in 0..=2^64-1")?,
            "--requests" => {
                options.requests = bounded(&mut it, "--requests", 1..=100_000_000)?;
            }
            "--threads" => options.threads = bounded(&mut it, "--threads", 1..=1024)? as usize,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

/// A flag's value in `range`: "an integer in lo..=hi", said the same way in every message.
fn bounded<'a>(
    it: &mut impl Iterator<Item = &'a String>,
    name: &str,
    range: std::ops::RangeInclusive<u64>,
) -> Result<u64, String> {
    let expected = format!("an integer in {}..={}", range.start(), range.end());
    let n = number(it, name, &expected)?;
    if range.contains(&n) {
        Ok(n)
    } else {
        Err(format!("{name} must be {expected} (got {n})"))
    }
}

fn number<'a>(
    it: &mut impl Iterator<Item = &'a String>,
    name: &str,
    expected: &str,
) -> Result<u64, String> {
    let value = it
        .next()
        .ok_or_else(|| format!("{name} needs a value: {expected}"))?;
    plain_decimal(value).ok_or_else(|| {
        format!("{name} must be {expected}, written as plain decimal digits (got {value:?})")
    })
}

/// `s` as a number when it is written the one plain way: ASCII decimal digits only (no sign,
/// no spaces, no `_`), no leading zero unless it is `0` itself, and within `u64`.
fn plain_decimal(s: &str) -> Option<u64> {
    let plain =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    if plain { s.parse().ok() } else { None }
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

/// One core's time per million requests of every experiment (s), measured on a 2-core machine:
/// `--requests 10000000` took 82 s on two threads. The expected time is a guide, not a bound.
const CORE_SECONDS_PER_MILLION: f64 = 16.4;

/// The time (s) a report of `requests` per experiment is expected to take on `threads`.
fn expected_seconds(requests: u64, threads: usize) -> f64 {
    let cores = threads.clamp(1, default_cores()) as f64;
    CORE_SECONDS_PER_MILLION * requests as f64 / 1e6 / cores
}

/// The cores the runs can use at once (the threads beyond them share those cores).
fn default_cores() -> usize {
    parallel::default_threads()
}

/// A duration (s) as a reader says it: "45 s", "3 min", "1 h 20 min".
fn readable_duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s < 90 {
        format!("{s} s")
    } else if s < 90 * 60 {
        format!("{} min", (s + 30) / 60)
    } else {
        format!("{} h {} min", s / 3600, (s % 3600 + 30) / 60)
    }
}

/// Progress on stderr for a report that takes more than a moment: a bar redrawn in place on a
/// terminal (and every second while a long run is under way, with the time so far and the time
/// expected), otherwise a plain line at most every five seconds. Short runs print nothing. If
/// stderr cannot be written (closed, full), the bar stops drawing and the report carries on.
struct ProgressBar {
    start: Instant,
    /// The time the whole report is expected to take (s), when known.
    expected: Option<f64>,
    /// How long a run stays silent before the first draw.
    quiet_for: Duration,
    last_line: Option<Instant>,
    terminal: bool,
    drawn: bool,
    /// A write to stderr failed: draw nothing more.
    broken: bool,
}

impl ProgressBar {
    fn new(terminal: bool) -> Self {
        ProgressBar {
            start: Instant::now(),
            expected: None,
            quiet_for: Duration::from_millis(1500),
            last_line: None,
            terminal,
            drawn: false,
            broken: false,
        }
    }

    fn show(&mut self, p: report::Progress, err: &mut dyn Write) {
        if self.broken || self.start.elapsed() < self.quiet_for {
            return;
        }
        let text = self.render(p);
        if text.is_empty() {
            return;
        }
        match err.write_all(text.as_bytes()).and_then(|()| err.flush()) {
            Ok(()) => self.drawn = true,
            Err(_) => self.broken = true,
        }
    }

    /// What to print for `p` now ("" when a plain line is not due yet).
    fn render(&mut self, p: report::Progress) -> String {
        let total = report::report_steps();
        // A heartbeat before any run has finished names no section yet.
        let section = if p.section.is_empty() {
            "under way"
        } else {
            p.section
        };
        if self.terminal {
            let filled = (p.done.min(total) * 30 / total) as usize;
            let elapsed = self.start.elapsed().as_secs_f64();
            let time = match self.expected {
                Some(e) => format!(
                    ", {} of about {}",
                    readable_duration(elapsed),
                    readable_duration(e.max(elapsed))
                ),
                None => String::new(),
            };
            return format!(
                "\r[{}{}] {}/{total} runs ({section}){time}   ",
                "#".repeat(filled),
                ".".repeat(30 - filled),
                p.done,
            );
        }
        let now = Instant::now();
        if self
            .last_line
            .is_some_and(|t| now - t < Duration::from_secs(5))
            && p.done < total
        {
            return String::new();
        }
        self.last_line = Some(now);
        format!("tail-lab: {}/{total} runs done ({section})\n", p.done)
    }

    /// Ends a bar drawn in place with a newline, so the shell's prompt starts on its own line.
    fn finish(&self, err: &mut dyn Write) {
        if self.drawn && self.terminal && !self.broken {
            say(err, format_args!(""));
        }
    }
}

/// Writes a line to stderr and flushes it; a failure is dropped (there is nowhere left to
/// report it, and the exit status still tells).
fn say(err: &mut dyn Write, line: std::fmt::Arguments<'_>) {
    let _ = writeln!(err, "{line}").and_then(|()| err.flush());
}

/// The whole command, from its arguments (after the program's name) to its exit status. The
/// report, or the usage for `--help`, goes to `out`; messages and progress go to `err`, where a
/// failed write is dropped (there is nowhere left to report it; the status still tells).
fn run(
    args: Result<Vec<String>, String>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    mut bar: ProgressBar,
) -> u8 {
    let options = match args.and_then(|a| parse(&a)) {
        Ok(o) => o,
        Err(message) if message.is_empty() => return written(out, &format!("{USAGE}\n"), err),
        Err(message) => {
            say(err, format_args!("tail-lab: {message}\n\n{USAGE}"));
            return 2;
        }
    };
    // A long report says at once how long it is expected to take (the bar keeps the count).
    let expected = expected_seconds(options.requests, options.threads);
    bar.expected = Some(expected);
    if expected >= 10.0 {
        say(
            err,
            format_args!(
                "tail-lab: {} runs of {} requests each on {} thread{}; expect about {} (16 s of \
                 one core per million requests, measured on a 2-core machine)",
                report::report_steps(),
                options.requests,
                options.threads,
                if options.threads == 1 { "" } else { "s" },
                readable_duration(expected)
            ),
        );
    }
    let computed = parallel::compute(options.seed, options.requests, options.threads, &mut |p| {
        bar.show(p, err)
    });
    bar.finish(err);
    let text = match computed {
        Ok(r) if options.json => format!("{}\n", json::report(&r)),
        Ok(r) => table::report(&r),
        Err(e) => {
            say(err, format_args!("tail-lab: {e}"));
            return 2;
        }
    };
    written(out, &text, err)
}

/// Writes `text` to `out` and flushes it, and gives the exit status: 0 when it was written or
/// the reader had gone (a closed pipe: it has what it wanted), otherwise 1 with one line on
/// `err` naming the problem.
fn written(out: &mut dyn Write, text: &str, err: &mut dyn Write) -> u8 {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            say(err, format_args!("tail-lab: cannot write to stdout: {e}"));
            1
        }
    }
}

fn main() -> ExitCode {
    let stderr = io::stderr();
    let bar = ProgressBar::new(stderr.is_terminal());
    let status = run(
        utf8_args(std::env::args_os().skip(1)),
        &mut io::stdout().lock(),
        &mut stderr.lock(),
        bar,
    );
    ExitCode::from(status)
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

    /// Issue 32 item 16: a long report says how long it will take, before its first run ends,
    /// and the bar shows the time so far beside it.
    #[test]
    fn a_long_report_says_its_expected_time() {
        assert_eq!(readable_duration(45.2), "45 s");
        assert_eq!(readable_duration(820.0), "14 min");
        assert_eq!(readable_duration(5400.0), "1 h 30 min");
        let one = expected_seconds(10_000_000, 1);
        assert!((one - 164.0).abs() < 1e-9, "{one}");
        assert!(expected_seconds(10_000_000, 1024) <= one);
        let mut bar = ProgressBar::new(true);
        bar.expected = Some(820.0);
        let line = bar.render(report::Progress {
            done: 3,
            section: "loaded",
        });
        assert!(line.ends_with("of about 14 min   "), "{line:?}");
    }

    #[test]
    fn the_progress_bar_fills_and_names_the_section() {
        let total = report::report_steps();
        let mut bar = ProgressBar::new(true);
        let half = bar.render(report::Progress {
            done: total / 2,
            section: "loaded",
        });
        let filled = (total / 2 * 30 / total) as usize;
        let want = format!("\r[{}{}]", "#".repeat(filled), ".".repeat(30 - filled));
        assert!(half.starts_with(&want), "{half:?}");
        assert!(half.contains(&format!("{}/{total} runs (loaded)", total / 2)));
        bar.terminal = false;
        let line = bar.render(report::Progress {
            done: total / 2 + 1,
            section: "loaded",
        });
        assert_eq!(
            line,
            format!("tail-lab: {}/{total} runs done (loaded)\n", total / 2 + 1)
        );
        // A plain line at most every five seconds, but always the last.
        assert_eq!(
            bar.render(report::Progress {
                done: total / 2 + 2,
                section: "loaded"
            }),
            ""
        );
        assert!(
            !bar.render(report::Progress {
                done: total,
                section: "tail"
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
        assert!(!defaults.json);
        assert_eq!(defaults.seed, 1);
        assert_eq!(parse(&args("report --seed 0")).unwrap().seed, 0);
        assert_eq!(
            parse(&args("report --seed 18446744073709551615"))
                .unwrap()
                .seed,
            u64::MAX
        );
        assert_eq!(
            parse(&args("report --requests 100000000"))
                .unwrap()
                .requests,
            100_000_000
        );
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

    #[test]
    fn numbers_are_plain_decimal_digits_only() {
        for (flag, range) in [
            ("--seed", "0..=2^64-1"),
            ("--requests", "1..=100000000"),
            ("--threads", "1..=1024"),
        ] {
            for value in [
                "+5", "05", "00", "-0", " 5", "5 ", "5\n", "5_0", "0x10", "5e2", "5.0", "", "٥",
                "５",
            ] {
                let line = vec!["report".to_string(), flag.to_string(), value.to_string()];
                let e = parse(&line).unwrap_err();
                assert!(
                    e.starts_with(flag) && e.contains(range) && e.contains("plain decimal"),
                    "{flag} {value:?}: {e}"
                );
            }
        }
        // The issue's two.
        let e = parse(&args("report --requests +5000")).unwrap_err();
        assert_eq!(
            e,
            "--requests must be an integer in 1..=100000000, written as plain decimal digits \
             (got \"+5000\")"
        );
        assert!(parse(&args("report --requests 05000")).is_err());
        assert!(parse(&args("report --seed 18446744073709551616")).is_err());
        assert_eq!(plain_decimal("0"), Some(0));
        assert_eq!(plain_decimal("5000"), Some(5000));
        assert_eq!(plain_decimal("10"), Some(10));
        assert_eq!(plain_decimal("05000"), None);
        assert_eq!(plain_decimal("+5000"), None);
    }

    #[test]
    fn a_repeated_flag_is_refused_naming_it() {
        for line in [
            "report --json --json",
            "report --seed 1 --seed 2",
            "report --seed 1 --seed 1",
            "report --requests 10 --json --requests 20",
            "report --threads 1 --threads 2",
        ] {
            let e = parse(&args(line)).unwrap_err();
            let flag = line.split_whitespace().nth(1).unwrap();
            assert_eq!(
                e,
                format!("{flag} is given more than once: give each flag at most once"),
                "{line}"
            );
        }
    }

    /// A stdout or stderr that takes `accept` bytes, then fails every write with `kind`.
    struct Failing {
        kind: io::ErrorKind,
        accept: usize,
        taken: usize,
        failures: usize,
    }

    impl Failing {
        fn new(kind: io::ErrorKind, accept: usize) -> Self {
            Failing {
                kind,
                accept,
                taken: 0,
                failures: 0,
            }
        }
    }

    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = buf.len().min(self.accept - self.taken);
            if n == 0 && !buf.is_empty() {
                self.failures += 1;
                return Err(self.kind.into());
            }
            self.taken += n;
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A bar that never draws, so stderr holds only messages.
    fn silent_bar() -> ProgressBar {
        let mut bar = ProgressBar::new(false);
        bar.quiet_for = Duration::MAX;
        bar
    }

    fn run_with(line: &str, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
        run(Ok(args(line)), out, err, silent_bar())
    }

    const SMALL: &str = "report --requests 2000 --threads 2";

    /// The report, the JSON report and the usage, each written to a stdout that fails with
    /// `kind` before its first byte and after 100: (command line, status, stderr).
    fn with_failing_stdout(kind: io::ErrorKind) -> Vec<(String, u8, String)> {
        let mut outcomes = Vec::new();
        for line in [
            SMALL.to_string(),
            format!("{SMALL} --json"),
            "--help".into(),
        ] {
            for accept in [0, 100] {
                let mut out = Failing::new(kind, accept);
                let mut err = Vec::new();
                let status = run_with(&line, &mut out, &mut err);
                assert!(out.failures > 0, "{line}: stdout was written to");
                outcomes.push((line.clone(), status, String::from_utf8(err).unwrap()));
            }
        }
        outcomes
    }

    #[test]
    fn a_closed_pipe_on_stdout_is_status_0_and_says_nothing() {
        for (line, status, err) in with_failing_stdout(io::ErrorKind::BrokenPipe) {
            assert_eq!((status, err.as_str()), (0, ""), "{line}");
        }
    }

    #[test]
    fn a_full_device_is_one_line_on_stderr_and_status_1() {
        for (line, status, err) in with_failing_stdout(io::ErrorKind::StorageFull) {
            assert_eq!(status, 1, "{line}");
            assert!(
                err.starts_with("tail-lab: cannot write to stdout: ")
                    && err.ends_with('\n')
                    && err.lines().count() == 1,
                "{line}: {err:?}"
            );
        }
        // Any other write error is the same status, with its own words.
        let mut out = Failing::new(io::ErrorKind::PermissionDenied, 0);
        let mut err = Vec::new();
        assert_eq!(run_with(SMALL, &mut out, &mut err), 1);
        assert!(
            String::from_utf8(err)
                .unwrap()
                .contains("permission denied")
        );
    }

    #[test]
    fn a_failing_stderr_loses_its_messages_not_the_status() {
        for kind in [io::ErrorKind::BrokenPipe, io::ErrorKind::StorageFull] {
            // A usage error still exits 2.
            let mut err = Failing::new(kind, 0);
            assert_eq!(run_with("report --seed -1", &mut Vec::new(), &mut err), 2);
            assert!(err.failures > 0);
            // A failed stdout still exits 1 when its message cannot be written either.
            let mut err = Failing::new(kind, 0);
            let mut out = Failing::new(io::ErrorKind::StorageFull, 0);
            assert_eq!(run_with(SMALL, &mut out, &mut err), 1);
            // The progress bar stops drawing at its first failed write, and the report is
            // written in full.
            let mut bar = ProgressBar::new(true);
            bar.quiet_for = Duration::ZERO;
            let mut err = Failing::new(kind, 10);
            let mut out = Vec::new();
            assert_eq!(run(Ok(args(SMALL)), &mut out, &mut err, bar), 0);
            assert_eq!(err.failures, 1, "one failed draw, then no more");
            assert!(
                String::from_utf8(out)
                    .unwrap()
                    .starts_with("Tail Latency Lab")
            );
        }
    }

    #[test]
    fn a_good_run_writes_the_report_and_nothing_else() {
        let mut out = Vec::new();
        let mut err = Vec::new();
        assert_eq!(run_with(SMALL, &mut out, &mut err), 0);
        let out = String::from_utf8(out).unwrap();
        assert!(out.starts_with("Tail Latency Lab · seed 1 · 2000 requests"));
        assert!(err.is_empty());
        let mut out = Vec::new();
        assert_eq!(run_with("--help", &mut out, &mut err), 0);
        assert_eq!(String::from_utf8(out).unwrap(), format!("{USAGE}\n"));
        assert!(err.is_empty());
    }
}
