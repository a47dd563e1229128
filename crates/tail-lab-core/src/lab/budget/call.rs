//! `simulateBudget`: its options, defaulting to the section's and the report's run
//! ([`BudgetParams::DEFAULT`]), the outage in the middle third of the span unless told.

use super::params::{
    MAX_LOAD, MAX_SLOWDOWN, MAX_SPAN_MS, MAX_TOKENS, MIN_LOAD, REPLICAS, TOKEN_RATIO_EXPECTED,
    WINDOWS,
};
use super::{BudgetConfig, BudgetParams, BudgetResult, DELAY_RULE_NAMES, DelayRule};
use crate::api::{
    Call, Kind, OptionSpec, OptionValues, Prepared, SEED_OPTION, SERVICE_OPTION, Work,
};
use crate::describe::{Describe, Unit};
use crate::error::{Ends, NumberRange, ParamError};

const D: BudgetParams = BudgetParams::DEFAULT;

/// The utilisations accepted.
pub const LOAD: NumberRange = NumberRange::new(
    MIN_LOAD,
    MAX_LOAD,
    Ends::Closed,
    "a utilisation in 0.01..=2",
);
/// The outage's slowdowns accepted.
pub const SLOWDOWN: NumberRange =
    NumberRange::new(1.0, MAX_SLOWDOWN, Ends::Closed, "a factor in 1..=1000");
/// The spans accepted (ms).
pub const SPAN_MS: NumberRange = NumberRange::new(
    0.0,
    MAX_SPAN_MS,
    Ends::AboveLow,
    "a span in ms in (0, 600000]",
);
/// The token ratios accepted (kept to thousandths).
pub const TOKEN_RATIO: NumberRange =
    NumberRange::new(0.001, 1.0, Ends::Closed, TOKEN_RATIO_EXPECTED);
/// A fixed hedge delay (ms).
pub const DELAY_MS: NumberRange =
    NumberRange::new(0.0, 1e9, Ends::Open, "a delay in ms in (0, 1e9)");

/// `simulateBudget`.
pub const CALL: Call = Call {
    name: "simulateBudget",
    doc: "One budget run: no backups, the plain hedge, the budgeted hedge and the disable switch \
          through one replica's outage, whole-run figures and series per window.",
    options_type: "BudgetOptions",
    options_doc: "Options of `simulateBudget`.",
    options: &[
        OptionSpec::number(
            "load",
            "Offered utilisation before backups.",
            Unit::Fraction,
            LOAD,
            D.load,
        ),
        OptionSpec::number(
            "slowdown",
            "How many times slower replica 0 serves in the outage (1: no outage).",
            Unit::None,
            SLOWDOWN,
            D.slowdown,
        ),
        OptionSpec::count(
            "replicas",
            "FIFO replicas.",
            Unit::Count,
            REPLICAS,
            D.replicas as u64,
        ),
        OptionSpec::number(
            "spanMs",
            "Simulated time in which requests arrive.",
            Unit::Ms,
            SPAN_MS,
            D.span_ms,
        ),
        OptionSpec {
            name: "outageStartMs",
            doc: "The outage's start, within the span; a third of the span unless told.",
            unit: Unit::Ms,
            kind: Kind::Number {
                range: NumberRange::new(
                    0.0,
                    MAX_SPAN_MS,
                    Ends::Closed,
                    "a time in ms in 0..=spanMs",
                ),
                default: None,
            },
        },
        OptionSpec {
            name: "outageEndMs",
            doc: "The outage's end, from its start to the span's end; two thirds of the span \
                  unless told.",
            unit: Unit::Ms,
            kind: Kind::Number {
                range: NumberRange::new(
                    0.0,
                    MAX_SPAN_MS,
                    Ends::Closed,
                    "a time in ms in outageStartMs..=spanMs",
                ),
                default: None,
            },
        },
        OptionSpec::count(
            "windows",
            "Windows of simulated time for the series.",
            Unit::Count,
            WINDOWS,
            D.windows as u64,
        ),
        OptionSpec::choice(
            "delayRule",
            "\"fixed\": always `delayMs`; \"tracking\": the p95 of the last 1000 answers, every \
             50.",
            &DELAY_RULE_NAMES,
            "\"fixed\", \"tracking\"",
        ),
        OptionSpec {
            name: "delayMs",
            doc: "The fixed delay, and where a tracking one starts; the service's p95 unless \
                  told.",
            unit: Unit::Ms,
            kind: Kind::Number {
                range: DELAY_MS,
                default: None,
            },
        },
        OptionSpec {
            name: "maxTokens",
            doc: "Tokens a full bucket holds.",
            unit: Unit::Count,
            kind: Kind::CountOr {
                range: MAX_TOKENS,
                word: "unlimited",
                expected: "a whole number of tokens, or \"unlimited\"",
                default: Some(10),
            },
        },
        OptionSpec::number(
            "tokenRatio",
            "Tokens each request adds (kept to thousandths).",
            Unit::None,
            TOKEN_RATIO,
            D.token_ratio,
        ),
        OptionSpec::number(
            "disableDepth",
            "No hedge when the backup's replica holds more copies than this (Infinity: never).",
            Unit::Count,
            NumberRange::new(
                0.0,
                f64::MAX,
                Ends::ClosedOrInfinity,
                "a queue depth ≥ 0 (Infinity: never)",
            ),
            D.disable_depth,
        ),
        OptionSpec {
            name: "disableUtilisation",
            doc: "Also no hedge while the offered utilisation (1 + h)ρ over the last second is \
                  above one.",
            unit: Unit::None,
            kind: Kind::Flag {
                default: D.disable_utilisation,
            },
        },
        SEED_OPTION,
        SERVICE_OPTION,
    ],
    exclusive: &[],
    result_type: <BudgetResult as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| -> Result<Prepared, ParamError> {
        let config = BudgetConfig::with_service(params(o)?, o.service("service"))?;
        let work = Work {
            units: config.expected_requests() * 4.0 * 60.0,
            counted_as: "expected requests × 4 policies × 60".into(),
        };
        Ok(Prepared::new(work, move || Ok(config.run().describe())))
    },
};

/// The parameters `o` sets (read against [`CALL`]'s options).
pub fn params(o: &OptionValues) -> Result<BudgetParams, ParamError> {
    let number = |name| o.number(name).expect("declared with a default");
    let span_ms = number("spanMs");
    Ok(BudgetParams {
        load: number("load"),
        slowdown: number("slowdown"),
        replicas: o.count("replicas") as u32,
        span_ms,
        // The middle third of the span unless told.
        outage_start_ms: o.number("outageStartMs").unwrap_or(span_ms / 3.0),
        outage_end_ms: o.number("outageEndMs").unwrap_or(2.0 * span_ms / 3.0),
        windows: o.count("windows") as u32,
        delay_rule: DelayRule::from_name(o.name("delayRule").expect("has a default"))?,
        delay_ms: o.number("delayMs"),
        max_tokens: match o.count_or_word("maxTokens").expect("has a default") {
            Ok(n) => Some(n as u32),
            Err(_unlimited) => None,
        },
        token_ratio: number("tokenRatio"),
        disable_depth: number("disableDepth"),
        disable_utilisation: o.flag("disableUtilisation"),
        seed: o.seed("seed"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_options_default_to_the_sections_run() {
        let defaults = OptionValues::complete(CALL.options, Vec::new());
        assert_eq!(params(&defaults).unwrap(), BudgetParams::DEFAULT);
    }
}
