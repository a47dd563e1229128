//! The fixes a parent request can apply to its leaves (Dean & Barroso, "The Tail at Scale").

use crate::error::{ParamError, check_count, check_level};

/// What the parent does about slow leaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mitigation {
    /// Wait for every leaf.
    None,
    /// Once a leaf has been outstanding past its own `delay_quantile` (e.g. 0.95), send a
    /// duplicate to another replica and take whichever answers first. The loser still cost its
    /// work up to that moment.
    Hedge {
        /// Leaf quantile level (0..1, exclusive) at which the duplicate is sent.
        delay_quantile: f64,
    },
    /// Answer once all but the slowest `percent`% of leaves are in (k-of-n completion), paying
    /// in completeness instead of load. Dropped leaves still ran.
    DropSlowest {
        /// Percent of leaves (0..=50) the parent may answer without, rounded down to whole leaves.
        percent: u32,
    },
}

impl Mitigation {
    /// The presets a picker offers, as `(name, label, mitigation)`.
    pub const PRESETS: [(&'static str, &'static str, Mitigation); 4] = [
        ("none", "none", Mitigation::None),
        (
            "hedge-p95",
            "hedge after leaf p95",
            Mitigation::Hedge {
                delay_quantile: 0.95,
            },
        ),
        (
            "drop-1",
            "drop slowest 1%",
            Mitigation::DropSlowest { percent: 1 },
        ),
        (
            "drop-5",
            "drop slowest 5%",
            Mitigation::DropSlowest { percent: 5 },
        ),
    ];
    const NAMES: &'static str = "\"none\", \"hedge-p95\", \"drop-1\", \"drop-5\"";

    /// A hedge at leaf quantile `delay_quantile` in (0, 1).
    pub fn hedge(delay_quantile: f64) -> Result<Self, ParamError> {
        check_level("delayQ", delay_quantile)?;
        Ok(Mitigation::Hedge { delay_quantile })
    }

    /// Answer without the slowest `percent`% (0..=50) of leaves.
    pub fn drop_slowest(percent: u32) -> Result<Self, ParamError> {
        check_count(
            "dropPercent",
            u64::from(percent),
            0,
            50,
            "an integer percent in 0..=50",
        )?;
        Ok(Mitigation::DropSlowest { percent })
    }

    /// Looks a preset up by name (`"none"`, `"hedge-p95"`, `"drop-1"`, `"drop-5"`).
    pub fn from_name(name: &str) -> Result<Self, ParamError> {
        Self::PRESETS
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, _, m)| *m)
            .ok_or_else(|| ParamError::UnknownName {
                param: "fix",
                got: name.to_string(),
                expected: Self::NAMES,
            })
    }

    /// How many of `fanout` leaves the parent may answer without.
    pub fn dropped_leaves(&self, fanout: u32) -> u32 {
        match *self {
            Mitigation::DropSlowest { percent } => fanout * percent / 100,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_parse_and_drop_whole_leaves() {
        for (name, _, m) in Mitigation::PRESETS {
            assert_eq!(Mitigation::from_name(name).unwrap(), m);
        }
        assert_eq!(Mitigation::from_name("retry").unwrap_err().param(), "fix");
        let d1 = Mitigation::from_name("drop-1").unwrap();
        assert_eq!(d1.dropped_leaves(100), 1);
        assert_eq!(d1.dropped_leaves(99), 0);
        assert_eq!(d1.dropped_leaves(256), 2);
        assert_eq!(Mitigation::drop_slowest(5).unwrap().dropped_leaves(100), 5);
        assert!(Mitigation::drop_slowest(51).is_err());
        assert!(Mitigation::hedge(1.0).is_err());
        assert_eq!(Mitigation::None.dropped_leaves(100), 0);
    }
}
