//! Tied requests as a registered model: the result described field by field, the references
//! beside it (the loaded model's policies in the same shape), and its report runs.

use super::config::{MAX_IN_FLIGHT_COPIES, STREAM, TiedConfig, TiedParams, TiedPolicy, TiedResult};
use crate::describe::{Describe, Field, Unit, Value, interval_fields};
use crate::error::ParamError;
use crate::lab::loaded::{
    Cancellation, DelayBasis, LoadedConfig, LoadedParams, LoadedPolicy, LoadedService, Unstable,
    exponential,
};
use crate::model::{Model, RunOutput, each_described};

/// The names of the policies a result can be: `"none"`, `"hedge"`, `"duplicate"`,
/// `"duplicate-either-any"`, `"tied"`.
pub const POLICY_NAMES: [&str; 5] = ["none", "hedge", "duplicate", "duplicate-either-any", "tied"];

/// The loads of the report's tied runs (10 replicas, tie 2, message delay 1 ms, the Lab's
/// service); a fourth run is the M/M/c check (tied to all 10 at delay 0, exponential service
/// of mean 10 ms, load 0.7).
pub const REPORT_LOADS: [f64; 3] = [0.3, 0.5, 0.7];

/// Requests of each report run, at most (the report's own count when smaller, at least 1,000).
pub const REPORT_REQUESTS: u64 = 50_000;

/// The configuration of report run `index` (0..4) under `seed` with `requests` (see
/// [`REPORT_LOADS`]).
pub fn report_config(index: usize, seed: u64, requests: u64) -> Result<TiedConfig, ParamError> {
    let requests = requests.clamp(1000, REPORT_REQUESTS);
    let (tie, load, delay, service) = match index {
        0..=2 => (2, REPORT_LOADS[index], 1.0, None),
        _ => (10, 0.7, 0.0, Some(exponential(10.0)?)),
    };
    let config = TiedConfig::new(TiedParams {
        replicas: 10,
        tie,
        load,
        message_delay_ms: delay,
        requests,
        seed,
    })?;
    Ok(match service {
        Some(s) => config.with_service(s),
        None => config,
    })
}

/// A reference run beside the tied one: the loaded model ([`crate::lab::loaded`]) with
/// `policy` (none; hedge after the p95 of no-backup latency at the same load; duplicate, its
/// backup cancelled when the primary answers; duplicate-either-any, the second copy to answer
/// cancelled at once wherever it is) at `replicas` ([`crate::lab::loaded::REPLICAS`]),
/// `load`, `service`, `requests` and `seed`, on the loaded model's stream, in the tied result's
/// shape: its extra work is the loaded model's `capacity_cost / load`, its tie-only fields
/// `None`. `TiedPolicy::Tied` is refused (param `policy`): that is [`TiedConfig::run`].
pub fn reference(
    policy: TiedPolicy,
    replicas: u32,
    load: f64,
    service: LoadedService,
    requests: u64,
    seed: u64,
) -> Result<TiedResult, ParamError> {
    let (loaded_policy, cancellation) = match policy {
        TiedPolicy::None => (LoadedPolicy::None, Cancellation::Backup),
        TiedPolicy::Hedge => (
            LoadedPolicy::from_name("hedge", DelayBasis::Loaded)?,
            Cancellation::Backup,
        ),
        TiedPolicy::Duplicate => (LoadedPolicy::Duplicate, Cancellation::Backup),
        TiedPolicy::DuplicateEitherAny => (LoadedPolicy::Duplicate, Cancellation::EitherAny),
        TiedPolicy::Tied => {
            return Err(ParamError::UnknownName {
                param: "policy",
                got: "tied".into(),
                expected: "a reference: \"none\", \"hedge\", \"duplicate\", \
                           \"duplicate-either-any\"",
            });
        }
    };
    let r = LoadedConfig::new(LoadedParams {
        replicas,
        load,
        policy: loaded_policy,
        requests,
        seed,
    })?
    .with_service(service.clone())
    .with_cancellation(cancellation)
    .run();
    Ok(TiedResult {
        load,
        policy,
        replicas,
        requests,
        exponential_mean_ms: super::engine::exponential_mean(&service),
        tie: None,
        message_delay_ms: None,
        stagger_ms: None,
        stable: r.stable,
        latency: r.latency,
        mean_ms: r.mean_ms,
        intervals: r.intervals,
        extra_work: r.capacity_cost / load,
        wasted_over_answering: None,
        late_cancellations: None,
        aborted: None,
        copies_started: None,
        utilisation: r.utilisation,
        peak_in_flight: r.peak_in_flight,
        unstable: r.unstable,
    })
}

/// Why a run is unstable, in a sentence (the tied cap counts copies, not requests).
fn unstable_reason(r: &TiedResult) -> Option<String> {
    match (r.unstable, r.tie) {
        (Some(Unstable::Runaway { arrived }), Some(tie)) => Some(format!(
            "more than {} requests ({MAX_IN_FLIGHT_COPIES} copies) were waiting at once; \
             arrivals stopped after {arrived} requests, so the backlog was growing without bound",
            MAX_IN_FLIGHT_COPIES / tie as usize
        )),
        (Some(Unstable::Overloaded), Some(tie)) if r.message_delay_ms.is_none() && r.load < 1.0 => {
            Some(format!(
                "the cancellations never land, so every one of the {tie} copies runs and the \
                 replicas carry {tie} × the load, at or above their capacity"
            ))
        }
        (u, _) => u.map(|u| u.describe()),
    }
}

impl Describe for TiedResult {
    const TYPE_NAME: &'static str = "TiedResult";
    const DOC: &'static str = "Tied requests on loaded FIFO replicas, or a reference policy beside \
        them: one (load, policy) point. Latencies are ms, null when the run is unstable.";

    fn describe(&self) -> Vec<Field> {
        let ms = |key, doc, v: Option<f64>| Field::new(key, Unit::Ms, doc, Value::MaybeNumber(v));
        let maybe =
            |key, unit, doc, v: Option<f64>| Field::new(key, unit, doc, Value::MaybeNumber(v));
        let latency =
            |f: fn(&crate::lab::hedge_idle::Percentiles) -> f64| self.latency.as_ref().map(f);
        vec![
            Field::new(
                "load",
                Unit::Fraction,
                "Offered utilisation, before duplicates.",
                Value::Number(self.load),
            ),
            Field::new(
                "policy",
                Unit::None,
                "tied (this model), or a reference run by the loaded model: none, hedge (after \
                 the p95 of no-backup latency at the same load), duplicate (backup cancelled when \
                 the primary answers, the primary never), duplicate-either-any (whichever copy \
                 answers second cancelled at once, queued or mid-service).",
                Value::Name {
                    value: self.policy.name(),
                    choices: &POLICY_NAMES,
                },
            ),
            Field::count("replicas", "FIFO replicas.", u64::from(self.replicas)),
            Field::count("requests", "Requests simulated.", self.requests),
            maybe(
                "exponential_mean_ms",
                Unit::Ms,
                "The mean of the exponential service the run used (the M/M/c check); null for \
                 the Lab's model or your own.",
                self.exponential_mean_ms,
            ),
            maybe(
                "tie",
                Unit::Count,
                "Replicas each request was enqueued at; null for a reference.",
                self.tie.map(f64::from),
            ),
            ms(
                "message_delay_ms",
                "How long a cancellation took to land; null when it never lands (Infinity) or \
                 for a reference.",
                self.message_delay_ms,
            ),
            ms(
                "stagger_ms",
                "How long after the first copy its siblings were sent (Dean and Barroso's \
                 stagger); null for a reference.",
                self.stagger_ms,
            ),
            Field::flag(
                "stable",
                "False past the stability boundary: then there are no latencies.",
                self.stable,
            ),
            Field::flag(
                "at_capacity",
                "Stable but with the replicas busy 98% of the time or more (past 100%: the \
                 backlog was still being served after the last arrival): latencies grow with \
                 the run's length.",
                self.at_capacity(),
            ),
            ms("p50", "Median latency after warm-up.", latency(|p| p.p50)),
            ms("p95", "95th percentile of latency.", latency(|p| p.p95)),
            ms("p99", "99th percentile of latency.", latency(|p| p.p99)),
            ms("p999", "99.9th percentile of latency.", latency(|p| p.p999)),
            ms("mean", "Mean latency after warm-up.", self.mean_ms),
            Field::fraction(
                "extra_work",
                "Server time beyond the requests' own service (a tied request's first copy's \
                 full service, a reference's primary's), over that service: the same measure \
                 as the loaded model's capacity cost over load, in every section.",
                self.extra_work,
            ),
            maybe(
                "wasted_over_answering",
                Unit::Fraction,
                "Tied: server time on copies that did not answer over the answering copies' \
                 service (a share of the work that answered, higher than extra_work when the \
                 answering copies are the short ones); null for a reference.",
                self.wasted_over_answering,
            ),
            maybe(
                "late_cancellations",
                Unit::Fraction,
                "Share of the cancellations sent that came too late: their copy had started \
                 (and was aborted) or finished. Null for a reference or when none is sent.",
                self.late_cancellations,
            ),
            maybe(
                "aborted",
                Unit::Fraction,
                "Share of the cancellations sent that aborted a copy in service.",
                self.aborted,
            ),
            maybe(
                "copies_started",
                Unit::None,
                "Copies that started service per request (1: no work was duplicated); null \
                 for a reference.",
                self.copies_started,
            ),
            Field::fraction(
                "utilisation",
                "Server time consumed per unit of capacity while requests arrived (past the \
                 boundary it passes 1).",
                self.utilisation,
            ),
            Field::count(
                "peak_in_flight",
                "The most requests in flight at once: the run's memory follows it.",
                self.peak_in_flight,
            ),
            Field::new(
                "unstable_reason",
                Unit::None,
                "Why the run has no latencies, in a sentence; null when stable.",
                Value::MaybeText(unstable_reason(self)),
            ),
        ]
        .into_iter()
        .chain(interval_fields(self.intervals, Unit::Ms))
        .collect()
    }
}

fn run(index: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    Ok(Box::new(report_config(index, seed, requests)?.run()))
}

/// Tied requests in the report and the API (`simulateTied`).
pub const MODEL: Model = Model {
    key: "tied",
    title: "Tied requests on 10 loaded FIFO replicas",
    note: "each request queued at 2 replicas; the copy that starts first cancels the other, the \
           message landing 1 ms later (seed 003, Dean and Barroso). The last entry is the check: \
           tied to all 10 with no delay on exponential service is one M/M/10 queue",
    call: Some("simulateTied"),
    api: Some(&super::CALL),
    closed_forms: &["tiedTheory"],
    result_type: <TiedResult as Describe>::TYPE_NAME,
    result_doc: <TiedResult as Describe>::DOC,
    streams: &[STREAM],
    sweep: true,
    runs: 4,
    run,
    entries: each_described::<TiedResult>,
    example: || report_config(0, 1, 1000).expect("valid").run().describe(),
};
