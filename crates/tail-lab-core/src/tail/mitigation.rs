//! The fixes a parent request can apply to its leaves (Dean & Barroso, "The Tail at Scale").

use crate::error::{CountRange, ParamError, check_level};

/// The leaf quantile level at which a hedge sends its duplicate: in (0, 1), checked when made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HedgeLevel(f64);

impl HedgeLevel {
    /// `delay_quantile` when it is a level in (0, 1).
    pub fn new(delay_quantile: f64) -> Result<Self, ParamError> {
        check_level("delayQ", delay_quantile).map(HedgeLevel)
    }

    /// The level.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// Percents of leaves a parent may answer without.
pub const DROP_PERCENT: CountRange = crate::count_range!(0, 50);

/// The percent of leaves a parent may answer without: in [`DROP_PERCENT`], checked when made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DropPercent(u32);

impl DropPercent {
    /// `percent` when it is in [`DROP_PERCENT`].
    pub fn new(percent: u32) -> Result<Self, ParamError> {
        DROP_PERCENT.check("dropPercent", u64::from(percent))?;
        Ok(DropPercent(percent))
    }

    /// The percent.
    pub fn get(self) -> u32 {
        self.0
    }
}

/// What the parent does about slow leaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mitigation {
    /// Wait for every leaf.
    None,
    /// Once a leaf has been outstanding past its own quantile at this level (e.g. 0.95), send
    /// a duplicate to another replica and take whichever answers first. The loser still cost
    /// its work up to that moment.
    Hedge(HedgeLevel),
    /// Answer once all but the slowest this-many percent of leaves are in (k-of-n completion),
    /// rounded down to whole leaves, paying in completeness instead of load. Dropped leaves
    /// still ran.
    DropSlowest(DropPercent),
}

impl Mitigation {
    /// The presets a picker offers, as `(name, label, mitigation)`.
    pub const PRESETS: [(&'static str, &'static str, Mitigation); 4] = [
        ("none", "none", Mitigation::None),
        (
            "hedge-p95",
            "hedge after leaf p95",
            Mitigation::Hedge(HedgeLevel(0.95)),
        ),
        (
            "drop-1",
            "drop slowest 1%",
            Mitigation::DropSlowest(DropPercent(1)),
        ),
        (
            "drop-5",
            "drop slowest 5%",
            Mitigation::DropSlowest(DropPercent(5)),
        ),
    ];
    const NAMES: &'static str = "\"none\", \"hedge-p95\", \"drop-1\", \"drop-5\"";

    /// A hedge at leaf quantile `delay_quantile` in (0, 1).
    pub fn hedge(delay_quantile: f64) -> Result<Self, ParamError> {
        HedgeLevel::new(delay_quantile).map(Mitigation::Hedge)
    }

    /// Answer without the slowest `percent`% ([`DROP_PERCENT`]) of leaves.
    pub fn drop_slowest(percent: u32) -> Result<Self, ParamError> {
        DropPercent::new(percent).map(Mitigation::DropSlowest)
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
            Mitigation::DropSlowest(percent) => fanout * percent.get() / 100,
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
