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
        // All ones when the top bit is set (upper half), else zero: no branch on the half,
        // which is a coin flip per draw and would mispredict half the time.
        let side = ((bits as i64) >> 63) as u64;
        // Fold to the tail: w / 2^64 = v in [0, 1/2).
        let w = (bits ^ side) & (u64::MAX >> 1);
        let lz = w.leading_zeros() as usize; // ≥ 1 because the top bit is clear
        let half = (side as usize) & HALF;
        let octave = lz - 1;
        if octave >= OCTAVES {
            return self.edges[half + (OCTAVES - 1) * ROW];
        }
        let shifted = w << lz; // leading one now at bit 63
        let cell = ((shifted >> (63 - CELL_BITS)) as usize) & (CELLS - 1);
        // Below 2^53, so the signed conversion is exact and identical; wasm has no single
        // instruction for unsigned 64-bit → f64 on x86 and V8 emits a branchy sequence.
        let frac =
            (((shifted << (1 + CELL_BITS)) >> 11) as i64) as f64 * (1.0 / (1u64 << 53) as f64);
        let at = half + octave * ROW + cell;
        debug_assert!(at + 1 < self.edges.len());
        // SAFETY: `half` is 0 or HALF, `octave < OCTAVES` (checked above) and
        // `cell < CELLS = ROW − 1`, so `at + 1 ≤ HALF + (OCTAVES − 1)·ROW + ROW − 1 < 2·HALF`,
        // the length `from_tail_quantiles` always builds. Unchecked because this is the
        // hottest load in the lab and wasm cannot elide the check.
        let (a, b) = unsafe {
            (
                *self.edges.get_unchecked(at),
                *self.edges.get_unchecked(at + 1),
            )
        };
        a + frac * (b - a)
    }

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
