//! The balancer model as a registered model: a run described field by field, and its part of
//! the report (every signal at two loads).

use super::params::{
    ARRIVALS, BalancerParams, CHOICES, CLIENTS, LAMBDA, SERVERS, SIGNAL_NAMES, SIGNALS_EXPECTED,
    SLOW_FACTOR, SPARE_STREAM, STALENESS, STREAM, Signal, TAU,
};
use super::{BalancerResult, simulate};
use crate::api::{Call, Kind, OptionSpec, OptionValues, Prepared, SEED_OPTION, Work};
use crate::describe::{Describe, Field, Unit, Value, interval_fields};
use crate::error::ParamError;
use crate::model::{Model, RunOutput, each_described};

impl Describe for BalancerResult {
    const TYPE_NAME: &'static str = "BalancerSignalsResult";
    const DOC: &'static str = "The power of d choices on the signal a balancer reads (fresh or \
        stale queue lengths, in-flight counts, peak-EWMA latency, round robin, random), with one \
        server k times slower: sojourn times in mean service times, beside the closed forms of \
        the checks.";

    fn describe(&self) -> Vec<Field> {
        let p = &self.params;
        let st = |key, doc, v: f64| Field::new(key, Unit::ServiceTimes, doc, Value::Number(v));
        let mut fields = vec![
            Field::new(
                "signal",
                Unit::None,
                "What the balancer reads to pick among its samples.",
                Value::Name {
                    value: p.signal.name(),
                    choices: &SIGNAL_NAMES,
                },
            ),
            Field::new(
                "lambda",
                Unit::Rate,
                "Arrival rate per server.",
                Value::Number(p.lambda),
            ),
            Field::count(
                "servers",
                "Servers; server 0 is the slow one.",
                u64::from(p.servers),
            ),
            Field::count("d", "Servers sampled per arrival.", u64::from(p.d)),
            st(
                "staleness",
                "The stale signal's refresh period (read by `stale` only; 0 is fresh).",
                p.staleness,
            ),
            Field::count(
                "clients",
                "Balancers the arrivals are split among, each seeing only its own answers.",
                u64::from(p.clients),
            ),
            Field::new(
                "slow_factor",
                Unit::None,
                "How many times slower server 0 serves (1: identical servers).",
                Value::Number(p.slow_factor),
            ),
            st(
                "tau",
                "The peak-EWMA's decay time (read by `ewma` only).",
                p.tau,
            ),
            Field::count(
                "arrivals",
                "Arrivals simulated; the first tenth are warm-up.",
                p.arrivals,
            ),
            Field::count("measured", "Jobs measured.", self.measured),
            st("mean", "Mean sojourn time (arrival to answer).", self.mean),
            st("p50", "Median sojourn time.", self.p50),
            st("p99", "99th percentile of sojourn time.", self.p99),
            Field::fraction(
                "slow_share",
                "Share of the measured arrivals sent to the slow server (server 0).",
                self.slow_share,
            ),
            Field::new(
                "slow_load",
                Unit::Rate,
                "The load that share offers the slow server (share × λ × servers × k), over the \
                 whole measured window: above 1 it may be a start-up backlog being built, not \
                 growth; `unbounded` says whether the queues grew all run.",
                Value::Number(self.slow_load),
            ),
            Field::flag(
                "unbounded",
                "Whether the queues grew for the whole run: the servers together cannot keep up \
                 (λ·servers ≥ servers − 1 + 1/k), or the slow server's share of arrivals ignored \
                 its queue (random, round robin, d = 1, or a stale view never refreshed) and \
                 offered it λ·k ≥ 1, or over the second half of the run it was sent more than it \
                 serves by over 4.6 batch-means standard errors. Then the mean grows with the \
                 run's length and p50 and p99 estimate nothing.",
                self.unbounded,
            ),
            Field::new(
                "relaxation_times",
                Unit::None,
                "How many of its slowest queue's relaxation times the run lasted (an M/M/1 \
                 queue at load ρ and mean service m forgets its start over m/(1 − √ρ)²; the \
                 slow server at the load it was offered); null when a queue was offered a load \
                 of 1 or more.",
                Value::MaybeNumber(self.relaxation_times),
            ),
            Field::flag(
                "settled",
                "Whether the run lasted five relaxation times. If not, it still carries its \
                 start from empty (its mean reads low), and its intervals are null.",
                self.settled,
            ),
            Field::new(
                "random_theory",
                Unit::ServiceTimes,
                "Random assignment's closed-form mean at these servers, λ and k (every server \
                 M/M/1); null when λ·k ≥ 1.",
                Value::MaybeNumber(self.random_theory),
            ),
            Field::new(
                "random_theory_p99",
                Unit::ServiceTimes,
                "Random assignment's closed-form p99 (a mixture of the servers' exponential \
                 sojourn times); null when λ·k ≥ 1.",
                Value::MaybeNumber(self.random_theory_p99),
            ),
            Field::new(
                "fixed_point",
                Unit::ServiceTimes,
                "The supermarket fixed point at λ and d: fresh best-of-d on identical servers \
                 as servers → ∞.",
                Value::MaybeNumber(self.fixed_point),
            ),
            Field::new(
                "fixed_point_p99",
                Unit::ServiceTimes,
                "The p99 sojourn time at the supermarket fixed point.",
                Value::MaybeNumber(self.fixed_point_p99),
            ),
        ];
        fields.extend(interval_fields(Some(self.intervals), Unit::ServiceTimes));
        fields
    }
}

/// The report's loads.
pub const REPORT_LAMBDAS: [f64; 2] = [0.5, 0.9];
/// The slow server's factor in the report's last runs (at the highest load).
pub const REPORT_SLOW_FACTOR: f64 = 5.0;
/// Report runs use at most this many arrivals each.
pub const REPORT_REQUESTS: u64 = 20_000;
/// The report's runs: every signal at each of [`REPORT_LAMBDAS`] on identical servers, then
/// every signal with one server [`REPORT_SLOW_FACTOR`] times slower at the highest load.
pub const REPORT_RUNS: usize = (REPORT_LAMBDAS.len() + 1) * Signal::ALL.len();
const _: () = assert!(REPORT_RUNS == 18, "report_point's index range says 0..=17");

/// Report run `index` (< [`REPORT_RUNS`]): λ-major over [`REPORT_LAMBDAS`], then every signal
/// in [`SIGNAL_NAMES`]' order, on identical servers; then every signal again at the highest
/// load with a server [`REPORT_SLOW_FACTOR`] times slower. The defaults otherwise, with
/// `arrivals` arrivals.
pub fn report_point(index: usize, arrivals: u64, seed: u64) -> Result<BalancerResult, ParamError> {
    crate::count_range!(0, 17, " (a report run)").check("index", index as u64)?;
    let block = index / Signal::ALL.len();
    let slow = block == REPORT_LAMBDAS.len();
    simulate(&BalancerParams {
        lambda: REPORT_LAMBDAS[block.min(REPORT_LAMBDAS.len() - 1)],
        signal: Signal::ALL[index % Signal::ALL.len()],
        slow_factor: if slow { REPORT_SLOW_FACTOR } else { 1.0 },
        arrivals,
        seed,
        ..BalancerParams::default()
    })
}

/// The arrivals of report run `index` given the report's `requests`: the report's count clamped
/// to 1,000..=[`REPORT_REQUESTS`], raised to what its load needs to settle
/// ([`super::theory::settling_arrivals`] on identical servers; 200,000 at λ = 0.9), at most the
/// model's 10⁶.
pub fn report_arrivals(index: usize, requests: u64) -> u64 {
    let block = (index / Signal::ALL.len()).min(REPORT_LAMBDAS.len() - 1);
    let settle =
        super::theory::settling_arrivals(REPORT_LAMBDAS[block], BalancerParams::default().servers)
            .unwrap_or(0);
    requests
        .clamp(1000, REPORT_REQUESTS)
        .max(settle)
        .min(super::params::ARRIVALS.hi)
}

fn run(index: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    Ok(Box::new(report_point(
        index,
        report_arrivals(index, requests),
        seed,
    )?))
}

/// Balancer signals, in the report and the API (`simulateBalancerSignals`).
pub const MODEL: Model = Model {
    key: "balancer_signals",
    title: "Balancer signals: best of 2 of 100 servers on what the balancer can see",
    note: "fresh and stale (refreshed every 50 service times) queue lengths, in-flight counts, \
           peak-EWMA (τ = 10), round robin and random, at λ = 0.5 and 0.9 on identical servers, \
           then at λ = 0.9 with one server 5× slower (20,000 arrivals a run at most, more where a load \
           needs them to settle: five of random assignment's relaxation times, about 171,000 at \
           λ = 0.9; intervals only for a run of seventeen, so none at λ = 0.9)",
    call: Some("simulateBalancerSignals"),
    api: Some(&CALL),
    closed_forms: &[],
    result_type: <BalancerResult as Describe>::TYPE_NAME,
    result_doc: <BalancerResult as Describe>::DOC,
    streams: &[STREAM, SPARE_STREAM],
    sweep: true,
    runs: REPORT_RUNS,
    run,
    entries: each_described::<BalancerResult>,
    example: || {
        simulate(&BalancerParams {
            arrivals: 1000,
            ..BalancerParams::default()
        })
        .expect("valid")
        .describe()
    },
};

/// `simulateBalancerSignals`: one signal at one load.
pub const CALL: Call = Call {
    name: "simulateBalancerSignals",
    doc: "One signal at one load: sojourn times, the slow server's share, and the checks' \
          closed forms (the report's `balancer_signals` entries are such runs).",
    options_type: "BalancerSignalsOptions",
    options_doc: "Options of `simulateBalancerSignals`: best of `d` sampled servers on the signal \
                  a balancer reads, one server `slowFactor` times slower. Times are in mean \
                  service times.",
    options: &[
        OptionSpec {
            name: "signal",
            doc: "What the balancer reads.",
            unit: Unit::None,
            kind: Kind::Name {
                names: &SIGNAL_NAMES,
                expected: SIGNALS_EXPECTED,
                default: Some(DEFAULTS.signal.name()),
            },
        },
        OptionSpec::number(
            "lambda",
            "Arrival rate per server.",
            Unit::Rate,
            LAMBDA,
            DEFAULTS.lambda,
        ),
        OptionSpec::count(
            "servers",
            "Servers (server 0 is the slow one).",
            Unit::Count,
            SERVERS,
            DEFAULTS.servers as u64,
        ),
        OptionSpec::count(
            "d",
            "Servers sampled per arrival, at most `servers`.",
            Unit::Count,
            CHOICES,
            DEFAULTS.d as u64,
        ),
        OptionSpec::number(
            "staleness",
            "The stale signal's refresh period (0 is fresh).",
            Unit::ServiceTimes,
            STALENESS,
            DEFAULTS.staleness,
        ),
        OptionSpec::count(
            "clients",
            "Balancers the arrivals are split among.",
            Unit::Count,
            CLIENTS,
            DEFAULTS.clients as u64,
        ),
        OptionSpec::number(
            "slowFactor",
            "How many times slower server 0 is.",
            Unit::None,
            SLOW_FACTOR,
            DEFAULTS.slow_factor,
        ),
        OptionSpec::number(
            "tau",
            "The peak-EWMA's decay time.",
            Unit::ServiceTimes,
            TAU,
            DEFAULTS.tau,
        ),
        OptionSpec::count(
            "arrivals",
            "Arrivals simulated, the first tenth warm-up.",
            Unit::Count,
            ARRIVALS,
            DEFAULTS.arrivals,
        ),
        SEED_OPTION,
    ],
    exclusive: &[],
    result_type: <BalancerResult as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| {
        let params = BalancerParams {
            signal: Signal::from_name(o.name("signal").expect("signal has a default"))?,
            lambda: o.number("lambda").expect("lambda has a default"),
            servers: o.count("servers") as u32,
            d: o.count("d") as u32,
            staleness: o.number("staleness").expect("staleness has a default"),
            clients: o.count("clients") as u32,
            slow_factor: o.number("slowFactor").expect("slowFactor has a default"),
            tau: o.number("tau").expect("tau has a default"),
            arrivals: o.count("arrivals"),
            seed: o.seed("seed"),
        };
        params.check()?;
        let work = Work {
            units: params.work_units(),
            counted_as: "arrivals × (30 + 3·d)".into(),
        };
        Ok(Prepared::new(work, move || {
            Ok(simulate(&params)?.describe())
        }))
    },
};

/// The defaults the call's options declare.
const DEFAULTS: BalancerParams = BalancerParams::DEFAULT;
