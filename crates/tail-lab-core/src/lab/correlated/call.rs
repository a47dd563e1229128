//! `simulateCorrelated` and the options its closed forms (`correlatedTheory`) share with it.

use super::{
    CorrelatedParams, CorrelatedResult, DROP, Delay, FANOUT, REQUESTS_PER_CALL, SLOW_LEVEL,
};
use crate::api::{Call, OptionSpec, OptionValues, Prepared, SEED_OPTION, SERVICE_OPTION, Work};
use crate::describe::{Describe, Unit};
use crate::error::{PROBABILITY, ParamError};
use crate::lab::hedge_idle::{DEFAULT_DELAY_Q, DELAY_MS_OPTION, DELAY_Q_OPTION};

/// The options of one setting, which the closed forms take as they are: every option of
/// [`CALL`] but `requests` and `seed`.
pub const OPTIONS: &[OptionSpec] = &SETTING;

const SETTING: [OptionSpec; 8] = [
    OptionSpec::count("n", "Leaves per request.", Unit::Count, FANOUT, 100),
    OptionSpec::number(
        "c",
        "Leaf correlation: the chance that a leaf takes the request's shared draw.",
        Unit::Fraction,
        PROBABILITY,
        0.3,
    ),
    OptionSpec::number(
        "cr",
        "Replica correlation: the chance that a hedge's backup takes its primary's own draw.",
        Unit::Fraction,
        PROBABILITY,
        0.5,
    ),
    OptionSpec::number(
        "drop",
        "The share of leaves the partial-results parent drops.",
        Unit::Fraction,
        DROP,
        0.01,
    ),
    OptionSpec {
        doc: "The hedge delay as a quantile level of the service time; 0.95 unless `delayMs` is \
              given.",
        ..DELAY_Q_OPTION
    },
    DELAY_MS_OPTION,
    OptionSpec::number(
        "p",
        "The slow level: a leaf is slow above its (1 − p)-quantile.",
        Unit::Fraction,
        SLOW_LEVEL,
        0.01,
    ),
    SERVICE_OPTION,
];

const ALL: [OptionSpec; 10] = {
    let mut all = [SEED_OPTION; 10];
    let mut i = 0;
    while i < SETTING.len() {
        all[i] = SETTING[i];
        i += 1;
    }
    all[8] = OptionSpec::count(
        "requests",
        "Requests simulated (`simulateCorrelated` only; 4 × requests × n at most the work limit).",
        Unit::Count,
        REQUESTS_PER_CALL,
        20_000,
    );
    all[9] = OptionSpec {
        doc: "The seed of every draw (`simulateCorrelated` only).",
        ..SEED_OPTION
    };
    all
};

/// The parameters that `o` (read against [`OPTIONS`] or [`CALL`]'s options) sets; `requests`
/// and `seed` are 1 when not declared (the closed forms').
pub fn params(o: &OptionValues) -> CorrelatedParams {
    let number = |name| o.number(name).expect("declared with a default");
    let delay = match o.number("delayMs") {
        Some(ms) => Delay::Ms(ms),
        None => Delay::Quantile(o.number("delayQ").unwrap_or(DEFAULT_DELAY_Q)),
    };
    CorrelatedParams {
        model: o.service("service"),
        n: o.count("n") as u32,
        c: number("c"),
        cr: number("cr"),
        drop: number("drop"),
        delay,
        p: number("p"),
        requests: if o.has("requests") {
            o.count("requests")
        } else {
            1
        },
        seed: if o.has("seed") { o.seed("seed") } else { 1 },
    }
}

/// `simulateCorrelated`: correlated stragglers.
pub const CALL: Call = Call {
    name: "simulateCorrelated",
    doc: "Correlated stragglers: the parent of `n` leaves that share a slow episode with \
          probability `c` each, with no fix, its slowest leaves dropped and a hedge, at `c` and \
          at `c = 0`, beside the closed forms; the hedge's gain as the replica correlation \
          rises; the leaf's own law.",
    options_type: "CorrelatedOptions",
    options_doc: "Options of `simulateCorrelated` and `correlatedTheory`: n leaves, each taking \
                  the request's shared draw (its episode) with probability `c`, else its own; \
                  every leaf's own law is the service model's.",
    options: &ALL,
    exclusive: &[["delayQ", "delayMs"]],
    result_type: <CorrelatedResult as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| -> Result<Prepared, ParamError> {
        let params = params(o);
        let work = Work {
            units: params.work_units(),
            counted_as: "4 × requests × n".into(),
        };
        Ok(Prepared::new(work, move || {
            Ok(super::simulate(params)?.describe())
        }))
    },
};
