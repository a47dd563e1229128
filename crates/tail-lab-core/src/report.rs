//! The headline report: every registered model's report runs ([`crate::model::MODELS`]), each
//! entry's simulated values beside its closed forms and the figures the seed documents quote.
//! `tail-lab report` prints it; the wasm API reproduces every entry bit for bit.

use crate::describe::Field;
use crate::error::{ParamError, check_count};
use crate::model::{MODELS, Model, RunOutput};

/// Parent requests per experiment unless asked otherwise.
pub const DEFAULT_REQUESTS: u64 = 200_000;

/// Figures the seed documents quote, for display beside the simulation.
pub mod seed_figures {
    /// `slowShare(0.01, 100)` (seed 001).
    pub const SLOW_SHARE: f64 = 0.634;
    /// Idle hedge at p95: p99.9 before and after (ms), extra requests and work (seed 000).
    pub const IDLE_P999_BEFORE: f64 = 1555.0;
    /// See [`IDLE_P999_BEFORE`].
    pub const IDLE_P999_AFTER: f64 = 34.0;
    /// See [`IDLE_P999_BEFORE`].
    pub const IDLE_EXTRA_REQUESTS: f64 = 0.047;
    /// See [`IDLE_P999_BEFORE`].
    pub const IDLE_EXTRA_WORK: f64 = 0.015;
    /// Seed 002, fan-out 100, default profile (ms).
    pub const LEAF_P99: f64 = 12.0;
    /// See [`LEAF_P99`].
    pub const PARENT_P99: f64 = 310.0;
    /// See [`LEAF_P99`].
    pub const HEDGE_PARENT_P99: f64 = 18.0;
    /// See [`LEAF_P99`].
    pub const DROP1_PARENT_P99: f64 = 143.0;
    /// See [`LEAF_P99`].
    pub const DROP5_PARENT_P99: f64 = 10.0;
    /// GC pause profile, parent p99 without and with the hedge (ms).
    pub const GC_PARENT_P99: f64 = 816.0;
    /// See [`GC_PARENT_P99`].
    pub const GC_HEDGE_PARENT_P99: f64 = 11.0;
    /// Tight profile, leaf and parent p99 (ms).
    pub const TIGHT_LEAF_P99: f64 = 7.0;
    /// See [`TIGHT_LEAF_P99`].
    pub const TIGHT_PARENT_P99: f64 = 10.0;
}

/// One model's part of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// The model's report key (and JSON key).
    pub key: &'static str,
    /// The heading.
    pub title: &'static str,
    /// What the table prints under the heading.
    pub note: &'static str,
    /// True when `entries` is a sweep (a list), false for one entry.
    pub sweep: bool,
    /// The entries, each described field by field.
    pub entries: Vec<Vec<Field>>,
}

/// Everything `tail-lab report` shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The seed every experiment ran under.
    pub seed: u64,
    /// Requests per experiment.
    pub requests: u64,
    /// One section per registered model, in [`MODELS`] order.
    pub sections: Vec<Section>,
}

impl Report {
    /// The section with report key `key`.
    pub fn section(&self, key: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.key == key)
    }
}

/// Computes the report under `seed` with `requests` (1..=10^8) parent requests per experiment.
pub fn compute(seed: u64, requests: u64) -> Result<Report, ParamError> {
    compute_with_progress(seed, requests, &mut |_| {})
}

/// The report's runs, counted for a progress display: the sum of every model's runs.
pub fn report_steps() -> u32 {
    MODELS.iter().map(|m| m.runs as u32).sum()
}

/// Where a report computation is: `done` of [`report_steps`] runs, and what ran last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Runs finished.
    pub done: u32,
    /// The report key of the model the last run belongs to.
    pub section: &'static str,
}

/// One of the report's runs: run `index` of `model`. Each is a pure function of the seed and
/// the request count (every model draws from its own seeded, addressed streams), so the runs
/// can go in any order on any thread and the report comes out the same bits: [`jobs`] lists
/// them, [`Job::run`] runs one, [`assemble`] builds the report from their outputs in [`jobs`]
/// order.
#[derive(Debug, Clone, Copy)]
pub struct Job {
    /// The model.
    pub model: &'static Model,
    /// Which of its runs.
    pub index: usize,
}

/// The report's runs in their fixed order ([`report_steps`] of them).
pub fn jobs() -> Vec<Job> {
    MODELS
        .iter()
        .flat_map(|&model| (0..model.runs).map(move |index| Job { model, index }))
        .collect()
}

impl Job {
    /// The report key of the model this run belongs to, for progress displays.
    pub fn section(self) -> &'static str {
        self.model.key
    }

    /// Runs this job for the report under `seed` with `requests` per experiment.
    pub fn run(self, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
        check_report_requests(requests)?;
        (self.model.run)(self.index, seed, requests)
    }
}

fn check_report_requests(requests: u64) -> Result<u64, ParamError> {
    check_count(
        "requests",
        requests,
        1,
        100_000_000,
        "an integer in 1..=100000000",
    )
}

/// [`compute`], calling `progress` after every run, so a long report can show where it is.
/// Runs the jobs one after another; a caller with threads can run [`jobs`] in parallel and
/// [`assemble`] the same report.
pub fn compute_with_progress(
    seed: u64,
    requests: u64,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, ParamError> {
    check_report_requests(requests)?;
    let mut outputs = Vec::with_capacity(report_steps() as usize);
    for (done, job) in (1..).zip(jobs()) {
        outputs.push(job.run(seed, requests)?);
        progress(Progress {
            done,
            section: job.section(),
        });
    }
    assemble(seed, requests, outputs)
}

/// Builds the report from the outputs of [`jobs`], given in [`jobs`] order. Outputs that are
/// not those (too few, too many, another model's) are an error naming `outputs`.
pub fn assemble(seed: u64, requests: u64, outputs: Vec<RunOutput>) -> Result<Report, ParamError> {
    if outputs.len() != report_steps() as usize {
        return Err(ParamError::OutOfRange {
            param: "outputs",
            got: outputs.len() as f64,
            expected: "one output for every job in jobs(), in order",
        });
    }
    let mut outputs = outputs.into_iter();
    let sections = MODELS
        .iter()
        .map(|model| {
            let runs: Vec<RunOutput> = outputs.by_ref().take(model.runs).collect();
            Ok(Section {
                key: model.key,
                title: model.title,
                note: model.note,
                sweep: model.sweep,
                entries: (model.entries)(runs)?,
            })
        })
        .collect::<Result<_, ParamError>>()?;
    Ok(Report {
        seed,
        requests,
        sections,
    })
}

#[cfg(test)]
mod progress_tests {
    use super::*;

    #[test]
    fn progress_counts_every_run_once_in_order() {
        let mut seen = Vec::new();
        let r = compute_with_progress(3, 1000, &mut |p| seen.push(p)).unwrap();
        let done: Vec<u32> = seen.iter().map(|p| p.done).collect();
        assert_eq!(done, (1..=report_steps()).collect::<Vec<_>>());
        for model in MODELS {
            let count = seen.iter().filter(|p| p.section == model.key).count();
            assert_eq!(count, model.runs, "{}", model.key);
            let section = r.section(model.key).unwrap();
            assert_eq!(
                section.entries.len(),
                if model.sweep { model.runs } else { 1 }
            );
        }
        // The same numbers as without a progress callback (compared as printed: a series may
        // hold NaN, which `==` never equals).
        assert_eq!(format!("{r:?}"), format!("{:?}", compute(3, 1000).unwrap()));
    }

    #[test]
    fn jobs_in_any_order_assemble_the_same_report() {
        let (seed, requests) = (5, 1000);
        let jobs = jobs();
        assert_eq!(jobs.len(), report_steps() as usize);
        // Run them backwards (as threads finishing out of order would), then put them back.
        let mut outputs: Vec<(usize, RunOutput)> = jobs
            .iter()
            .enumerate()
            .rev()
            .map(|(i, j)| (i, j.run(seed, requests).unwrap()))
            .collect();
        outputs.sort_by_key(|(i, _)| *i);
        let outputs: Vec<RunOutput> = outputs.into_iter().map(|(_, o)| o).collect();
        let report = assemble(seed, requests, outputs);
        // Compared as printed (`{:?}` writes every f64 exactly): a series may hold NaN (a
        // window with nothing measured), which `==` never equals.
        assert_eq!(
            format!("{:?}", report.unwrap()),
            format!("{:?}", compute(seed, requests).unwrap())
        );
    }

    #[test]
    fn outputs_that_are_not_the_jobs_are_an_error_not_a_panic() {
        let err = assemble(1, 1000, Vec::new()).unwrap_err();
        assert_eq!(err.param(), "outputs");
        // The right count, the wrong things.
        let wrong: Vec<RunOutput> = jobs().iter().map(|_| Box::new(0u8) as RunOutput).collect();
        assert_eq!(assemble(1, 1000, wrong).unwrap_err().param(), "outputs");
    }
}
