//! The histogram bin of a table draw, read from the draw's cell instead of computed from its
//! value.
//!
//! A table draw is `a + f · (b − a)` for a cell's edges `a`, `b` and a position `f` inside it
//! ([`InverseCdfTable::value_at`]). That expression is monotone in `f` (every IEEE operation
//! rounds monotonically), and so is the shared bins' [`LogBins::bin_of`]. So within one cell
//! the bin is a step function of `f`, and where a cell crosses at most one bin edge it is fully
//! described by three numbers, found once per table: the bin at `f = 0`, the bin at the cell's
//! end, and the first position that lands in the second. The hot loop then bins a draw with
//! one load and one comparison instead of taking the value apart, and gets exactly the bin
//! `bin_of(value)` would give: the map is built by calling `bin_of` on the very values the
//! loop computes, and tested against it.
//!
//! Cells are far narrower than bins for every profile in the lab (about a fifth of a bin at
//! the median, less in the tails), so a cell crossing two edges is rare; such a cell is
//! marked, and its draws are binned from their value.

use crate::sampling::histogram::{BIN_COUNT, LogBins, shared_bins};
use crate::sampling::inverse_cdf::{FRAC_ONE, InverseCdfTable, TablePoint};

/// Marks a cell that crosses more than one bin edge.
const SPREAD: u16 = u16::MAX;

/// One cell's bins: `below` for positions before `step_at`, `from_step` from there on.
#[derive(Debug, Clone, Copy, PartialEq)]
struct CellStep {
    step_at: u64,
    below: u16,
    from_step: u16,
}

/// An inverse-CDF table with the shared-bin step of every cell.
#[derive(Debug, Clone, PartialEq)]
pub struct BinnedTable {
    table: InverseCdfTable,
    /// One entry per cell index, `InverseCdfTable::CELL_INDICES` of them.
    steps: Box<[CellStep]>,
}

impl BinnedTable {
    /// The smallest and largest value a draw can take ([`InverseCdfTable::value_range`]).
    pub fn value_range(&self) -> (f64, f64) {
        self.table.value_range()
    }

    /// Maps every cell of `table` onto the shared bins (about 100 KB; 0.3 ms natively).
    pub fn new(table: InverseCdfTable) -> Self {
        let bins = shared_bins();
        let steps = (0..InverseCdfTable::CELL_INDICES)
            .map(|cell| {
                let bin_at = |frac_bits: u64| {
                    let point =
                        TablePoint::new(cell, frac_bits).expect("cell and position in range");
                    bins.bin_of(table.value_at(point))
                };
                cell_step(bin_at)
            })
            .collect();
        BinnedTable { table, steps }
    }

    /// The draw encoded by 64 random bits (ms): [`InverseCdfTable::sample`].
    #[inline(always)]
    pub fn sample(&self, bits: u64) -> f64 {
        self.table.sample(bits)
    }

    /// The draw encoded by 64 random bits and its shared bin: always `(v, bins.bin_of(v))`,
    /// the bin read from the cell. `bins` is [`shared_bins`] (every [`LogBins`] is the same):
    /// passed in so the hot loop holds it, and a rare cell that crosses two edges is binned
    /// inline, without a call that would make a JIT reload its registers.
    #[inline(always)]
    pub fn sample_binned(&self, bits: u64, bins: &LogBins) -> (f64, usize) {
        let point = InverseCdfTable::locate(bits);
        let value = self.table.value_at(point);
        debug_assert!(point.cell() < self.steps.len());
        // SAFETY: `steps` has one entry per cell index, `InverseCdfTable::CELL_INDICES`, and
        // every `TablePoint` has `cell() < CELL_INDICES`. Unchecked for the same reason as
        // the table's own load: it is on the hottest path, and wasm cannot elide the check.
        let step = unsafe { *self.steps.get_unchecked(point.cell()) };
        let bin = if point.frac_bits() >= step.step_at {
            step.from_step
        } else {
            step.below
        };
        if usize::from(bin) >= BIN_COUNT {
            return (value, bins.bin_of(value));
        }
        (value, usize::from(bin))
    }
}

/// The step of one cell, from its bin at any position (monotone in the position).
fn cell_step(bin_at: impl Fn(u64) -> usize) -> CellStep {
    let last = FRAC_ONE - 1;
    let (below, after) = (bin_at(0), bin_at(last));
    if below == after {
        return CellStep {
            step_at: u64::MAX,
            below: below as u16,
            from_step: below as u16,
        };
    }
    if below.abs_diff(after) > 1 {
        return CellStep {
            step_at: 0,
            below: SPREAD,
            from_step: SPREAD,
        };
    }
    // The first position in the second bin: bin_at(lo) == below, bin_at(hi) == after.
    let (mut lo, mut hi) = (0, last);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if bin_at(mid) == below {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    CellStep {
        step_at: hi,
        below: below as u16,
        from_step: after as u16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::address::SampleStream;
    use crate::sampling::inverse_cdf::CELLS;
    use crate::sampling::lognormal::LogNormalMs;

    fn tables() -> Vec<BinnedTable> {
        [
            (4.0, 0.43),
            (110.0, 0.5),
            (4.0, 0.24),
            (490.0, 0.4),
            (1.0, 5.0),
            (0.05, 2.0),
        ]
        .into_iter()
        .map(|(m, s)| BinnedTable::new(LogNormalMs::new(m, s).unwrap().table()))
        .collect()
    }

    #[test]
    fn every_step_sits_exactly_where_the_value_crosses_an_edge() {
        // At each cell's step, the positions either side bin as the map says, and both
        // ends of every cell too: the map is `bin_of` of the same values, not an estimate.
        for t in tables() {
            for (cell, step) in t.steps.iter().enumerate() {
                let bin = |f: u64| {
                    shared_bins().bin_of(t.table.value_at(TablePoint::new(cell, f).unwrap()))
                };
                if step.below == SPREAD {
                    assert!(bin(0).abs_diff(bin(FRAC_ONE - 1)) > 1);
                    continue;
                }
                assert_eq!(bin(0), usize::from(step.below));
                assert_eq!(bin(FRAC_ONE - 1), usize::from(step.from_step));
                if step.step_at != u64::MAX {
                    assert_eq!(bin(step.step_at), usize::from(step.from_step));
                    assert_eq!(bin(step.step_at - 1), usize::from(step.below));
                }
            }
        }
    }

    #[test]
    fn binned_draws_are_the_draws_and_their_bins() {
        let mut s = SampleStream::from_state(7);
        for t in tables() {
            for _ in 0..200_000 {
                let bits = s.next_bits();
                let (v, b) = t.sample_binned(bits, shared_bins());
                assert_eq!(v.to_bits(), t.sample(bits).to_bits());
                assert_eq!(b, shared_bins().bin_of(v), "bits {bits:#x}");
            }
            // The extremes: the clamped deepest edge on both sides, and the median.
            for bits in [0, 1, u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1] {
                let (v, b) = t.sample_binned(bits, shared_bins());
                assert_eq!(b, shared_bins().bin_of(v));
            }
        }
    }

    #[test]
    fn a_wide_lognormal_has_spread_cells_and_they_still_bin_right() {
        // σ = 5 (the widest allowed) makes cells near the median wider than two bins: the
        // fallback path is used, and `binned_draws_are_the_draws_and_their_bins` covers it.
        // (Index CELLS of each row is the row's last edge, not a cell: no draw lands there.)
        let spread = |t: &BinnedTable| {
            t.steps
                .iter()
                .enumerate()
                .filter(|(cell, s)| cell % (CELLS + 1) != CELLS && s.below == SPREAD)
                .count()
        };
        let all = tables();
        assert!(spread(&all[4]) > 0);
        // The lab's profiles' bodies and pauses need no fallback at all.
        for t in &all[..4] {
            assert_eq!(spread(t), 0);
        }
    }
}
