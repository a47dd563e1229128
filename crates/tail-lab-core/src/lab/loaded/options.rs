//! The options the calls on loaded replicas share (loaded, tied, budget, retries, fairness,
//! cancellation), declared once ([`crate::api`]).

use super::config::{LOAD_EXPECTED, MAX_LOAD, MIN_LOAD, REPLICAS};
use super::model::{CANCELLATION_NAMES, DEFAULT_REPLICAS, POLICY_NAMES};
use crate::api::{Kind, OptionSpec};
use crate::describe::Unit;
use crate::error::{Ends, NumberRange};

/// The utilisations accepted, [`MIN_LOAD`]..=[`MAX_LOAD`] (1 and above run, and answer
/// "unstable").
pub const LOAD: NumberRange = NumberRange {
    lo: MIN_LOAD,
    hi: MAX_LOAD,
    ends: Ends::Closed,
    expected: LOAD_EXPECTED,
};

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
