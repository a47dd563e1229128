//! A precomputed inverse-CDF table with tail-accurate spacing: the lab's fast sampler.
//!
//! Sampling a lognormal the textbook way costs an `exp` (and a normal draw) per leaf, which is
//! slow in wasm, where there is no hardware `exp`. Instead each distribution is tabulated once:
//! 64 random bits are read as a uniform `u`, folded to the smaller tail probability
//! `v = min(u, 1 − u)` in `(0, 1/2)`, and `v` is located by its binary exponent (the *octave*,
//! `v` in `[2^-(o+2), 2^-(o+1))`) and the next 6 bits (one of 64 equal *cells* in that octave).
//! The table holds the exact quantile at every cell edge; within a cell the quantile is
//! interpolated linearly in `v`.
//!
//! What that means for the distribution, precisely:
//! - every cell edge is an exact quantile, so the sampled CDF equals the true CDF at
//!   `64 × 48 × 2` probability levels, spaced 1.6% apart *relative to the tail probability*,
//!   from the median out to tail probabilities of `2^-49 ≈ 1.8e-15`;
//! - between edges the CDF is linear in the quantile (relative quantile error below 1e-5 for the
//!   lab's profiles, tested in `tests`);
//! - the 2 × 2^-49 of probability beyond the last octave is clamped to the last edge.
//!
//! A draw costs a leading-zero count, a shift, two loads and one multiply-add: integer work and
//! IEEE `+`/`*` only, so it is bit-identical on every target.

/// Cells per octave, as a power of two.
pub const CELL_BITS: u32 = 6;
/// Cells per octave.
pub const CELLS: usize = 1 << CELL_BITS;
/// Octaves of tail probability covered on each side: `v` from 1/2 down to `2^-(OCTAVES+1)`.
pub const OCTAVES: usize = 48;
const ROW: usize = CELLS + 1;

const HALF: usize = OCTAVES * ROW;

/// Where a draw lands in an [`InverseCdfTable`]: a cell, and the position inside it as
/// `frac_bits / 2^53`. Always a valid point of every table (`cell + 1 < 2 · HALF`,
/// `frac_bits < 2^53`): [`InverseCdfTable::locate`] and [`TablePoint::new`] are the only ways
/// to make one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TablePoint {
    cell: usize,
    frac_bits: u64,
}

/// One past the largest `frac_bits`.
pub const FRAC_ONE: u64 = 1 << 53;

impl TablePoint {
    /// The point `frac_bits / 2^53` of the way through cell `cell`, if both are in range.
    pub fn new(cell: usize, frac_bits: u64) -> Option<Self> {
        (cell + 1 < 2 * HALF && frac_bits < FRAC_ONE).then_some(TablePoint { cell, frac_bits })
    }

    /// Index of the cell's lower edge (below [`InverseCdfTable::CELL_INDICES`]).
    pub fn cell(self) -> usize {
        self.cell
    }

    /// Position inside the cell, in units of 2^-53 of its width.
    pub fn frac_bits(self) -> u64 {
        self.frac_bits
    }
}

/// Quantiles of one distribution at tail-accurate probability levels.
#[derive(Debug, Clone, PartialEq)]
pub struct InverseCdfTable {
    /// `Q(v)` at the cell edges of the lower half (`u = v`), then `Q(1 − v)` at those of the
    /// upper half (`u = 1 − v`): one array, so the half is an offset, not a branch.
    edges: Box<[f64]>,
}

/// The tail probability `v` of cell edge `cell` (0..=CELLS) in `octave`.
pub fn edge_probability(octave: usize, cell: usize) -> f64 {
    libm::ldexp(1.0 + cell as f64 / CELLS as f64, -(octave as i32 + 2))
}

impl InverseCdfTable {
    /// Tabulates a distribution from its two tail quantile functions:
    /// `lower(v) = Q(v)` and `upper(v) = Q(1 − v)` for `v` in `(0, 1/2]`.
    pub fn from_tail_quantiles(lower: impl Fn(f64) -> f64, upper: impl Fn(f64) -> f64) -> Self {
        let mut edges = Vec::with_capacity(2 * HALF);
        for quantile in [&lower as &dyn Fn(f64) -> f64, &upper] {
            for octave in 0..OCTAVES {
                for cell in 0..ROW {
                    edges.push(quantile(edge_probability(octave, cell)));
                }
            }
        }
        InverseCdfTable {
            edges: edges.into_boxed_slice(),
        }
    }

    /// The quantile at the uniform encoded by 64 random bits.
    #[inline(always)]
    pub fn sample(&self, bits: u64) -> f64 {
        self.value_at(Self::locate(bits))
    }

    /// Where 64 random bits land in the table: the cell and the position inside it. Every
    /// draw is `value_at(locate(bits))`, so a per-cell map (such as
    /// [`crate::sampling::cell_bins::BinnedTable`]) sees exactly the draw [`Self::sample`] makes.
    #[inline(always)]
    pub fn locate(bits: u64) -> TablePoint {
        // All ones when the top bit is set (upper half), else zero: no branch on the half,
        // which is a coin flip per draw and would mispredict half the time.
        let side = ((bits as i64) >> 63) as u64;
        // Fold to the tail: w / 2^64 = v in [0, 1/2).
        let w = (bits ^ side) & (u64::MAX >> 1);
        let lz = w.leading_zeros() as usize; // ≥ 1 because the top bit is clear
        let half = (side as usize) & HALF;
        let octave = lz - 1;
        if octave >= OCTAVES {
            // Beyond the deepest octave: the deepest edge itself, which is the first cell of
            // the last octave at position 0 (`a + 0 · (b − a) = a`).
            return TablePoint {
                cell: half + (OCTAVES - 1) * ROW,
                frac_bits: 0,
            };
        }
        let shifted = w << lz; // leading one now at bit 63
        let cell = ((shifted >> (63 - CELL_BITS)) as usize) & (CELLS - 1);
        TablePoint {
            cell: half + octave * ROW + cell,
            frac_bits: (shifted << (1 + CELL_BITS)) >> 11,
        }
    }

    /// The quantile at a point: linear between the cell's two edges. Monotone in
    /// `frac_bits` within a cell, since each IEEE operation rounds monotonically;
    /// [`crate::sampling::cell_bins`] relies on that.
    #[inline(always)]
    pub fn value_at(&self, point: TablePoint) -> f64 {
        let TablePoint { cell, frac_bits } = point;
        // Below 2^53, so the conversion is exact and the same on every target. (Written as
        // signed because V8 expands wasm's unsigned conversion into a test and a branch; LLVM
        // knows the value is non-negative and emits the unsigned one for wasm all the same.)
        let frac = (frac_bits as i64) as f64 * (1.0 / (1u64 << 53) as f64);
        debug_assert!(cell + 1 < self.edges.len());
        // SAFETY: a `TablePoint` always has `cell + 1 < 2·HALF` (`TablePoint::new` checks it;
        // `locate` gives `cell = half + octave·ROW + c` with `half` 0 or HALF, `octave <
        // OCTAVES` and `c < CELLS = ROW − 1`, so `cell + 1 ≤ HALF + (OCTAVES − 1)·ROW + ROW −
        // 1 < 2·HALF`), and `from_tail_quantiles`, the only constructor, always builds
        // `2·HALF` edges. Unchecked because this is the hottest load in the lab and wasm
        // cannot elide the check.
        let (a, b) = unsafe {
            (
                *self.edges.get_unchecked(cell),
                *self.edges.get_unchecked(cell + 1),
            )
        };
        a + frac * (b - a)
    }

    /// The smallest and the largest value any draw can take (ms for a latency table): every
    /// draw lies between two edges.
    pub fn value_range(&self) -> (f64, f64) {
        self.edges
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &e| {
                (lo.min(e), hi.max(e))
            })
    }

    /// Every [`TablePoint::cell`] is below this bound.
    pub const CELL_INDICES: usize = 2 * HALF - 1;

    /// The tail probability `v` and side that `bits` encodes (for tests): `(upper, v)`.
    pub fn tail_of(bits: u64) -> (bool, f64) {
        let upper = (bits >> 63) != 0;
        let w = if upper { !bits } else { bits } & (u64::MAX >> 1);
        (upper, w as f64 / 18_446_744_073_709_551_616.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::address::SampleStream;

    fn uniform_table() -> InverseCdfTable {
        InverseCdfTable::from_tail_quantiles(|v| v, |v| 1.0 - v)
    }

    #[test]
    fn identity_table_returns_the_uniform() {
        // With Q(u) = u the interpolation is exact, so a draw is the uniform it encodes.
        let t = uniform_table();
        let mut s = SampleStream::from_state(42);
        for _ in 0..100_000 {
            let bits = s.next_bits();
            let (upper, v) = InverseCdfTable::tail_of(bits);
            if v < libm::ldexp(1.0, -(OCTAVES as i32 + 1)) {
                continue;
            }
            let want = if upper { 1.0 - v } else { v };
            let got = t.sample(bits);
            assert!(
                (got - want).abs() <= 4e-16 * want.max(1e-300) + 1e-300,
                "{got} {want}"
            );
        }
    }

    #[test]
    fn extremes_hit_the_first_and_last_cells() {
        let t = uniform_table();
        // bits = 0 is the smallest lower-tail uniform: clamped to the deepest edge.
        assert_eq!(t.sample(0), edge_probability(OCTAVES - 1, 0));
        assert_eq!(t.sample(u64::MAX), 1.0 - edge_probability(OCTAVES - 1, 0));
        // Bits just below and above one half sit at the median.
        assert!((t.sample((1 << 63) - 1) - 0.5).abs() < 1e-15);
        assert!((t.sample(1 << 63) - 0.5).abs() < 1e-15);
    }

    #[test]
    fn edges_cover_each_octave_contiguously() {
        for octave in 1..OCTAVES {
            assert_eq!(
                edge_probability(octave, CELLS),
                edge_probability(octave - 1, 0)
            );
        }
        assert_eq!(edge_probability(0, CELLS), 0.5);
    }
}
