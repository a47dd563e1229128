//! The headline table: every experiment's simulated value beside its closed form and the figure
//! the seed documents quote. `tail-lab report` prints it; the wasm API reproduces it.

use crate::error::{ParamError, check_count};
use crate::lab::fanout;
use crate::lab::hedge_idle::{IdleHedge, IdleHedgeResult};
use crate::lab::loaded::{self, LoadedResult};
use crate::lab::service::ServiceModel;
use crate::lab::supermarket::{self, SupermarketResult};
use crate::tail::mitigation::Mitigation;
use crate::tail::profile::ProfileId;
use crate::tail::request::TailConfig;
use crate::tail::tail_run::{HedgeCost, TailRun};
use crate::theory;

/// Parent requests per experiment unless asked otherwise.
pub const DEFAULT_REQUESTS: u64 = 200_000;
/// Fan-out of the Tail section (seed 002).
pub const TAIL_FANOUT: u32 = 100;

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

/// Section 1: fan-out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FanoutSection {
    /// Per-leaf slow probability (fraction).
    pub p: f64,
    /// Fan-out.
    pub n: u32,
    /// Simulated share of slow parents (fraction).
    pub sim: f64,
    /// `1 − (1 − p)^n`.
    pub theory: f64,
}

/// The Tail piece at fan-out 100 (all times in ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TailSection {
    /// Fan-out.
    pub n: u32,
    /// Default profile, no fix: leaf p99.
    pub leaf_p99: f64,
    /// Parent median.
    pub parent_p50: f64,
    /// Parent p99.
    pub parent_p99: f64,
    /// The leaf level `0.5^(1/n)` the parent median sits at (fraction).
    pub parent_p50_leaf_level: f64,
    /// The leaf level `0.99^(1/n)` the parent p99 sits at (fraction).
    pub parent_p99_leaf_level: f64,
    /// Parent median predicted by `F(t)^n` on the measured leaf quantiles.
    pub theory_parent_p50: f64,
    /// Parent p99 predicted by `F(t)^n` on the measured leaf quantiles.
    pub theory_parent_p99: f64,
    /// Parent p99 with a hedge after the leaf p95.
    pub hedge_parent_p99: f64,
    /// What that hedge cost.
    pub hedge_cost: HedgeCost,
    /// Parent p99 answering without the slowest 1%.
    pub drop1_parent_p99: f64,
    /// Parent p99 answering without the slowest 5%.
    pub drop5_parent_p99: f64,
    /// GC pause profile, parent p99.
    pub gc_parent_p99: f64,
    /// GC pause profile with the p95 hedge, parent p99.
    pub gc_hedge_parent_p99: f64,
    /// Tight profile, leaf p99.
    pub tight_leaf_p99: f64,
    /// Tight profile, parent p99.
    pub tight_parent_p99: f64,
    /// Fan-out at which the parent median reaches the leaf p99.
    pub crossover_n: u64,
}

/// Everything `tail-lab report` shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The seed every experiment ran under.
    pub seed: u64,
    /// Requests per experiment.
    pub requests: u64,
    /// Fan-out.
    pub fanout: FanoutSection,
    /// Hedging on idle replicas.
    pub hedge_idle: IdleHedgeResult,
    /// The Tail piece.
    pub tail: TailSection,
    /// Hedging on loaded replicas: loads 0.1..=0.9 × policies none, hedge, duplicate.
    pub loaded: Vec<LoadedResult>,
    /// The power of d choices: λ in {0.5, 0.7, 0.8, 0.9, 0.95} × d in {1, 2, 3}, 100 servers,
    /// `BALANCE_ARRIVALS_PER_REQUEST × requests` arrivals each.
    pub balance: Vec<SupermarketResult>,
}

/// Supermarket arrivals per requested request (the chain is cheap per event).
pub const BALANCE_ARRIVALS_PER_REQUEST: u64 = 5;

/// Runs one Tail configuration at fan-out 100 for `requests` requests.
pub fn tail_run(
    profile: ProfileId,
    fix: &str,
    seed: u64,
    requests: u64,
) -> Result<TailRun, ParamError> {
    let cfg = TailConfig::new(
        TAIL_FANOUT,
        profile.profile(),
        Mitigation::from_name(fix)?,
        seed,
    )?;
    let mut run = TailRun::new(cfg);
    run.run(requests)?;
    Ok(run)
}

/// Computes the report under `seed` with `requests` (1..=10^8) parent requests per experiment.
pub fn compute(seed: u64, requests: u64) -> Result<Report, ParamError> {
    compute_with_progress(seed, requests, &mut |_| {})
}

/// The report's runs, counted for a progress display: fan-out, idle hedge, 7 Tail runs, 27
/// loaded runs, 15 balance runs.
pub const REPORT_STEPS: u32 = 51;

/// Where a report computation is: `done` of [`REPORT_STEPS`] runs, and what ran last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Runs finished.
    pub done: u32,
    /// The section the last run belongs to.
    pub section: &'static str,
}

/// The seven Tail runs of the report, in [`ReportJob::Tail`] order.
const TAIL_RUNS: [(ProfileId, &str); 7] = [
    (ProfileId::Default, "none"),
    (ProfileId::Default, "hedge-p95"),
    (ProfileId::Default, "drop-1"),
    (ProfileId::Default, "drop-5"),
    (ProfileId::GcPause, "none"),
    (ProfileId::GcPause, "hedge-p95"),
    (ProfileId::Tight, "none"),
];

/// One of the report's 51 runs. Each is a pure function of the seed and the request count
/// (every model draws from its own seeded, addressed streams), so the runs can go in any order
/// on any thread and the report comes out the same bits: [`jobs`] lists them, [`ReportJob::run`]
/// runs one, [`assemble`] builds the report from their outputs in [`jobs`] order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportJob {
    /// The fan-out share.
    Fanout,
    /// Idle hedging.
    IdleHedge,
    /// Tail run `i` of seven (profile and fix).
    Tail(usize),
    /// Point `i` of the loaded sweep ([`loaded::SWEEP_POINTS`]).
    Loaded(usize),
    /// Point `i` of the balance sweep ([`supermarket::SWEEP_POINTS`]).
    Balance(usize),
}

/// What a [`ReportJob`] produced.
#[derive(Debug, Clone)]
pub enum JobOutput {
    /// The simulated slow share (fraction 0..1).
    Fanout(f64),
    /// Idle hedging's result.
    IdleHedge(IdleHedgeResult),
    /// A finished Tail run.
    Tail(Box<TailRun>),
    /// A loaded-sweep point.
    Loaded(LoadedResult),
    /// A balance-sweep point.
    Balance(SupermarketResult),
}

/// The report's runs in their fixed order ([`REPORT_STEPS`] of them).
pub fn jobs() -> Vec<ReportJob> {
    let mut jobs = vec![ReportJob::Fanout, ReportJob::IdleHedge];
    jobs.extend((0..TAIL_RUNS.len()).map(ReportJob::Tail));
    jobs.extend((0..loaded::SWEEP_POINTS).map(ReportJob::Loaded));
    jobs.extend((0..supermarket::SWEEP_POINTS).map(ReportJob::Balance));
    jobs
}

/// The fan-out section's parameters: p (fraction) and n.
const FANOUT_P: f64 = 0.01;
const FANOUT_N: u32 = 100;

impl ReportJob {
    /// The section this run belongs to, for progress displays.
    pub fn section(self) -> &'static str {
        match self {
            ReportJob::Fanout => "fan-out",
            ReportJob::IdleHedge => "idle hedge",
            ReportJob::Tail(_) => "Tail",
            ReportJob::Loaded(_) => "loaded",
            ReportJob::Balance(_) => "balance",
        }
    }

    /// Runs this job for the report under `seed` with `requests` per experiment.
    pub fn run(self, seed: u64, requests: u64) -> Result<JobOutput, ParamError> {
        check_report_requests(requests)?;
        Ok(match self {
            ReportJob::Fanout => JobOutput::Fanout(fanout::simulate_slow_share(
                FANOUT_P, FANOUT_N, requests, seed,
            )?),
            ReportJob::IdleHedge => JobOutput::IdleHedge(
                IdleHedge::new(ServiceModel::default(), 0.95, seed)?.run(requests)?,
            ),
            ReportJob::Tail(i) => {
                let (profile, fix) = TAIL_RUNS[i];
                JobOutput::Tail(Box::new(tail_run(profile, fix, seed, requests)?))
            }
            ReportJob::Loaded(i) => {
                JobOutput::Loaded(loaded::sweep_point(i, requests.max(1000), seed)?)
            }
            ReportJob::Balance(i) => JobOutput::Balance(supermarket::sweep_point(
                i,
                (requests * BALANCE_ARRIVALS_PER_REQUEST).max(1000),
                seed,
            )?),
        })
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

/// [`compute`], calling `progress` after every run (51 in all), so a long report can show
/// where it is. Runs the jobs one after another; a caller with threads can run [`jobs`] in
/// parallel and [`assemble`] the same report.
pub fn compute_with_progress(
    seed: u64,
    requests: u64,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, ParamError> {
    check_report_requests(requests)?;
    let mut outputs = Vec::with_capacity(REPORT_STEPS as usize);
    for (done, job) in (1..).zip(jobs()) {
        outputs.push(job.run(seed, requests)?);
        progress(Progress {
            done,
            section: job.section(),
        });
    }
    assemble(seed, requests, outputs)
}

/// Builds the report from the outputs of [`jobs`], given in [`jobs`] order.
pub fn assemble(seed: u64, requests: u64, outputs: Vec<JobOutput>) -> Result<Report, ParamError> {
    let mut fanout_sim = None;
    let mut hedge_idle = None;
    let mut tails = Vec::new();
    let mut loaded = Vec::new();
    let mut balance = Vec::new();
    for output in outputs {
        match output {
            JobOutput::Fanout(x) => fanout_sim = Some(x),
            JobOutput::IdleHedge(r) => hedge_idle = Some(r),
            JobOutput::Tail(r) => tails.push(*r),
            JobOutput::Loaded(r) => loaded.push(r),
            JobOutput::Balance(r) => balance.push(r),
        }
    }
    assert!(
        tails.len() == TAIL_RUNS.len()
            && loaded.len() == loaded::SWEEP_POINTS
            && balance.len() == supermarket::SWEEP_POINTS,
        "assemble takes the outputs of every job in `jobs()`"
    );
    let (Some(sim), Some(hedge_idle)) = (fanout_sim, hedge_idle) else {
        panic!("assemble takes the outputs of every job in `jobs()`");
    };
    let fanout = FanoutSection {
        p: FANOUT_P,
        n: FANOUT_N,
        sim,
        theory: theory::slow_share(FANOUT_P, FANOUT_N)?,
    };
    let p99 = |r: &TailRun| r.parent_percentile(0.99).expect("valid q");
    let [base, hedge, drop1, drop5, gc, gc_hedge, tight] = &tails[..] else {
        unreachable!("seven Tail runs, checked above")
    };
    let quantiles = base.model().leaf_quantiles();
    let tail = TailSection {
        n: TAIL_FANOUT,
        leaf_p99: base.leaf_percentile(0.99)?,
        parent_p50: base.parent_percentile(0.5)?,
        parent_p99: p99(base),
        parent_p50_leaf_level: theory::parent_level(0.5, TAIL_FANOUT)?,
        parent_p99_leaf_level: theory::parent_level(0.99, TAIL_FANOUT)?,
        theory_parent_p50: quantiles.parent_quantile(0.5, TAIL_FANOUT),
        theory_parent_p99: quantiles.parent_quantile(0.99, TAIL_FANOUT),
        hedge_parent_p99: p99(hedge),
        hedge_cost: hedge.hedge_cost(),
        drop1_parent_p99: p99(drop1),
        drop5_parent_p99: p99(drop5),
        gc_parent_p99: p99(gc),
        gc_hedge_parent_p99: p99(gc_hedge),
        tight_leaf_p99: tight.leaf_percentile(0.99)?,
        tight_parent_p99: p99(tight),
        crossover_n: theory::crossover(0.5, 0.99)?,
    };
    Ok(Report {
        seed,
        requests,
        fanout,
        hedge_idle,
        tail,
        loaded,
        balance,
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
        assert_eq!(done, (1..=REPORT_STEPS).collect::<Vec<_>>());
        let count = |s: &str| seen.iter().filter(|p| p.section == s).count();
        assert_eq!(
            [
                count("fan-out"),
                count("idle hedge"),
                count("Tail"),
                count("loaded"),
                count("balance")
            ],
            [1, 1, 7, 27, 15]
        );
        // The same numbers as without a progress callback.
        assert_eq!(r, compute(3, 1000).unwrap());
    }

    #[test]
    fn jobs_in_any_order_assemble_the_same_report() {
        let (seed, requests) = (5, 1000);
        let jobs = jobs();
        assert_eq!(jobs.len(), REPORT_STEPS as usize);
        // Run them backwards (as threads finishing out of order would), then put them back.
        let mut outputs: Vec<(usize, JobOutput)> = jobs
            .iter()
            .enumerate()
            .rev()
            .map(|(i, j)| (i, j.run(seed, requests).unwrap()))
            .collect();
        outputs.sort_by_key(|(i, _)| *i);
        let report = assemble(
            seed,
            requests,
            outputs.into_iter().map(|(_, o)| o).collect(),
        );
        assert_eq!(report.unwrap(), compute(seed, requests).unwrap());
    }
}
