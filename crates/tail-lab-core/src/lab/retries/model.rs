//! The retries model as a registered model: its result described field by field, and its
//! part of the report (the default spike under each client).

use super::params::{POLICY_NAMES, Policy, RetriesConfig, RetriesParams, RetriesResult};
use super::rules::{BACKOFF_NAMES, Budget, DEFAULT_BURST};
use super::{DEFAULT_BUDGET_RATIO, STREAM};
use crate::describe::{Describe, Field, Unit, Value};
use crate::error::ParamError;
use crate::model::{Model, RunOutput, each_described};

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl Describe for RetriesResult {
    const TYPE_NAME: &'static str = "RetriesResult";
    const DOC: &'static str = "Timeout-then-retry, hedging or neither on loaded FIFO replicas \
        through a load spike: whole-run counts and latencies, and series per window of \
        simulated time. Latencies are ms, null when the run hit the runaway cap.";

    fn describe(&self) -> Vec<Field> {
        let p = &self.params;
        let series =
            |key, unit, doc, v: &[f64]| Field::new(key, unit, doc, Value::Series(v.to_vec()));
        let ms = |key, doc, v: Option<f64>| Field::new(key, Unit::Ms, doc, Value::MaybeNumber(v));
        let budget_bound = p
            .budget
            .map(|b| 1.0 + b.max_duplicates(self.requests) as f64 / self.requests.max(1) as f64);
        vec![
            Field::new(
                "policy",
                Unit::None,
                "What a request sends besides its first attempt.",
                Value::Name {
                    value: p.policy.name(),
                    choices: &POLICY_NAMES,
                },
            ),
            Field::new(
                "backoff",
                Unit::None,
                "The wait before a retry.",
                Value::Name {
                    value: p.backoff.name(),
                    choices: &BACKOFF_NAMES,
                },
            ),
            Field::fraction(
                "load",
                "Offered utilisation outside the spike, first attempts only.",
                p.load,
            ),
            Field::new(
                "spike",
                Unit::None,
                "The arrival rate's multiplier during the spike (1: none).",
                Value::Number(p.spike.factor),
            ),
            ms(
                "spike_start_ms",
                "When the spike starts.",
                Some(p.spike.start_ms),
            ),
            ms("spike_end_ms", "When the spike ends.", Some(p.spike.end_ms)),
            ms(
                "timeout_ms",
                "The client's timeout (per attempt for a retry, per request otherwise); null: none.",
                finite(p.timeout_ms),
            ),
            Field::count(
                "max_attempts",
                "Attempts a retrying request may make, its first included.",
                u64::from(p.max_attempts),
            ),
            ms(
                "hedge_delay_ms",
                "A hedge's delay after arrival; null: no backups.",
                finite(p.hedge_delay_ms),
            ),
            Field::new(
                "budget",
                Unit::None,
                "Budget tokens deposited per request (a retry or backup spends one); null: no budget.",
                Value::MaybeNumber(p.budget.map(|b| b.ratio)),
            ),
            Field::new(
                "budget_burst",
                Unit::Count,
                "Tokens the budget holds at most and starts with; null: no budget.",
                Value::MaybeNumber(p.budget.map(|b| b.burst)),
            ),
            Field::new(
                "queue_limit",
                Unit::Count,
                "Attempts a replica holds queued before refusing more; null: no limit.",
                Value::MaybeNumber(p.queue_limit.map(f64::from)),
            ),
            Field::flag(
                "stable",
                "False when the run hit the runaway cap: then there are no latencies.",
                self.unstable.is_none(),
            ),
            Field::new(
                "unstable_reason",
                Unit::None,
                "Why the run has no latencies; null when it has.",
                Value::MaybeText(self.unstable.as_ref().map(|u| u.describe())),
            ),
            Field::count("requests", "Requests that arrived.", self.requests),
            Field::count(
                "attempts",
                "Attempts sent: first attempts, retries and backups.",
                self.attempts,
            ),
            Field::count("retries", "Retries sent.", self.retries),
            Field::count("backups", "Backups (hedges) sent.", self.backups),
            Field::count(
                "denied",
                "Retries or backups the budget refused.",
                self.denied,
            ),
            Field::count(
                "rejected",
                "Attempts a full replica queue refused at once.",
                self.rejected,
            ),
            Field::count(
                "successes",
                "Requests answered by an attempt the client still waited on.",
                self.successes,
            ),
            Field::count(
                "failures",
                "Requests that got no answer in time.",
                self.failures,
            ),
            Field::new(
                "amplification",
                Unit::None,
                "Attempts over requests (1: no extra attempt).",
                Value::Number(self.amplification()),
            ),
            Field::new(
                "budget_bound",
                Unit::None,
                "The most amplification the budget allows: 1 + ⌊burst + ratio × requests⌋ / requests; null: no budget.",
                Value::MaybeNumber(budget_bound),
            ),
            Field::fraction(
                "success_share",
                "Share of requests answered.",
                self.success_share(),
            ),
            Field::fraction(
                "wasted_work",
                "Share of server time spent on answers nobody used.",
                self.wasted_share(),
            ),
            ms(
                "p50",
                "Median latency of the answered requests that arrived after the warm-up.",
                self.p50_ms,
            ),
            ms("p99", "99th percentile of the same.", self.p99_ms),
            ms("mean", "Mean of the same.", self.mean_ms),
            Field::count(
                "peak_in_flight",
                "The most requests waiting at once.",
                self.peak_in_flight,
            ),
            Field::count(
                "peak_in_system",
                "The most attempts at the replicas at once (abandoned ones included).",
                self.peak_in_system,
            ),
            Field::count(
                "attempts_after_end",
                "Attempts sent after the last window, while the last requests resolved.",
                self.attempts_after_end,
            ),
            Field::new(
                "goodput_before",
                Unit::Count,
                "Mean goodput per window before the spike (the first window left out).",
                Value::Number(self.goodput_before()),
            ),
            Field::new(
                "goodput_end",
                Unit::Count,
                "Mean goodput per window over the last quarter of the windows.",
                Value::Number(self.goodput_end()),
            ),
            Field::new(
                "recovery",
                Unit::None,
                "goodput_end over goodput_before: near 1 recovered, near 0 still down.",
                Value::Number(self.recovery()),
            ),
            Field::ms("window_ms", "Width of a window.", self.window_ms),
            series(
                "window_requests",
                Unit::Count,
                "Per window: requests arrived.",
                &self.window_requests,
            ),
            series(
                "window_attempts",
                Unit::Count,
                "Per window: attempts sent.",
                &self.window_attempts,
            ),
            series(
                "window_goodput",
                Unit::Count,
                "Per window: requests answered (goodput).",
                &self.window_goodput,
            ),
            series(
                "window_failures",
                Unit::Count,
                "Per window: requests that failed.",
                &self.window_failures,
            ),
            series(
                "window_p99",
                Unit::Ms,
                "Per window: p99 latency of the requests answered in it; NaN (null in JSON) where none \
                 was (its goodput is 0).",
                &self.window_p99_ms,
            ),
            series(
                "window_in_system",
                Unit::Count,
                "Per window: time-average of attempts at the replicas (queued or in service).",
                &self.window_in_system,
            ),
        ]
    }
}

/// The report's runs: the default spike under retries, retries with a budget, a hedge with a
/// budget, and no extra attempts.
pub const REPORT_RUNS: usize = 4;

/// Report run `index`: its parameters at `seed`.
pub fn report_params(index: usize, seed: u64) -> RetriesParams {
    let budget = Some(Budget {
        ratio: DEFAULT_BUDGET_RATIO,
        burst: DEFAULT_BURST,
    });
    let d = RetriesParams {
        seed,
        ..RetriesParams::default()
    };
    match index {
        0 => d,
        1 => RetriesParams { budget, ..d },
        2 => RetriesParams {
            policy: Policy::Hedge,
            budget,
            ..d
        },
        _ => RetriesParams {
            policy: Policy::None,
            ..d
        },
    }
}

fn run(index: usize, seed: u64, _requests: u64) -> Result<RunOutput, ParamError> {
    Ok(Box::new(
        RetriesConfig::new(report_params(index, seed))?.run(),
    ))
}

/// Retries and a retry storm in the report and the API (`simulateRetries`).
pub const MODEL: Model = Model {
    key: "retries",
    title: "Retries against hedges, and a retry storm",
    note: "10 replicas at 40% load, 1 s timeout, 3 attempts, a 2.5x spike from 10 to 20 s of 60 s; \
           runs: retry, retry with a 10% budget, hedge after 20 ms with the budget, none. Seed 003: \
           retries under overload multiply load; a budget bounds them",
    call: Some("simulateRetries"),
    api: Some(&super::CALL),
    closed_forms: &["retriesTheory"],
    result_type: <RetriesResult as Describe>::TYPE_NAME,
    result_doc: <RetriesResult as Describe>::DOC,
    streams: &[STREAM],
    sweep: true,
    runs: REPORT_RUNS,
    run,
    entries: each_described::<RetriesResult>,
    example: || {
        let p = RetriesParams {
            duration_ms: 2_000.0,
            windows: 4,
            spike: super::Spike {
                factor: 1.0,
                start_ms: 0.0,
                end_ms: 0.0,
            },
            ..RetriesParams::default()
        };
        RetriesConfig::new(p).expect("valid").run().describe()
    },
};
