//! What a rule does to the copy that did not answer first: left alone, cancelled and its
//! server freed at once, or cancelled and left to finish the service it is in. The loaded
//! engine (and so `cancellation` and `fairness`) takes any rule; `budget` runs
//! [`Cancellation::EitherAny`] only.

use crate::error::ParamError;

/// What happens to the copy that did not answer first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cancellation {
    /// The seed's reading (default): the primary always runs to completion; the backup is
    /// removed from its queue, or its server freed even mid-hiccup, once the primary answers.
    /// If the backup answers first the primary still runs.
    Backup,
    /// Whichever copy loses is cancelled: removed from its queue, or its server freed if it is
    /// in ordinary service. A copy in a hiccup holds its replica until the hiccup ends: the
    /// hiccup is the replica's own and a cancel cannot interrupt it.
    Either,
    /// Whichever copy loses is removed from its queue or its server freed, even mid-hiccup.
    EitherAny,
    /// Only a losing copy still waiting in a queue is removed; one in service runs to
    /// completion (the server cannot be interrupted, seed 003 §7).
    Queued,
    /// Never cancelled: both copies always run to completion (seed 003 §6's adverse case).
    Never,
}

impl Cancellation {
    /// Every rule, default first.
    pub const ALL: [Cancellation; 5] = [
        Cancellation::Backup,
        Cancellation::Either,
        Cancellation::EitherAny,
        Cancellation::Queued,
        Cancellation::Never,
    ];

    /// The stable machine name (`"backup"`, `"either"`, `"either-any"`, `"queued"`, `"never"`).
    pub fn name(&self) -> &'static str {
        match self {
            Cancellation::Backup => "backup",
            Cancellation::Either => "either",
            Cancellation::EitherAny => "either-any",
            Cancellation::Queued => "queued",
            Cancellation::Never => "never",
        }
    }

    /// The rule called `name`.
    pub fn from_name(name: &str) -> Result<Self, ParamError> {
        Cancellation::ALL
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| ParamError::UnknownName {
                param: "cancellation",
                got: name.to_string(),
                expected: "\"backup\", \"either\", \"either-any\", \"queued\", \"never\"",
            })
    }

    /// What this rule does to a losing copy that was (`backup`) or was not the backup and is
    /// `in_service` (else still queued) in a hiccup (`slow`) or not: `None` leaves it alone,
    /// `Some(true)` cancels it and frees its server at once, `Some(false)` cancels it but lets
    /// the service it is in finish.
    pub(crate) fn on_loser(self, backup: bool, in_service: bool, slow: bool) -> Option<bool> {
        match (self, in_service) {
            (Cancellation::Never, _) => None,
            (Cancellation::Backup, _) if !backup => None,
            (Cancellation::Queued, true) => None,
            (_, false) => Some(true),
            (Cancellation::Either, true) => Some(!slow),
            (Cancellation::Backup | Cancellation::EitherAny, true) => Some(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_decides_the_loser_as_documented() {
        use Cancellation::*;
        // (rule, loser is backup, in service, in a hiccup) → None / cancel+free / cancel+drain
        let cases = [
            (Backup, false, false, false, None),
            (Backup, false, true, true, None),
            (Backup, true, false, false, Some(true)),
            (Backup, true, true, true, Some(true)),
            (Either, false, false, false, Some(true)),
            (Either, false, true, false, Some(true)),
            (Either, true, true, true, Some(false)),
            (EitherAny, false, true, true, Some(true)),
            (Queued, true, false, false, Some(true)),
            (Queued, false, true, false, None),
            (Never, true, false, false, None),
        ];
        for (rule, backup, in_service, slow, want) in cases {
            assert_eq!(rule.on_loser(backup, in_service, slow), want, "{rule:?}");
        }
    }
}
