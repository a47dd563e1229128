//! Hedging on loaded replicas as a registered model: its result described field by field, and
//! its part of the report (the standard sweep).

use super::{DELAY_CALIBRATION_STREAM, LoadedResult, STREAM, SWEEP_POINTS, sweep_point};
use crate::describe::{Describe, Field, Unit, Value, interval_fields};
use crate::error::ParamError;
use crate::model::{Model, RunOutput, each_described};

/// The names of the loaded policies: `"none"`, `"hedge"` and `"duplicate"`.
pub const POLICY_NAMES: [&str; 3] = ["none", "hedge", "duplicate"];

/// The names of the hedge delay's bases, the default first: `"loaded"`, `"idle"`.
pub const DELAY_BASIS_NAMES: [&str; 2] = ["loaded", "idle"];

/// Replicas a loaded run has unless told otherwise (the report's sweep too).
pub const DEFAULT_REPLICAS: u32 = 10;

/// The names of the cancellation rules, in [`super::Cancellation::ALL`] order.
pub const CANCELLATION_NAMES: [&str; 5] = ["backup", "either", "either-any", "queued", "never"];

impl Describe for LoadedResult {
    const TYPE_NAME: &'static str = "LoadedResult";
    const DOC: &'static str = "Hedging on loaded FIFO replicas: one (load, policy) point. \
        Latencies are ms, null when the run is unstable.";

    fn describe(&self) -> Vec<Field> {
        let ms = |key, doc, v: Option<f64>| Field::new(key, Unit::Ms, doc, Value::MaybeNumber(v));
        let latency =
            |f: fn(&crate::lab::hedge_idle::Percentiles) -> f64| self.latency.as_ref().map(f);
        vec![
            Field::new(
                "load",
                Unit::Fraction,
                "Offered utilisation, before any backup.",
                Value::Number(self.load),
            ),
            Field::new(
                "policy",
                Unit::None,
                "What the request sends besides its primary.",
                Value::Name {
                    value: self.policy.name(),
                    choices: &POLICY_NAMES,
                },
            ),
            Field::new(
                "cancellation",
                Unit::None,
                "What happens to the copy that did not answer first.",
                Value::Name {
                    value: self.cancellation.name(),
                    choices: &CANCELLATION_NAMES,
                },
            ),
            ms(
                "delay_ms",
                "The delay backups were sent after: 0 for duplicates, null without backups.",
                self.delay_ms,
            ),
            Field::flag(
                "stable",
                "False past the stability boundary: then there are no latencies.",
                self.stable,
            ),
            Field::flag(
                "at_capacity",
                "Stable but with the replicas busy 98% of the time or more: latencies grow \
                 with the run's length.",
                self.at_capacity(),
            ),
            ms("p50", "Median latency after warm-up.", latency(|p| p.p50)),
            ms("p95", "95th percentile of latency.", latency(|p| p.p95)),
            ms("p99", "99th percentile of latency.", latency(|p| p.p99)),
            ms("p999", "99.9th percentile of latency.", latency(|p| p.p999)),
            ms("mean", "Mean latency after warm-up.", self.mean_ms),
            Field::fraction(
                "extra_requests",
                "Share of requests that sent a backup.",
                self.extra_requests,
            ),
            Field::new(
                "backups_completed",
                Unit::Fraction,
                "Share of the backups sent that ran to the end of their service (answered \
                 first, or lost and were not stopped); null when none was sent.",
                Value::MaybeNumber(self.backups_completed),
            ),
            Field::fraction(
                "extra_work",
                "Backup service time over the primaries' full service time.",
                self.extra_work,
            ),
            Field::fraction(
                "capacity_cost",
                "Server time beyond the primaries' full service time, per unit of capacity.",
                self.capacity_cost,
            ),
            Field::fraction(
                "utilisation",
                "Server time consumed per unit of capacity while requests arrived: 0..1 while \
                 stable; past the boundary the backlog is served after the last arrival, so it \
                 passes 1 and reads as the work demanded per unit of capacity.",
                self.utilisation,
            ),
            Field::new(
                "unstable_reason",
                Unit::None,
                "Why the run has no latencies, in a sentence; null when stable.",
                Value::MaybeText(self.unstable.as_ref().map(|u| u.describe())),
            ),
        ]
        .into_iter()
        .chain(interval_fields(self.intervals, Unit::Ms))
        .collect()
    }
}

fn run(index: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    Ok(Box::new(sweep_point(index, requests.max(1000), seed)?))
}

/// Hedging on loaded replicas in the report and the API (`simulateLoaded`).
pub const MODEL: Model = Model {
    key: "loaded",
    title: "Hedging on 10 loaded FIFO replicas",
    note: "hedge after the p95 of no-backup latency at the same load; a backup is cancelled \
           when the primary answers, the primary always runs. Seed: the hedge costs ~3% at every \
           load (of work: backups mostly run to completion; of capacity, that times the load), \
           duplicating wins at 20% load and pushes the median up ~26x at 70%, where it reaches \
           the stability boundary: its median there grows with the run's length",
    call: Some("simulateLoaded"),
    api: Some(&super::CALL),
    closed_forms: &["noBackupMeanMs", "serviceMoments"],
    result_type: <LoadedResult as Describe>::TYPE_NAME,
    result_doc: <LoadedResult as Describe>::DOC,
    streams: &[STREAM, super::CALIBRATION_STREAM, DELAY_CALIBRATION_STREAM],
    sweep: true,
    runs: SWEEP_POINTS,
    run,
    entries: each_described::<LoadedResult>,
    example: || sweep_point(3, 1000, 1).expect("valid").describe(),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_lists_are_the_models_names() {
        let names: Vec<&str> = super::super::Cancellation::ALL
            .iter()
            .map(|c| c.name())
            .collect();
        assert_eq!(names, CANCELLATION_NAMES);
        for name in DELAY_BASIS_NAMES {
            assert_eq!(
                super::super::DelayBasis::from_name(name).unwrap().name(),
                name
            );
        }
        for name in POLICY_NAMES {
            let policy =
                super::super::LoadedPolicy::from_name(name, super::super::DelayBasis::Loaded);
            assert_eq!(policy.unwrap().name(), name);
        }
    }
}
