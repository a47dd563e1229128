//! The report's 51 runs on every core.
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
use tail_lab_core::report::{self, JobOutput, Progress, Report};

/// Threads to use when not told: every core the machine offers.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The report under `seed` with `requests` per experiment, on `threads` (≥ 1) threads, calling
/// `progress` on the calling thread as runs finish (in finishing order, `done` counting up).
pub fn compute(
    seed: u64,
    requests: u64,
    threads: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, ParamError> {
    let jobs = report::jobs();
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Result<JobOutput, ParamError>>>> =
        Mutex::new(jobs.iter().map(|_| None).collect());
    let (done_tx, done_rx) = mpsc::channel::<&'static str>();
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, jobs.len()) {
            let done_tx = done_tx.clone();
            let (jobs, next, slots) = (&jobs, &next, &slots);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let output = job.run(seed, requests);
                    let failed = output.is_err();
                    slots.lock().expect("no thread panics holding the lock")[i] = Some(output);
                    let _ = done_tx.send(job.section());
                    if failed {
                        // Stop handing out runs; the error is reported below.
                        next.store(jobs.len(), Ordering::Relaxed);
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        for (done, section) in (1..).zip(done_rx) {
            progress(Progress { done, section });
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

    #[test]
    fn any_thread_count_gives_the_sequential_report() {
        for seed in [1, 9] {
            let sequential = report::compute(seed, 2000).unwrap();
            for threads in [1, 2, 3, 8] {
                let mut ticks = Vec::new();
                let parallel = compute(seed, 2000, threads, &mut |p| ticks.push(p.done)).unwrap();
                assert_eq!(parallel, sequential, "seed {seed}, {threads} threads");
                assert_eq!(ticks, (1..=report::REPORT_STEPS).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn a_bad_request_count_is_the_same_error() {
        let e = compute(1, 0, 4, &mut |_| {}).unwrap_err();
        assert_eq!(e, report::compute(1, 0).unwrap_err());
    }
}
