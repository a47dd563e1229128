//! The report's runs (every registered model's) on every core.
//!
//! Each run is a pure function of the seed and the request count (`report::jobs`), so threads
//! take the next unstarted run from a shared counter, results go back into their slot, and
//! `report::assemble` builds the report in the fixed order: the same bits for any thread count,
//! tested against the sequential `report::compute`. Plain scoped threads: the runs are few and
//! coarse (milliseconds to seconds each), so a work-stealing pool would add a dependency and
//! nothing else.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use tail_lab_core::ParamError;
use tail_lab_core::model::RunOutput;
use tail_lab_core::report::{self, Progress, Report};

/// Threads to use when not told: every core the machine offers.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The report under `seed` with `requests` per experiment, on `threads` (≥ 1) threads, calling
/// `progress` on the calling thread as runs finish (in finishing order, `done` counting up), and
/// again every second while none finishes (the same `done`).
///
/// A thread the system will not start (a process limit) is not an error: the runs go to the
/// threads that did start, or to the calling thread when none did, with the same bits.
pub fn compute(
    seed: u64,
    requests: u64,
    threads: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, ParamError> {
    compute_with(seed, requests, threads, progress, &|_| true)
}

/// [`compute`], where `may_start(i)` false stands for the system refusing the `i`th thread (0
/// first), so the tests can reach the fallbacks.
fn compute_with(
    seed: u64,
    requests: u64,
    threads: usize,
    progress: &mut dyn FnMut(Progress),
    may_start: &dyn Fn(usize) -> bool,
) -> Result<Report, ParamError> {
    let jobs = report::jobs();
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Result<RunOutput, ParamError>>>> =
        Mutex::new(jobs.iter().map(|_| None).collect());
    // Takes the next unstarted run until none is left (or one fails), telling `done` its
    // section as each finishes.
    let work = |done: &mut dyn FnMut(&'static str)| {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = jobs.get(i) else { break };
            let output = job.run(seed, requests);
            let failed = output.is_err();
            slots.lock().expect("no thread panics holding the lock")[i] = Some(output);
            done(job.section());
            if failed {
                // Stop handing out runs; the error is reported below.
                next.store(jobs.len(), Ordering::Relaxed);
                break;
            }
        }
    };
    let (done_tx, done_rx) = mpsc::channel::<&'static str>();
    std::thread::scope(|scope| {
        let mut started = 0;
        for i in 0..threads.clamp(1, jobs.len()) {
            let done_tx = done_tx.clone();
            let thread = move || {
                work(&mut |section| {
                    let _ = done_tx.send(section);
                })
            };
            let spawned = may_start(i)
                && std::thread::Builder::new()
                    .spawn_scoped(scope, thread)
                    .is_ok();
            if !spawned {
                break;
            }
            started += 1;
        }
        drop(done_tx);
        if started == 0 {
            let mut done = 0;
            work(&mut |section| {
                done += 1;
                progress(Progress { done, section });
            });
        } else {
            // Every second without a finished run, the last progress again: a run of 10^8
            // requests takes minutes, and a bar that never moves looks like a hang.
            let (mut done, mut section) = (0, "");
            loop {
                match done_rx.recv_timeout(std::time::Duration::from_secs(1)) {
                    Ok(finished) => {
                        done += 1;
                        section = finished;
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
                progress(Progress { done, section });
            }
        }
    });
    let outputs = slots
        .into_inner()
        .expect("no thread panics holding the lock")
        .into_iter()
        .flatten()
        .collect::<Result<Vec<_>, _>>()?;
    report::assemble(seed, requests, outputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report as printed (`{:?}` writes every f64 exactly), so that two reports compare
    /// equal bit for bit even where a series holds NaN (a window with nothing measured), which
    /// `==` never equals.
    fn same(report: &report::Report) -> String {
        format!("{report:?}")
    }

    #[test]
    fn any_thread_count_gives_the_sequential_report() {
        for seed in [1, 9] {
            let sequential = report::compute(seed, 2000).unwrap();
            for threads in [1, 2, 3, 8] {
                let mut ticks = Vec::new();
                let parallel = compute(seed, 2000, threads, &mut |p| ticks.push(p.done)).unwrap();
                ticks.dedup(); // a second without a finished run repeats the count
                assert_eq!(
                    same(&parallel),
                    same(&sequential),
                    "seed {seed}, {threads} threads"
                );
                assert_eq!(ticks, (1..=report::report_steps()).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn threads_the_system_refuses_leave_the_same_report() {
        let sequential = report::compute(3, 2000).unwrap();
        // Only the first of four threads starts, then none at all (the calling thread runs).
        for started in [1, 0] {
            let mut ticks = Vec::new();
            let report =
                compute_with(3, 2000, 4, &mut |p| ticks.push(p.done), &|i| i < started).unwrap();
            assert_eq!(same(&report), same(&sequential), "{started} started");
            ticks.dedup(); // a second without a finished run repeats the count
            assert_eq!(ticks, (1..=report::report_steps()).collect::<Vec<_>>());
        }
        let e = compute_with(1, 0, 4, &mut |_| {}, &|_| false).unwrap_err();
        assert_eq!(e, report::compute(1, 0).unwrap_err());
    }

    #[test]
    fn a_bad_request_count_is_the_same_error() {
        let e = compute(1, 0, 4, &mut |_| {}).unwrap_err();
        assert_eq!(e, report::compute(1, 0).unwrap_err());
    }
}
