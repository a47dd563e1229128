//! The options the calls on loaded replicas share (loaded, tied, budget, retries, fairness,
//! cancellation), declared once ([`crate::api`]).

use super::config::{
    LOAD_EXPECTED, MAX_LOAD, MAX_MEAN_MS, MEAN_EXPECTED, MIN_LOAD, MIN_MEAN_MS, REPLICAS,
};
use super::model::{CANCELLATION_NAMES, DEFAULT_REPLICAS, DELAY_BASIS_NAMES, POLICY_NAMES};
use super::policy::{AFTER_DELAY_EXPECTED, Cancellation, DelayBasis, LoadedPolicy, MAX_DELAY_MS};
use crate::api::{Kind, OptionSpec, OptionValues};
use crate::describe::Unit;
use crate::error::{Ends, NumberRange, ParamError};

/// The utilisations accepted, [`MIN_LOAD`]..=[`MAX_LOAD`] (1 and above run, and answer
/// "unstable").
pub const LOAD: NumberRange = NumberRange::new(MIN_LOAD, MAX_LOAD, Ends::Closed, LOAD_EXPECTED);

/// `load`: offered utilisation before backups, 0.5 unless told.
pub const LOAD_OPTION: OptionSpec = OptionSpec::number(
    "load",
    "Offered utilisation before backups (1 and above: unstable).",
    Unit::Fraction,
    LOAD,
    0.5,
);

/// `replicas`: FIFO replicas, [`DEFAULT_REPLICAS`] unless told.
pub const REPLICAS_OPTION: OptionSpec = OptionSpec::count(
    "replicas",
    "FIFO replicas.",
    Unit::Count,
    REPLICAS,
    DEFAULT_REPLICAS as u64,
);

/// The cancellation rules in an error's words.
pub const CANCELLATIONS_EXPECTED: &str =
    "\"backup\", \"either\", \"either-any\", \"queued\", \"never\"";

/// `cancellation`: what a landing cancel does to the losing copy, `default` unless told.
pub const fn cancellation_option(default: &'static str) -> OptionSpec {
    OptionSpec {
        name: "cancellation",
        doc: "What happens to the copy that did not answer first: \"backup\" (the primary runs \
              on; a losing backup is removed, even mid-hiccup), \"either\" (either loser \
              removed, but not mid-hiccup), \"either-any\" (either loser removed, even \
              mid-hiccup), \"queued\" (only a loser still queued is removed) or \"never\".",
        unit: Unit::None,
        kind: Kind::Name {
            names: &CANCELLATION_NAMES,
            expected: CANCELLATIONS_EXPECTED,
            default: Some(default),
        },
    }
}

/// The backup policies in an error's words.
pub const POLICIES_EXPECTED: &str = "\"none\", \"hedge\", \"duplicate\"";

/// `policy`: no backups, a hedge or duplicating every request; "none" unless told.
pub const POLICY_OPTION: OptionSpec = OptionSpec::choice(
    "policy",
    "\"none\", \"hedge\" (a backup after the delay) or \"duplicate\" (two copies at once).",
    &POLICY_NAMES,
    POLICIES_EXPECTED,
);

/// `delay`: a backup after this many ms; 0 duplicates every request. Overrides `policy`.
pub const DELAY_OPTION: OptionSpec = OptionSpec {
    name: "delay",
    doc: "Send the backup after this many ms; 0 duplicates every request. Overrides `policy`.",
    unit: Unit::Ms,
    kind: Kind::Number {
        range: NumberRange::new(0.0, MAX_DELAY_MS, Ends::Closed, AFTER_DELAY_EXPECTED),
        default: None,
    },
};

/// `delayBasis`: what the "hedge" policy's p95 delay is measured on.
pub const DELAY_BASIS_OPTION: OptionSpec = OptionSpec::choice(
    "delayBasis",
    "What the \"hedge\" policy's p95 delay is measured on: \"loaded\" (the same load, no \
     backups) or \"idle\" (the service model alone).",
    &DELAY_BASIS_NAMES,
    "\"loaded\", \"idle\"",
);

/// What a loaded run does with duplicates, from `o` (read against options that hold
/// [`POLICY_OPTION`], [`DELAY_OPTION`], [`DELAY_BASIS_OPTION`] and a [`cancellation_option`]):
/// `delay` if given, else `policy` measured on `delayBasis`; and the cancellation rule.
pub fn policy_of(o: &OptionValues) -> Result<(LoadedPolicy, Cancellation), ParamError> {
    let basis = DelayBasis::from_name(o.name("delayBasis").expect("delayBasis has a default"))?;
    let cancellation =
        Cancellation::from_name(o.name("cancellation").expect("cancellation has a default"))?;
    let policy = match o.number("delay") {
        Some(ms) => LoadedPolicy::after_delay(ms)?,
        None => LoadedPolicy::from_name(o.name("policy").expect("policy has a default"), basis)?,
    };
    Ok((policy, cancellation))
}

/// The means of an exponential service accepted (ms), [`MIN_MEAN_MS`]..=[`MAX_MEAN_MS`].
pub const MEAN_MS: NumberRange =
    NumberRange::new(MIN_MEAN_MS, MAX_MEAN_MS, Ends::Closed, MEAN_EXPECTED);
