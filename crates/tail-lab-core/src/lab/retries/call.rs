//! `simulateRetries`: its options, defaulting to the metastable setting
//! ([`RetriesParams::DEFAULT`]), and where the spike sits when only the run's length is given
//! (a sixth to a third of it).

use super::params::{MAX_DURATION_MS, MAX_LOAD, MIN_DURATION_MS, MIN_LOAD};
use super::rules::{MAX_BACKOFF_MS, MAX_BURST, MAX_RATIO, MAX_SPIKE};
use super::{
    BACKOFF_NAMES, Backoff, Budget, DEFAULT_BURST, MAX_ATTEMPTS, POLICY_NAMES, Policy, QUEUE_LIMIT,
    REPLICAS, RetriesConfig, RetriesParams, RetriesResult, Spike, WINDOWS,
};
use crate::api::{
    Call, Kind, OptionSet, OptionSpec, OptionValues, Prepared, SEED_OPTION, SERVICE_OPTION, Work,
};
use crate::describe::{Describe, Unit};
use crate::error::{Ends, NumberRange, ParamError};

const D: RetriesParams = RetriesParams::DEFAULT;

/// The utilisations accepted.
pub const LOAD: NumberRange = NumberRange::new(
    MIN_LOAD,
    MAX_LOAD,
    Ends::Closed,
    "a utilisation in 0.001..=2",
);
/// A backoff's base and cap (ms).
pub const WAIT_MS: NumberRange = NumberRange::new(
    0.0,
    MAX_BACKOFF_MS,
    Ends::Closed,
    "a wait in ms in 0..=600000",
);
/// A budget's burst (tokens).
pub const BURST: NumberRange = NumberRange::new(
    1.0,
    MAX_BURST,
    Ends::Closed,
    "a count of tokens in 1..=1000000 (a bucket under one token never spends)",
);
/// A budget's ratio (tokens per request).
pub const RATIO: NumberRange = NumberRange::new(
    0.0,
    MAX_RATIO,
    Ends::Closed,
    "a ratio in 0..=10 (tokens per request)",
);
/// The spike's factor.
pub const SPIKE: NumberRange = NumberRange::new(
    1.0,
    MAX_SPIKE,
    Ends::Closed,
    "a multiplier of the arrival rate in 1..=10",
);
/// The run's length (ms).
pub const DURATION_MS: NumberRange = NumberRange::new(
    MIN_DURATION_MS,
    MAX_DURATION_MS,
    Ends::Closed,
    "a duration in ms in 100..=3600000",
);

const BUDGET: Kind = Kind::Number {
    range: RATIO,
    default: None,
};

const QUEUE: Kind = Kind::Count {
    range: QUEUE_LIMIT,
    default: Some(super::DEFAULT_QUEUE_LIMIT as u64),
};

const OPTIONS: [OptionSpec; 19] = [
    OptionSpec {
        name: "policy",
        doc: "What a request sends besides its first attempt.",
        unit: Unit::None,
        kind: Kind::Name {
            names: &POLICY_NAMES,
            expected: "none, retry, hedge",
            default: Some("retry"),
        },
    },
    OptionSpec::number(
        "load",
        "Offered utilisation outside the spike, first attempts only.",
        Unit::Fraction,
        LOAD,
        D.load,
    ),
    OptionSpec::number(
        "timeoutMs",
        "The client's timeout (Infinity: never): per attempt for a retry, per request \
         otherwise.",
        Unit::Ms,
        NumberRange::new(
            0.0,
            f64::MAX,
            Ends::AboveLowOrInfinity,
            "a timeout in ms above 0 (∞: never)",
        ),
        D.timeout_ms,
    ),
    OptionSpec::count(
        "maxAttempts",
        "Attempts a retrying request may make, its first included.",
        Unit::Count,
        MAX_ATTEMPTS,
        D.max_attempts as u64,
    ),
    OptionSpec::choice(
        "backoff",
        "The wait before a retry: none, base·2^(k−1) capped, or that with full jitter.",
        &BACKOFF_NAMES,
        "none, exponential, jitter",
    ),
    OptionSpec::number(
        "backoffBaseMs",
        "The first retry's wait.",
        Unit::Ms,
        WAIT_MS,
        100.0,
    ),
    OptionSpec::number(
        "backoffCapMs",
        "The longest wait.",
        Unit::Ms,
        WAIT_MS,
        2000.0,
    ),
    OptionSpec::number(
        "hedgeDelayMs",
        "A hedge's delay after arrival (Infinity: no backups).",
        Unit::Ms,
        NumberRange::new(
            0.0,
            f64::MAX,
            Ends::ClosedOrInfinity,
            "a delay in ms ≥ 0 (∞: no backups)",
        ),
        D.hedge_delay_ms,
    ),
    OptionSpec {
        name: "budget",
        doc: "Budget tokens deposited per request; a retry or backup spends one (null or \
              absent: no budget).",
        unit: Unit::None,
        kind: Kind::Nullable(&BUDGET),
    },
    OptionSpec::number(
        "budgetBurst",
        "Tokens the budget holds at most and starts with.",
        Unit::Count,
        BURST,
        DEFAULT_BURST,
    ),
    OptionSpec::number(
        "spike",
        "The arrival rate's multiplier during the spike (1: none).",
        Unit::None,
        SPIKE,
        D.spike.factor,
    ),
    OptionSpec {
        name: "spikeStartMs",
        doc: "When the spike starts, within the run; a sixth of `durationMs` unless told.",
        unit: Unit::Ms,
        kind: Kind::Number {
            range: NumberRange::new(
                0.0,
                MAX_DURATION_MS,
                Ends::Closed,
                "a time in ms within the run",
            ),
            default: None,
        },
    },
    OptionSpec {
        name: "spikeEndMs",
        doc: "When it ends, from its start to the run's end; a third of `durationMs` unless \
              told.",
        unit: Unit::Ms,
        kind: Kind::Number {
            range: NumberRange::new(
                0.0,
                MAX_DURATION_MS,
                Ends::Closed,
                "a time in ms from the spike's start to the run's end",
            ),
            default: None,
        },
    },
    OptionSpec {
        name: "queueLimit",
        doc: "Attempts a replica holds queued before refusing more at once (null: no limit).",
        unit: Unit::Count,
        kind: Kind::Nullable(&QUEUE),
    },
    OptionSpec::number(
        "durationMs",
        "Simulated time in which requests arrive.",
        Unit::Ms,
        DURATION_MS,
        D.duration_ms,
    ),
    OptionSpec::count(
        "windows",
        "Windows the series are cut into.",
        Unit::Count,
        WINDOWS,
        D.windows as u64,
    ),
    OptionSpec::count(
        "replicas",
        "FIFO replicas.",
        Unit::Count,
        REPLICAS,
        D.replicas as u64,
    ),
    SEED_OPTION,
    SERVICE_OPTION,
];

/// The options of the closed forms (`retriesTheory`): the load, the attempts, the budget and
/// the requests an amplification bound counts over.
pub const THEORY_OPTIONS: &[OptionSpec] = &[
    OPTIONS[1],
    OPTIONS[3],
    OPTIONS[8],
    OPTIONS[9],
    OptionSpec::count(
        "requests",
        "Requests the amplification bound counts over.",
        Unit::Count,
        crate::count_range!(1, 1000000000000),
        1000,
    ),
];

/// `simulateRetries`.
pub const CALL: Call = Call {
    name: "simulateRetries",
    doc: "One retries simulation: whole-run counts and latencies, and series per window of \
          simulated time (latencies `null` when the run hit the runaway cap).",
    options_type: "RetriesOptions",
    options_doc: "Options of `simulateRetries`. Defaults: the metastable setting (10 replicas at \
                  40% load, 1 s timeout, 3 attempts, no backoff, a 2.5× spike from 10 to 20 s of \
                  a 60 s run, 1 s windows).",
    options: &OPTIONS,
    exclusive: &[],
    result_type: <RetriesResult as Describe>::TYPE_NAME,
    more: &[OptionSet {
        type_name: "RetriesTheoryOptions",
        doc: "Options of `retriesTheory`: the closed forms beside a retries run.",
        options: THEORY_OPTIONS,
    }],
    prepare: |o: &OptionValues| -> Result<Prepared, ParamError> {
        let config = RetriesConfig::new(params(o)?)?.with_service(o.service("service"));
        let work = Work {
            units: config.work_units(),
            counted_as: "expected requests × max(maxAttempts, 2) × 100 × (1 + requests waiting \
                         out a backoff / 30000)"
                .into(),
        };
        Ok(Prepared::new(work, move || Ok(config.run().describe())))
    },
};

/// The parameters `o` sets (read against [`CALL`]'s options).
pub fn params(o: &OptionValues) -> Result<RetriesParams, ParamError> {
    let number = |name| o.number(name).expect("declared with a default");
    let duration_ms = number("durationMs");
    let backoff = Backoff::from_name(
        o.name("backoff").expect("backoff has a default"),
        number("backoffBaseMs"),
        number("backoffCapMs"),
    )?;
    let budget = match o.nullable_number("budget") {
        Some(ratio) => Some(Budget::new(ratio, number("budgetBurst"))?),
        None => None,
    };
    Ok(RetriesParams {
        replicas: o.count("replicas") as u32,
        load: number("load"),
        policy: Policy::from_name(o.name("policy").expect("policy has a default"))?,
        timeout_ms: number("timeoutMs"),
        max_attempts: o.count("maxAttempts") as u32,
        backoff,
        hedge_delay_ms: number("hedgeDelayMs"),
        budget,
        // The default spike keeps its place in the run: from a sixth to a third of it.
        spike: Spike {
            factor: number("spike"),
            start_ms: o.number("spikeStartMs").unwrap_or(duration_ms / 6.0),
            end_ms: o.number("spikeEndMs").unwrap_or(duration_ms / 3.0),
        },
        queue_limit: o.nullable_count("queueLimit").map(|q| q as u32),
        duration_ms,
        windows: o.count("windows") as u32,
        seed: o.seed("seed"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_options_default_to_the_metastable_setting() {
        let defaults = OptionValues::complete(CALL.options, Vec::new());
        assert_eq!(params(&defaults).unwrap(), RetriesParams::DEFAULT);
    }
}
