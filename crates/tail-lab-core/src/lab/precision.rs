//! Run lengths chosen by the precision they buy: the one table of targets and caps behind the
//! Lab's sweeps, and the plan that turns a pilot run into a point's length.
//!
//! A queue near saturation remembers its past for thousands of services, so a fixed number of
//! requests is too many at low load and too few near the boundary. A sweep's point instead runs
//! as long as its intervals need to reach a relative half-width ([`RunLength::mean`] of the
//! mean, [`RunLength::p99`] of the p99), between a floor and a cap, and reports what it reached.
//!
//! **Why a pilot, and why on its own seed.** Stopping a run when its own interval first looks
//! narrow enough picks the runs whose variance happened to read low, and their intervals then
//! cover less than they claim (with five batches, an estimate of the variance has four degrees of
//! freedom and is easily half the truth). So the length is chosen *before* the run, from a
//! short pilot on an independent seed ([`pilot_seed`]): the point's own run never influences how
//! long it is, and its interval keeps the coverage measured for runs of a fixed length. The pilot
//! is also what the page draws first, as the point's draft.
//!
//! Half-widths shrink as one over the square root of the run's length, so a pilot of `n`
//! requests whose mean reads ±`r` asks for `n·(r/t)²` to reach ±`t`; the plan takes the larger
//! of the mean's and the p99's needs, rounds it up to a thousand, and keeps it within the floor
//! and the cap ([`LimitedBy`] says which bound, if any, decided it). A pilot with no interval (an
//! unstable run, past its boundary: no length gives it one) plans the floor.

use crate::describe::{Field, Unit, Value};
use crate::sampling::address::mix64;
use crate::sampling::batch::RunIntervals;

/// A sweep's point length rule: the precision it aims for and the bounds on its length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunLength {
    /// The model's report key (`"queue"`, as in [`crate::model::MODELS`]).
    pub model: &'static str,
    /// The name of the call's length option (`"requests"`, or `"arrivals"` for the balance).
    pub size: &'static str,
    /// Target relative half-width of the mean's 95% interval (fraction, 0.03 = ±3%).
    pub mean: f64,
    /// Target relative half-width of the p99's 95% interval (fraction).
    pub p99: f64,
    /// Length of the pilot run (in the `size` option's unit), on [`pilot_seed`].
    pub pilot: u64,
    /// Shortest planned run.
    pub floor: u64,
    /// Longest planned run.
    pub cap: u64,
}

/// The Lab's run-length rules, one row per model whose sweep plans its points' lengths.
///
/// Chosen so that the default sweeps do no more work than their fixed lengths did
/// (BENCHMARKS.md, issue 33): the targets are what the budget buys at the middle loads, and the
/// caps are where the points near saturation stop, with the precision they reached shown.
pub const RUN_LENGTHS: &[RunLength] = &[QUEUE_RUN, BALANCE_RUN];

/// The queue's rule: ±5% of the mean, ±10% of the p99.
pub const QUEUE_RUN: RunLength = RunLength {
    model: "queue",
    size: "requests",
    mean: 0.05,
    p99: 0.10,
    pilot: 20_000,
    floor: 20_000,
    cap: 300_000,
};

/// The balance's rule: ±2% of the mean, ±4% of the p99.
pub const BALANCE_RUN: RunLength = RunLength {
    model: "balance",
    size: "arrivals",
    mean: 0.02,
    p99: 0.04,
    pilot: 50_000,
    floor: 100_000,
    cap: 2_000_000,
};

/// The run-length rule of the model with report key `model`, if its sweep plans lengths.
pub fn run_length(model: &str) -> Option<&'static RunLength> {
    RUN_LENGTHS.iter().find(|r| r.model == model)
}

/// The seed a pilot runs on: a mix of the point's seed, so that the pilot's draws are
/// independent of the run it plans (every draw is addressed by its seed), and the same on every
/// target.
pub fn pilot_seed(seed: u64) -> u64 {
    // The tag keeps the pilot's seed off the point's own (mix64 is a bijection, so no seed is
    // its own pilot's unless mix64(s ^ TAG) == s, a fixed point of a random-looking map).
    const PILOT_TAG: u64 = 0x7069_6C6F_745F_7275; // "pilot_ru"
    mix64(seed ^ PILOT_TAG)
}

/// The relative half-widths a run's 95% intervals reached: the larger distance from the
/// estimate to an end of its interval, over the estimate (fraction; `None` without an interval
/// or with an estimate of 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reached {
    /// Of the mean.
    pub mean: Option<f64>,
    /// Of the p99.
    pub p99: Option<f64>,
}

impl Reached {
    /// What a run with mean `mean`, p99 `p99` and `intervals` reached.
    pub fn of(mean: f64, p99: f64, intervals: Option<&RunIntervals>) -> Self {
        let relative = |estimate: f64, interval: Option<crate::sampling::batch::Interval>| {
            let i = interval?;
            let half = (estimate - i.lo).max(i.hi - estimate);
            (estimate > 0.0 && half.is_finite()).then(|| half / estimate)
        };
        Reached {
            mean: relative(mean, intervals.and_then(|i| i.mean)),
            p99: relative(p99, intervals.and_then(|i| i.p99)),
        }
    }
}

/// What decided a planned length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitedBy {
    /// The length the targets ask for, within the bounds.
    Target,
    /// The targets asked for less than the floor.
    Floor,
    /// The targets asked for more than the cap.
    Cap,
    /// The pilot had no interval to plan from (an unstable run: no length buys it one): the
    /// floor.
    NoInterval,
}

impl LimitedBy {
    /// Its name in the API and the report (`"target"`, `"floor"`, `"cap"`, `"no-interval"`).
    pub const fn name(self) -> &'static str {
        match self {
            LimitedBy::Target => "target",
            LimitedBy::Floor => "floor",
            LimitedBy::Cap => "cap",
            LimitedBy::NoInterval => "no-interval",
        }
    }
}

/// A point's planned length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunPlan {
    /// The run's length, in the rule's `size` unit.
    pub length: u64,
    /// What decided it.
    pub limited_by: LimitedBy,
}

impl RunLength {
    /// The length to run, from a pilot of `pilot_length` that reached `pilot` (see the module's
    /// doc): the larger of the mean's and the p99's needs at their targets, rounded up to a
    /// thousand, within `floor..=cap`.
    pub fn plan(&self, pilot_length: u64, pilot: &Reached) -> RunPlan {
        let (Some(mean), Some(p99)) = (pilot.mean, pilot.p99) else {
            return RunPlan {
                length: self.floor,
                limited_by: LimitedBy::NoInterval,
            };
        };
        let need = |reached: f64, target: f64| {
            let ratio = reached / target;
            pilot_length as f64 * ratio * ratio
        };
        let wanted = need(mean, self.mean).max(need(p99, self.p99));
        let rounded = (wanted / 1000.0).ceil() * 1000.0;
        // A non-finite need (an infinite half-width) is past the cap too.
        if rounded.is_nan() || rounded > self.cap as f64 {
            RunPlan {
                length: self.cap,
                limited_by: LimitedBy::Cap,
            }
        } else if rounded < self.floor as f64 {
            RunPlan {
                length: self.floor,
                limited_by: LimitedBy::Floor,
            }
        } else {
            RunPlan {
                length: rounded as u64,
                limited_by: LimitedBy::Target,
            }
        }
    }

    /// Whether `reached` meets both targets.
    pub fn met(&self, reached: &Reached) -> bool {
        reached.mean.is_some_and(|m| m <= self.mean) && reached.p99.is_some_and(|p| p <= self.p99)
    }
}

/// How a run's length was chosen, as its result reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Planned {
    /// The rule it was planned by.
    pub rule: &'static RunLength,
    /// Its length and what decided it; `None` for the pilot itself.
    pub plan: Option<RunPlan>,
}

/// The batches a pilot's intervals are read over: ten (nine degrees of freedom) rather than the
/// run's five (four), for a steadier plan, and not twenty, whose batches are short enough in a
/// pilot near saturation to be correlated and read the variance low. Measured on the queue and
/// loaded models (issue 33): twenty batches planned runs near saturation a third as long as
/// they needed.
pub const PILOT_BATCHES: usize = 10;

/// How long a run is: the length its config was given, the pilot of a planned run, or planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthChoice {
    /// The length the caller gave.
    Fixed,
    /// The pilot a planned run plans from: the rule's pilot length on [`pilot_seed`]. The page
    /// draws it as the point's draft.
    Pilot,
    /// As long as the rule's targets need, planned from the pilot ([`RunLength::plan`]).
    Planned,
}

impl LengthChoice {
    /// The choice a length option names: `"auto"` plans, `"pilot"` is the pilot.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(LengthChoice::Planned),
            "pilot" => Some(LengthChoice::Pilot),
            _ => None,
        }
    }
}

/// Runs a model for the length `choice` says, under `rule`: `run(seed, length)` runs it
/// (`seed` and `length` the caller's own for [`LengthChoice::Fixed`]), `reached` reads what a
/// result's intervals reached, and `mark` records in the result how its length was chosen. A
/// planned run reads its pilot over [`PILOT_BATCHES`] batches (the pilot is never shown with
/// them), and its own run never influences its length (the module's doc says why).
pub fn run_by_choice<T>(
    rule: &'static RunLength,
    choice: LengthChoice,
    (seed, length): (u64, u64),
    mut run: impl FnMut(u64, u64) -> T,
    reached: impl Fn(&T) -> Reached,
    mark: impl FnOnce(&mut T, Planned),
) -> T {
    match choice {
        LengthChoice::Fixed => run(seed, length),
        LengthChoice::Pilot => {
            let mut pilot = run(pilot_seed(seed), rule.pilot);
            mark(&mut pilot, Planned { rule, plan: None });
            pilot
        }
        LengthChoice::Planned => {
            use crate::sampling::batch::{INTERVAL_BATCHES, t_975, with_interval_batches};
            let pilot = with_interval_batches(PILOT_BATCHES, || run(pilot_seed(seed), rule.pilot))
                .expect("the pilot's batch count is one intervals are taken over");
            // What the pilot's standard errors predict for intervals over the run's own batch
            // count (a wider t): the half-width the plan aims at is the one the page shows.
            let widen = t_975(INTERVAL_BATCHES).zip(t_975(PILOT_BATCHES));
            let widen = widen.map_or(1.0, |(run, pilot)| run / pilot);
            let read = reached(&pilot);
            let scaled = Reached {
                mean: read.mean.map(|m| m * widen),
                p99: read.p99.map(|p| p * widen),
            };
            let plan = rule.plan(rule.pilot, &scaled);
            let mut result = run(seed, plan.length);
            mark(
                &mut result,
                Planned {
                    rule,
                    plan: Some(plan),
                },
            );
            result
        }
    }
}

/// The `precision` record of a result: what its intervals reached, and how its length was
/// chosen (`planned`: `None` for a caller's fixed length).
pub fn precision_field(reached: Reached, planned: Option<&Planned>) -> Field {
    let rule = planned.map(|p| p.rule);
    let how = match planned {
        None => "fixed",
        Some(Planned { plan: None, .. }) => "pilot",
        Some(Planned { plan: Some(p), .. }) => p.limited_by.name(),
    };
    let relative = |key, doc, v| Field::new(key, Unit::Fraction, doc, Value::MaybeNumber(v));
    Field::new(
        "precision",
        Unit::None,
        "What the run's 95% intervals reached, as a fraction of their estimate, and how its \
         length was chosen (issue 33's run lengths).",
        Value::Record {
            name: "RunPrecision",
            fields: vec![
                relative(
                    "mean",
                    "The mean interval's half-width (its wider side) over the mean; null \
                     without an interval.",
                    reached.mean,
                ),
                relative("p99", "The p99's, likewise.", reached.p99),
                relative(
                    "target_mean",
                    "The half-width the run was planned for, for the mean; null for a caller's \
                     fixed length.",
                    rule.map(|r| r.mean),
                ),
                relative("target_p99", "Likewise for the p99.", rule.map(|r| r.p99)),
                Field::new(
                    "length",
                    Unit::None,
                    "The run's length in its length option's unit (requests, arrivals) when it \
                     was planned or is the pilot; null for a caller's fixed length.",
                    Value::MaybeNumber(
                        planned.map(|p| p.plan.map_or(p.rule.pilot, |plan| plan.length) as f64),
                    ),
                ),
                Field::flag(
                    "met",
                    "Whether both half-widths are within their targets. A plan aims at them \
                     from a pilot's estimate of the noise, so a planned run can fall short \
                     (false for a caller's fixed length).",
                    rule.is_some_and(|r| r.met(&reached)),
                ),
                Field::new(
                    "length_by",
                    Unit::None,
                    "What chose the run's length: the caller (fixed), the pilot run itself \
                     (pilot), or a plan decided by its targets (target), its floor, its cap, or \
                     the floor for a pilot without an interval, an unstable run (no-interval).",
                    Value::Name {
                        value: how,
                        choices: &["fixed", "pilot", "target", "floor", "cap", "no-interval"],
                    },
                ),
            ],
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::batch::Interval;

    const RULE: RunLength = RunLength {
        model: "queue",
        size: "requests",
        mean: 0.02,
        p99: 0.05,
        pilot: 10_000,
        floor: 10_000,
        cap: 1_000_000,
    };

    fn reached(mean: f64, p99: f64) -> Reached {
        Reached {
            mean: Some(mean),
            p99: Some(p99),
        }
    }

    #[test]
    fn a_plan_scales_with_the_square_of_the_precision_wanted() {
        // ±4% of the mean at 10,000 wants four times the length for ±2%; the p99 at ±5% already.
        let plan = RULE.plan(10_000, &reached(0.04, 0.05));
        assert_eq!(
            plan,
            RunPlan {
                length: 40_000,
                limited_by: LimitedBy::Target
            }
        );
        // The p99 decides when it is the further from its target: (0.15/0.05)² = 9.
        let plan = RULE.plan(10_000, &reached(0.02, 0.15));
        assert_eq!(
            plan,
            RunPlan {
                length: 90_000,
                limited_by: LimitedBy::Target
            }
        );
        // Rounded up to a thousand.
        assert_eq!(RULE.plan(10_000, &reached(0.0201, 0.01)).length, 11_000);
    }

    #[test]
    fn a_plan_stays_within_its_bounds_and_says_which_decided() {
        let floor = RULE.plan(10_000, &reached(0.001, 0.001));
        assert_eq!(
            floor,
            RunPlan {
                length: 10_000,
                limited_by: LimitedBy::Floor
            }
        );
        let cap = RULE.plan(10_000, &reached(1.0, 1.0));
        assert_eq!(
            cap,
            RunPlan {
                length: 1_000_000,
                limited_by: LimitedBy::Cap
            }
        );
        let none = RULE.plan(
            10_000,
            &Reached {
                mean: Some(0.01),
                p99: None,
            },
        );
        assert_eq!(
            none,
            RunPlan {
                length: 10_000,
                limited_by: LimitedBy::NoInterval
            }
        );
        // A non-finite need (an infinite half-width) is the cap, never a wrapped length.
        let inf = RULE.plan(10_000, &reached(f64::INFINITY, 0.01));
        assert_eq!(inf.limited_by, LimitedBy::Cap);
    }

    #[test]
    fn reached_is_the_wider_side_over_the_estimate() {
        let intervals = RunIntervals {
            mean: Some(Interval { lo: 9.0, hi: 10.5 }),
            p50: None,
            p99: Some(Interval { lo: 45.0, hi: 60.0 }),
        };
        let r = Reached::of(10.0, 50.0, Some(&intervals));
        assert!((r.mean.unwrap() - 0.1).abs() < 1e-12);
        assert!((r.p99.unwrap() - 0.2).abs() < 1e-12);
        assert_eq!(
            Reached::of(10.0, 50.0, None),
            Reached {
                mean: None,
                p99: None
            }
        );
        assert!(RULE.met(&reached(0.02, 0.05)) && !RULE.met(&reached(0.021, 0.05)));
    }

    #[test]
    fn the_pilot_seed_is_another_seed() {
        for seed in [0, 1, 2, u64::MAX] {
            assert_ne!(pilot_seed(seed), seed);
        }
        assert_ne!(pilot_seed(1), pilot_seed(2));
    }

    #[test]
    fn every_row_names_a_registered_model_and_sane_bounds() {
        for rule in RUN_LENGTHS {
            assert!(crate::model::find(rule.model).is_some(), "{}", rule.model);
            assert!(
                rule.floor <= rule.cap && rule.pilot <= rule.cap,
                "{}",
                rule.model
            );
            assert!(rule.mean > 0.0 && rule.p99 > 0.0);
        }
    }
}
