//! A budget run's outcome: one [`PolicyRun`] per policy in a [`BudgetResult`], described
//! field by field.

use super::BudgetPolicy;
use super::params::{DELAY_RULE_NAMES, DelayRule, MAX_IN_FLIGHT};
use crate::describe::{Describe, Field, Unit, Value};
use crate::lab::hedge_idle::Percentiles;
use crate::sampling::batch::Interval;

/// Why a policy's run has no latency numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unstable {
    /// More than [`MAX_IN_FLIGHT`] requests waited at once: no more arrived after `arrived`.
    Runaway {
        /// Requests that had arrived when arrivals stopped.
        arrived: u64,
    },
    /// Some latencies passed the shared histogram's top (about 17 minutes).
    OffScale,
}

impl Unstable {
    /// A sentence for a reader.
    pub fn describe(&self) -> String {
        match self {
            Unstable::Runaway { arrived } => format!(
                "more than {MAX_IN_FLIGHT} requests were waiting at once; arrivals stopped after \
                 {arrived}, and those were served to the end"
            ),
            Unstable::OffScale => {
                "some latencies passed the histogram's top (about 17 minutes)".into()
            }
        }
    }
}

/// One policy's run over the whole span and per window.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyRun {
    /// The policy.
    pub policy: BudgetPolicy,
    /// False when the run ran away ([`Unstable`]): then there are no latencies.
    pub stable: bool,
    /// Latency percentiles (ms) of requests that arrived after the first tenth of the span.
    pub latency: Option<Percentiles>,
    /// Their mean latency (ms).
    pub mean_ms: Option<f64>,
    /// The mean's 95% batch-means interval (ms), over 5 batches of consecutive answers.
    pub mean_interval: Option<Interval>,
    /// Requests that arrived.
    pub requests: u64,
    /// Backups sent over requests arrived.
    pub hedge_fraction: f64,
    /// Backups sent.
    pub backups: u64,
    /// Hedges that came due (the request still unanswered) and were not sent: refused by the
    /// budget or the disable rule.
    pub suppressed: u64,
    /// Share of the backups that found their replica busy (they queued); `None` without any.
    pub backups_queued: Option<f64>,
    /// Server time the backups consumed over the time the primaries consumed.
    pub extra_work: f64,
    /// Most requests in flight at once.
    pub peak_in_flight: u64,
    /// Why there are no latencies; `None` when stable.
    pub unstable: Option<Unstable>,
    /// Requests that arrived, per window.
    pub window_requests: Vec<f64>,
    /// Backups sent, per window.
    pub window_backups: Vec<f64>,
    /// Server time consumed (ms), per window: a copy's time counts in the window it leaves
    /// its server (finished or cancelled).
    pub window_work_ms: Vec<f64>,
    /// p99 latency (ms) of the requests that arrived in each window; NaN for a window without
    /// any (null in JSON); empty when unstable.
    pub window_p99_ms: Vec<f64>,
    /// Mean hedge delay (ms) set in each window; empty without backups.
    pub window_delay_ms: Vec<f64>,
    /// Mean tokens in the bucket at each arrival, per window; empty but for a finite budget.
    pub window_tokens: Vec<f64>,
}

/// The outcome of a budget run: its setting and each policy's run on the same arrivals.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetResult {
    /// Replicas.
    pub replicas: u32,
    /// Offered utilisation before backups.
    pub load: f64,
    /// The outage's slowdown of replica 0.
    pub slowdown: f64,
    /// Span of arrivals (ms).
    pub span_ms: f64,
    /// Outage start (ms).
    pub outage_start_ms: f64,
    /// Outage end (ms).
    pub outage_end_ms: f64,
    /// Width of a window (ms).
    pub window_ms: f64,
    /// The delay rule.
    pub delay_rule: DelayRule,
    /// The fixed delay, or the tracking delay's start (ms).
    pub delay_ms: f64,
    /// Bucket size; `None` unlimited.
    pub max_tokens: Option<u32>,
    /// Tokens per request, as used (thousandths).
    pub token_ratio: f64,
    /// The disable rule's depth threshold; `None` for ∞.
    pub disable_depth: Option<f64>,
    /// Whether the disable rule also reads utilisation.
    pub disable_utilisation: bool,
    /// The most backups the budget allows over the budgeted run's requests
    /// ([`super::theory::max_budgeted_hedges`]) over those requests; `None` unlimited.
    pub hedge_fraction_bound: Option<f64>,
    /// Pollaczek–Khinchine's mean (ms) without backups or outage; `None` at load ≥ 1.
    pub no_backup_mean_ms: Option<f64>,
    /// No backups.
    pub none: PolicyRun,
    /// The plain hedge.
    pub hedge: PolicyRun,
    /// The hedge under the token bucket.
    pub budgeted: PolicyRun,
    /// The hedge under the disable rule.
    pub disabled: PolicyRun,
}

impl BudgetResult {
    /// The four runs, in order none, hedge, budgeted, disabled.
    pub fn runs(&self) -> [&PolicyRun; 4] {
        [&self.none, &self.hedge, &self.budgeted, &self.disabled]
    }
}

impl PolicyRun {
    fn fields(&self) -> Vec<Field> {
        let ms = |key, doc, v: Option<f64>| Field::new(key, Unit::Ms, doc, Value::MaybeNumber(v));
        let l = |f: fn(&Percentiles) -> f64| self.latency.as_ref().map(f);
        let series =
            |key, unit, doc, v: &[f64]| Field::new(key, unit, doc, Value::Series(v.to_vec()));
        vec![
            Field::new(
                "policy",
                Unit::None,
                "The policy.",
                Value::Name {
                    value: self.policy.name(),
                    choices: &super::POLICY_NAMES,
                },
            ),
            Field::flag(
                "stable",
                "False when the run ran away: then there are no latencies.",
                self.stable,
            ),
            ms(
                "p50",
                "Median latency of requests after the first tenth of the span.",
                l(|p| p.p50),
            ),
            ms("p99", "99th percentile of latency.", l(|p| p.p99)),
            ms("p999", "99.9th percentile of latency.", l(|p| p.p999)),
            ms("mean", "Mean latency.", self.mean_ms),
            ms(
                "mean_low",
                "Lower end of the mean's 95% batch-means interval (5 batches).",
                self.mean_interval.map(|i| i.lo),
            ),
            ms(
                "mean_high",
                "Upper end of the mean's 95% interval.",
                self.mean_interval.map(|i| i.hi),
            ),
            Field::count("requests", "Requests that arrived.", self.requests),
            Field::fraction(
                "hedge_fraction",
                "Backups sent over requests arrived.",
                self.hedge_fraction,
            ),
            Field::count("backups", "Backups sent.", self.backups),
            Field::count(
                "suppressed",
                "Hedges that came due and were not sent (the budget or the disable rule said no).",
                self.suppressed,
            ),
            Field::new(
                "backups_queued",
                Unit::Fraction,
                "Share of the backups that found their replica busy; null when none was sent.",
                Value::MaybeNumber(self.backups_queued),
            ),
            Field::fraction(
                "extra_work",
                "Server time the backups consumed over the time the primaries consumed.",
                self.extra_work,
            ),
            Field::count(
                "peak_in_flight",
                "Most requests in flight at once.",
                self.peak_in_flight,
            ),
            Field::new(
                "unstable_reason",
                Unit::None,
                "Why the run has no latencies, in a sentence; null when stable.",
                Value::MaybeText(self.unstable.map(|u| u.describe())),
            ),
            series(
                "window_requests",
                Unit::Count,
                "Requests that arrived, per window.",
                &self.window_requests,
            ),
            series(
                "window_backups",
                Unit::Count,
                "Backups sent, per window.",
                &self.window_backups,
            ),
            series(
                "window_work_ms",
                Unit::Ms,
                "Server time consumed per window (ms), counted when a copy leaves its server.",
                &self.window_work_ms,
            ),
            series(
                "window_p99_ms",
                Unit::Ms,
                "p99 latency of the requests that arrived in each window; NaN (null in JSON) for \
                 a window without any; empty when the run is not stable.",
                &self.window_p99_ms,
            ),
            series(
                "window_delay_ms",
                Unit::Ms,
                "Mean hedge delay set in each window (the last one where none was set); empty \
                 without backups.",
                &self.window_delay_ms,
            ),
            series(
                "window_tokens",
                Unit::Count,
                "Mean tokens in the bucket at each arrival, per window; empty but for the \
                 budgeted hedge with a finite bucket.",
                &self.window_tokens,
            ),
        ]
    }
}

impl Describe for BudgetResult {
    const TYPE_NAME: &'static str = "BudgetResult";
    const DOC: &'static str = "Hedge budgets and a disable switch through a partial outage: \
        no backups, the plain hedge, the hedge under a token bucket and under a disable rule, \
        on the same arrivals, over the whole run and per window of simulated time.";

    fn describe(&self) -> Vec<Field> {
        let run = |key, doc, r: &PolicyRun| {
            Field::new(
                key,
                Unit::None,
                doc,
                Value::Record {
                    name: "BudgetPolicyRun",
                    fields: r.fields(),
                },
            )
        };
        vec![
            Field::count("replicas", "FIFO replicas.", u64::from(self.replicas)),
            Field::fraction("load", "Offered utilisation before backups.", self.load),
            Field::new(
                "slowdown",
                Unit::None,
                "How many times slower replica 0 serves in the outage.",
                Value::Number(self.slowdown),
            ),
            Field::ms(
                "span_ms",
                "Simulated time in which requests arrive.",
                self.span_ms,
            ),
            Field::ms(
                "outage_start_ms",
                "The outage's start.",
                self.outage_start_ms,
            ),
            Field::ms("outage_end_ms", "The outage's end.", self.outage_end_ms),
            Field::ms(
                "window_ms",
                "Width of a window of the series.",
                self.window_ms,
            ),
            Field::new(
                "delay_rule",
                Unit::None,
                "How the hedges choose their delay: fixed, or the p95 of the last 1000 answers.",
                Value::Name {
                    value: self.delay_rule.name(),
                    choices: &DELAY_RULE_NAMES,
                },
            ),
            Field::ms(
                "delay_ms",
                "The fixed delay, or where the tracking delay starts.",
                self.delay_ms,
            ),
            Field::new(
                "max_tokens",
                Unit::Count,
                "Tokens a full bucket holds; null when unlimited.",
                Value::MaybeNumber(self.max_tokens.map(f64::from)),
            ),
            Field::new(
                "token_ratio",
                Unit::None,
                "Tokens each request adds (thousandths).",
                Value::Number(self.token_ratio),
            ),
            Field::new(
                "disable_depth",
                Unit::Count,
                "No hedge when the backup's replica holds more copies than this; null: never.",
                Value::MaybeNumber(self.disable_depth),
            ),
            Field::flag(
                "disable_utilisation",
                "Also no hedge while the offered utilisation (1 + h)ρ over the last second (copies \
                 sent × mean service time ÷ capacity) is above one.",
                self.disable_utilisation,
            ),
            Field::new(
                "hedge_fraction_bound",
                Unit::Fraction,
                "The most backups the bucket allows over the budgeted run's requests, as a \
                 fraction: the ratio plus half a bucket; null when unlimited.",
                Value::MaybeNumber(self.hedge_fraction_bound),
            ),
            Field::new(
                "no_backup_mean_ms",
                Unit::Ms,
                "Pollaczek–Khinchine's M/G/1 mean without backups or outage; null at load ≥ 1.",
                Value::MaybeNumber(self.no_backup_mean_ms),
            ),
            run("none", "No backups.", &self.none),
            run("hedge", "The plain hedge.", &self.hedge),
            run(
                "budgeted",
                "The hedge under the token bucket.",
                &self.budgeted,
            ),
            run(
                "disabled",
                "The hedge under the disable rule.",
                &self.disabled,
            ),
        ]
    }
}
