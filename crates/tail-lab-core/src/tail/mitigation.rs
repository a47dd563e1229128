//! The fixes a parent request can apply to its leaves (Dean & Barroso, "The Tail at Scale").

use crate::error::{CountRange, ParamError, check_level};
use crate::theory::check_fanout;

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

    /// How many of `fanout` leaves the parent may answer without: `⌊fanout · k / 100⌋` for
    /// "drop slowest k%", 0 for the other fixes.
    pub fn dropped_leaves(&self, fanout: u32) -> u32 {
        match *self {
            Mitigation::DropSlowest(percent) => fanout * percent.get() / 100,
            _ => 0,
        }
    }

    /// The share (fraction 0..=0.5) of a parent's `fanout` (1..=1024) leaves it answers
    /// without, slow or not: `⌊fanout · k / 100⌋ / fanout` for "drop slowest k%", 0 for the
    /// other fixes. This is what partial results cost in completeness.
    ///
    /// ```
    /// use tail_lab_core::tail::mitigation::Mitigation;
    /// let drop1 = Mitigation::from_name("drop-1").unwrap();
    /// assert_eq!(drop1.dropped_share(100).unwrap(), 0.01);
    /// assert_eq!(drop1.dropped_share(99).unwrap(), 0.0); // drops nothing below 100 leaves
    /// ```
    pub fn dropped_share(&self, fanout: u32) -> Result<f64, ParamError> {
        check_fanout("fanout", fanout)?;
        Ok(f64::from(self.dropped_leaves(fanout)) / f64::from(fanout))
    }

    /// The smallest fan-out at which this fix drops a leaf at all, `⌈100 / k⌉` for "drop
    /// slowest k%" (100 for 1%, 20 for 5%); `None` for a fix that never drops (none, a hedge,
    /// or 0%). Below it, `dropped_leaves` is 0 and the fix changes nothing.
    pub fn first_dropping_fanout(&self) -> Option<u32> {
        match *self {
            Mitigation::DropSlowest(percent) if percent.get() > 0 => {
                Some(100_u32.div_ceil(percent.get()))
            }
            _ => None,
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

    #[test]
    fn drops_begin_at_the_first_fanout_with_a_whole_leaf() {
        // Every percent the type allows: below the first dropping fan-out nothing is dropped,
        // at it exactly one leaf is, and the share is the whole leaves over the fan-out.
        for k in DROP_PERCENT.lo as u32..=DROP_PERCENT.hi as u32 {
            let m = Mitigation::drop_slowest(k).unwrap();
            let first = m.first_dropping_fanout();
            for n in 1..=crate::theory::MAX_FANOUT {
                let dropped = m.dropped_leaves(n);
                assert_eq!(dropped, n * k / 100, "k {k} n {n}");
                assert_eq!(
                    m.dropped_share(n).unwrap(),
                    f64::from(dropped) / f64::from(n)
                );
                match first {
                    Some(f) => assert_eq!(dropped > 0, n >= f, "k {k} n {n} first {f}"),
                    None => assert_eq!((k, dropped), (0, 0)),
                }
            }
            if let Some(f) = first {
                assert_eq!(m.dropped_leaves(f), 1, "k {k}");
            }
        }
        let by_name = |name: &str| Mitigation::from_name(name).unwrap();
        assert_eq!(by_name("drop-1").first_dropping_fanout(), Some(100));
        assert_eq!(by_name("drop-5").first_dropping_fanout(), Some(20));
        assert_eq!(by_name("drop-1").dropped_share(50).unwrap(), 0.0);
        assert_eq!(by_name("drop-5").dropped_share(19).unwrap(), 0.0);
        assert_eq!(by_name("drop-5").dropped_share(20).unwrap(), 0.05);
        assert_eq!(by_name("drop-1").dropped_share(256).unwrap(), 2.0 / 256.0);
        for name in ["none", "hedge-p95"] {
            assert_eq!(by_name(name).first_dropping_fanout(), None);
            assert_eq!(by_name(name).dropped_share(100).unwrap(), 0.0);
        }
        let bad = by_name("drop-1").dropped_share(0).unwrap_err();
        assert_eq!(bad.param(), "fanout");
        assert!(bad.to_string().contains("1..=1024"), "{bad}");
        assert_eq!(
            by_name("none").dropped_share(1025).unwrap_err().param(),
            "fanout"
        );
    }
}
