//! The built `tail-lab` binary as a shell runs it: exit statuses 0 (written, or the reader of
//! stdout went away), 1 (stdout could not be written) and 2 (bad arguments), never a panic.
//!
//! Small runs (`--requests 2000`) so each takes a moment. No test measures time.

use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_tail-lab");

/// A small report's arguments, plus `extra`.
fn small(extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = vec!["report", "--requests", "2000", "--threads", "2"];
    args.extend_from_slice(extra);
    args
}

fn tail_lab(args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command.args(args).stdin(Stdio::null());
    command
}

/// What the command said on stderr, less its progress lines: a report that takes over 1.5 s
/// (on a busy machine even a small one can) prints "tail-lab: 7/51 runs done (Tail)" lines,
/// which are not messages about the outcome.
fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|l| !(l.starts_with("tail-lab: ") && l.contains(" runs done (")))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The write end of a pipe whose reader has already exited, so the first write to it fails
/// with EPIPE whenever it comes (no race with the reader). The reader is the binary itself,
/// printing its usage to /dev/null without reading its stdin.
fn closed_pipe() -> Stdio {
    let mut reader = Command::new(BIN)
        .arg("--help")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the reader starts");
    let write_end = reader.stdin.take().expect("its stdin is a pipe");
    assert!(reader.wait().expect("the reader ends").success());
    Stdio::from(write_end)
}

/// What a full device does to a write, or `None` (with a note) where there is no /dev/full.
fn dev_full() -> Option<Stdio> {
    match std::fs::OpenOptions::new().write(true).open("/dev/full") {
        Ok(file) => Some(Stdio::from(file)),
        Err(e) => {
            println!("note: skipped, /dev/full cannot be opened for writing ({e})");
            None
        }
    }
}

fn assert_no_panic(output: &Output, what: &str) {
    let err = stderr_of(output);
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{what}: {err}"
    );
    assert_ne!(output.status.code(), Some(101), "{what}: {err}");
}

#[test]
fn a_small_report_is_written_with_status_0() {
    let output = tail_lab(&small(&[])).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let out = String::from_utf8(output.stdout).unwrap();
    assert!(
        out.starts_with("Tail Latency Lab · seed 1 · 2000 requests"),
        "{out}"
    );
    let output = tail_lab(&small(&["--json"])).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert!(output.stdout.starts_with(b"{") && output.stdout.ends_with(b"}\n"));
}

/// The report, the JSON report and the usage.
fn outputs() -> [Vec<&'static str>; 3] {
    [small(&[]), small(&["--json"]), vec!["--help"]]
}

/// `tail-lab report | true`, with the reader surely gone before the first write (no race with
/// it), for the report and the usage.
#[test]
fn a_pipe_whose_reader_has_gone_is_status_0_and_quiet() {
    for args in outputs() {
        let output = tail_lab(&args).stdout(closed_pipe()).output().unwrap();
        assert_no_panic(&output, &args.join(" "));
        assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
        assert_eq!(
            stderr_of(&output),
            "",
            "{args:?}: a closed pipe is not reported"
        );
    }
}

/// `tail-lab report > /dev/full`: one clear line, status 1.
#[test]
fn a_full_device_is_one_line_on_stderr_and_status_1() {
    for args in outputs() {
        let Some(full) = dev_full() else { return };
        let output = tail_lab(&args).stdout(full).output().unwrap();
        assert_no_panic(&output, &args.join(" "));
        let err = stderr_of(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("tail-lab: cannot write to stdout: No space left on device")
                && err.lines().count() == 1,
            "{args:?}: {err:?}"
        );
    }
}

/// Opens a stream for a child, or says why it cannot and gives `None`.
type Opener = fn() -> Option<Stdio>;

/// Messages to a stderr that cannot be written are lost, but the status is not.
#[test]
fn a_stderr_that_cannot_be_written_keeps_the_status() {
    let stderrs: [(&str, Opener); 2] = [
        ("closed pipe", || Some(closed_pipe())),
        ("/dev/full", dev_full),
    ];
    for (name, stderr) in stderrs {
        let Some(err) = stderr() else { continue };
        let status = tail_lab(&["report", "--seed", "-1"])
            .stdout(Stdio::null())
            .stderr(err)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(2), "usage error, stderr a {name}");
        let Some(err) = stderr() else { continue };
        let Some(full) = dev_full() else { continue };
        let status = tail_lab(&small(&[]))
            .stdout(full)
            .stderr(err)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(1), "full stdout, stderr a {name}");
    }
}

fn assert_usage_error(args: &[&str], says: &[&str]) {
    let output = tail_lab(args).output().unwrap();
    assert_no_panic(&output, &args.join(" "));
    let err = stderr_of(&output);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
    assert!(output.stdout.is_empty(), "{args:?}: nothing on stdout");
    let first = err.lines().next().unwrap_or_default();
    for word in says {
        assert!(first.contains(word), "{args:?}: {first:?} lacks {word:?}");
    }
    assert!(err.contains("usage: tail-lab report"), "{args:?}: {err}");
}

/// The binary's own status for bad arguments; every case of the parse is a unit test in main.rs.
#[test]
fn a_repeated_flag_or_a_signed_number_is_status_2_naming_it() {
    assert_usage_error(
        &["report", "--seed", "1", "--seed", "2"],
        &["--seed", "more than once"],
    );
    assert_usage_error(
        &["report", "--requests", "+5000"],
        &["--requests", "1..=100000000", "plain decimal digits"],
    );
}
