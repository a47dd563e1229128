//! The Tail piece's part of the report: seven runs at fan-out 100 (three profiles, four fixes),
//! summarised as one entry beside `F(t)^n` on the measured leaves and the seed's figures.

use crate::describe::{Describe, Field, Unit, Value};
use crate::error::ParamError;
use crate::model::{Entries, Model, RunOutput, wrong_output};
use crate::report::seed_figures as seed;
use crate::tail::leaf_quantiles::CALIBRATION_STREAM;
use crate::tail::mitigation::Mitigation;
use crate::tail::profile::ProfileId;
use crate::tail::request::{REQUEST_STREAM, TailConfig};
use crate::tail::tail_run::{HedgeCost, TailRun};
use crate::theory;

/// Fan-out of the Tail section (seed 002).
pub const TAIL_FANOUT: u32 = 100;

/// The report's Tail runs, in order: (profile, fix).
const TAIL_RUNS: [(ProfileId, &str); 7] = [
    (ProfileId::Default, "none"),
    (ProfileId::Default, "hedge-p95"),
    (ProfileId::Default, "drop-1"),
    (ProfileId::Default, "drop-5"),
    (ProfileId::GcPause, "none"),
    (ProfileId::GcPause, "hedge-p95"),
    (ProfileId::Tight, "none"),
];

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

impl TailSection {
    /// The section from the seven runs of `TAIL_RUNS`, in order.
    fn of(runs: &[TailRun]) -> Result<Self, ParamError> {
        let [base, hedge, drop1, drop5, gc, gc_hedge, tight] = runs else {
            return Err(wrong_output());
        };
        let p99 = |r: &TailRun| r.parent_percentile(0.99);
        let quantiles = base.model().leaf_quantiles();
        Ok(TailSection {
            n: TAIL_FANOUT,
            leaf_p99: base.leaf_percentile(0.99)?,
            parent_p50: base.parent_percentile(0.5)?,
            parent_p99: p99(base)?,
            parent_p50_leaf_level: theory::parent_level(0.5, TAIL_FANOUT)?,
            parent_p99_leaf_level: theory::parent_level(0.99, TAIL_FANOUT)?,
            theory_parent_p50: quantiles.parent_quantile(0.5, TAIL_FANOUT)?,
            theory_parent_p99: quantiles.parent_quantile(0.99, TAIL_FANOUT)?,
            hedge_parent_p99: p99(hedge)?,
            hedge_cost: hedge.hedge_cost(),
            drop1_parent_p99: p99(drop1)?,
            drop5_parent_p99: p99(drop5)?,
            gc_parent_p99: p99(gc)?,
            gc_hedge_parent_p99: p99(gc_hedge)?,
            tight_leaf_p99: tight.leaf_percentile(0.99)?,
            tight_parent_p99: p99(tight)?,
            crossover_n: theory::crossover(0.5, 0.99)?,
        })
    }
}

impl Describe for TailSection {
    const TYPE_NAME: &'static str = "TailSection";
    const DOC: &'static str =
        "The Tail piece at fan-out 100: seven runs over three leaf profiles and four fixes.";

    fn describe(&self) -> Vec<Field> {
        let t = self;
        vec![
            Field::count("n", "Fan-out.", u64::from(t.n)),
            Field::ms("leaf_p99", "Default profile, no fix: leaf p99.", t.leaf_p99)
                .quoting(seed::LEAF_P99),
            Field::ms("parent_p50", "Parent median.", t.parent_p50),
            Field::ms("parent_p99", "Parent p99.", t.parent_p99).quoting(seed::PARENT_P99),
            Field::fraction(
                "parent_p50_leaf_level",
                "The leaf level 0.5^(1/n) the parent median sits at.",
                t.parent_p50_leaf_level,
            ),
            Field::fraction(
                "parent_p99_leaf_level",
                "The leaf level 0.99^(1/n) the parent p99 sits at.",
                t.parent_p99_leaf_level,
            ),
            Field::ms(
                "theory_parent_p50",
                "Parent median predicted by F(t)^n on the measured leaf quantiles.",
                t.theory_parent_p50,
            ),
            Field::ms(
                "theory_parent_p99",
                "Parent p99 predicted by F(t)^n on the measured leaf quantiles.",
                t.theory_parent_p99,
            ),
            Field::ms(
                "hedge_parent_p99",
                "Parent p99 with a hedge after the leaf p95.",
                t.hedge_parent_p99,
            )
            .quoting(seed::HEDGE_PARENT_P99),
            Field::fraction(
                "hedge_extra_requests",
                "Share of leaf calls that fired a duplicate.",
                t.hedge_cost.extra_requests,
            ),
            Field::fraction(
                "hedge_extra_work",
                "Duplicates' service time until answered or cancelled, over the originals'.",
                t.hedge_cost.extra_work,
            ),
            Field::ms(
                "drop1_parent_p99",
                "Parent p99 answering without the slowest 1% of leaves.",
                t.drop1_parent_p99,
            )
            .quoting(seed::DROP1_PARENT_P99),
            Field::ms(
                "drop5_parent_p99",
                "Parent p99 answering without the slowest 5% of leaves.",
                t.drop5_parent_p99,
            )
            .quoting(seed::DROP5_PARENT_P99),
            Field::ms(
                "gc_parent_p99",
                "GC pause profile: parent p99.",
                t.gc_parent_p99,
            )
            .quoting(seed::GC_PARENT_P99),
            Field::ms(
                "gc_hedge_parent_p99",
                "GC pause profile with the p95 hedge: parent p99.",
                t.gc_hedge_parent_p99,
            )
            .quoting(seed::GC_HEDGE_PARENT_P99),
            Field::ms(
                "tight_leaf_p99",
                "Tight profile: leaf p99.",
                t.tight_leaf_p99,
            )
            .quoting(seed::TIGHT_LEAF_P99),
            Field::ms(
                "tight_parent_p99",
                "Tight profile: parent p99.",
                t.tight_parent_p99,
            )
            .quoting(seed::TIGHT_PARENT_P99),
            Field::new(
                "crossover_n",
                Unit::Count,
                "Fan-out at which the parent median reaches the leaf p99.",
                Value::Integer(t.crossover_n),
            )
            .quoting(69.0),
        ]
    }
}

fn run(index: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    let (profile, fix) = *TAIL_RUNS.get(index).ok_or_else(wrong_output)?;
    Ok(Box::new(tail_run(profile, fix, seed, requests)?))
}

fn entries(outputs: Vec<RunOutput>) -> Result<Entries, ParamError> {
    let runs = outputs
        .into_iter()
        .map(|o| {
            o.downcast::<TailRun>()
                .map(|r| *r)
                .map_err(|_| wrong_output())
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(vec![TailSection::of(&runs)?.describe()])
}

fn example() -> Vec<Field> {
    let runs: Vec<TailRun> = TAIL_RUNS
        .iter()
        .map(|&(profile, fix)| tail_run(profile, fix, 1, 200).expect("a valid example"))
        .collect();
    TailSection::of(&runs).expect("seven runs").describe()
}

/// The Tail piece in the report. In the API it is the class `TailRun`, not a call.
pub const MODEL: Model = Model {
    key: "tail",
    title: "Tail, fan-out 100 (theory: F(t)^n on measured leaves)",
    note: "",
    call: None,
    api: None,
    closed_forms: &["crossover", "parentLevel"],
    result_type: <TailSection as Describe>::TYPE_NAME,
    result_doc: <TailSection as Describe>::DOC,
    streams: &[REQUEST_STREAM, CALIBRATION_STREAM],
    sweep: false,
    runs: TAIL_RUNS.len(),
    run,
    entries,
    example,
};
