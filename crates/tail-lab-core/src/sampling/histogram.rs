//! Running histograms on one shared set of log-spaced bins.
//!
//! Every latency histogram in the lab uses the same edges, [`LogBins`]: 35 bins per octave
//! (each exactly `2^(1/35) − 1 ≈ 2.0%` wide) from 1/16 ms to 2^20 ms (about 17 minutes), 840
//! bins. Samples accumulate into counts, so a run can go to millions of requests without storing
//! or re-sorting anything; percentiles are read back by geometric interpolation inside a bin.
//! Values below the first edge count in bin 0 and values above the last edge in the last bin.
//!
//! Binning is exact (the bin is `floor(35 · log2(t / t0))`) but takes no logarithm: the float's
//! exponent gives the octave, a 1024-entry table indexed by the top mantissa bits gives the bin
//! to within one, and one comparison against the exact edge settles it.

/// Bins per octave.
pub const BINS_PER_OCTAVE: usize = 35;
/// Binary exponent of the first edge: `2^-4 ms = 0.0625 ms`.
pub const FIRST_OCTAVE: i32 = -4;
/// Octaves covered.
pub const OCTAVES: usize = 24;
/// Number of bins.
pub const BIN_COUNT: usize = BINS_PER_OCTAVE * OCTAVES;
// The count as one literal, for text that states it; checked against the product.
macro_rules! bin_count {
    () => {
        840
    };
}
const _: () = assert!(BIN_COUNT == bin_count!());
/// What a histogram's counts must be, in words: a binding's error text for a block of counts.
pub const COUNTS_EXPECTED: &str = concat!("a Float64Array of ", bin_count!(), " counts");
/// Width of every bin, as a ratio of its upper to its lower edge.
pub const BIN_RATIO: f64 = 1.020_001_609_421_199;

use std::sync::OnceLock;

const MANTISSA_LOOKUP_BITS: u32 = 10;

/// The one set of bin edges every histogram in the lab shares.
pub fn shared_bins() -> &'static LogBins {
    static BINS: OnceLock<LogBins> = OnceLock::new();
    BINS.get_or_init(LogBins::new)
}

/// The shared bin edges and the fast binning tables.
#[derive(Debug, Clone)]
pub struct LogBins {
    /// `BIN_COUNT + 1` edges in ms.
    edges: Box<[f64]>,
    /// For each of the 1024 top-mantissa cells, the sub-bin of the cell's lower end.
    cell_bin: Box<[u8]>,
    /// The mantissa bits (52) of `2^(j/35)` for `j` in `0..=35`.
    sub_edge_mantissa: [u64; BINS_PER_OCTAVE + 1],
}

impl Default for LogBins {
    fn default() -> Self {
        Self::new()
    }
}

impl LogBins {
    /// Builds the edges and lookup tables (deterministically, via `libm`).
    pub fn new() -> Self {
        let mut sub = [0.0f64; BINS_PER_OCTAVE + 1];
        let mut sub_edge_mantissa = [0u64; BINS_PER_OCTAVE + 1];
        for (j, s) in sub.iter_mut().enumerate() {
            *s = libm::exp2(j as f64 / BINS_PER_OCTAVE as f64);
            sub_edge_mantissa[j] = if j == BINS_PER_OCTAVE {
                1 << 52
            } else {
                s.to_bits() & ((1 << 52) - 1)
            };
        }
        let mut edges = Vec::with_capacity(BIN_COUNT + 1);
        for o in 0..OCTAVES {
            let base = libm::ldexp(1.0, FIRST_OCTAVE + o as i32);
            for s in sub.iter().take(BINS_PER_OCTAVE) {
                edges.push(base * s);
            }
        }
        edges.push(libm::ldexp(1.0, FIRST_OCTAVE + OCTAVES as i32));
        let cells = 1usize << MANTISSA_LOOKUP_BITS;
        let mut cell_bin = Vec::with_capacity(cells);
        for c in 0..cells {
            let m = (c as u64) << (52 - MANTISSA_LOOKUP_BITS);
            let j = (0..BINS_PER_OCTAVE)
                .rev()
                .find(|&j| sub_edge_mantissa[j] <= m)
                .unwrap_or(0);
            cell_bin.push(j as u8);
        }
        LogBins {
            edges: edges.into_boxed_slice(),
            cell_bin: cell_bin.into_boxed_slice(),
            sub_edge_mantissa,
        }
    }

    /// The `BIN_COUNT + 1` edges in ms.
    pub fn edges(&self) -> &[f64] {
        &self.edges
    }

    /// The bin of a latency `t` (ms); NaN and values ≤ the first edge go to bin 0.
    #[inline(always)]
    pub fn bin_of(&self, t_ms: f64) -> usize {
        let bits = t_ms.to_bits();
        // Sign and exponent together: negative values (sign set) land far above the range,
        // so one unsigned comparison rejects negatives, zero, tiny, huge, ∞ and NaN at once.
        let octave = ((bits >> 52) as u32).wrapping_sub((1023 + FIRST_OCTAVE) as u32) as usize;
        if octave >= OCTAVES {
            // Below the first edge (or not a positive number) or above the last: a select,
            // not a call, so a hot loop that bins stays free of calls.
            return if t_ms > 1.0 { BIN_COUNT - 1 } else { 0 };
        }
        let mantissa = bits & ((1 << 52) - 1);
        let j = self.cell_bin[(mantissa >> (52 - MANTISSA_LOOKUP_BITS)) as usize] as usize;
        // The lookup cell can straddle at most one edge: step past it without a branch.
        // `cell_bin` holds sub-bins below BINS_PER_OCTAVE, so `j + 1` indexes the 36 edges.
        let j = j + usize::from(mantissa >= self.sub_edge_mantissa[j + 1]);
        octave * BINS_PER_OCTAVE + j
    }
}

/// Whole counts on the shared bins for a hot loop, moved into a [`Histogram`] with
/// [`Histogram::take_tally`].
///
/// Recording is one integer add, where a [`Histogram`]'s `f64` add would put a floating-point
/// latency on every sample that lands in the same bin as the last. The counts are `u32`: a
/// tally takes at most [`BinTally::CAPACITY`] samples between takes.
#[derive(Debug, Clone, PartialEq)]
pub struct BinTally {
    /// A power of two past `BIN_COUNT`, so `bin & (SLOTS − 1)` is always in bounds and never
    /// changes a valid bin: the index needs neither a bounds check nor `unsafe`.
    counts: Box<[u32; BinTally::SLOTS]>,
    total: u64,
}

impl Default for BinTally {
    fn default() -> Self {
        Self::new()
    }
}

impl BinTally {
    const SLOTS: usize = BIN_COUNT.next_power_of_two();
    /// Samples a tally can take before it must be emptied.
    pub const CAPACITY: u64 = u32::MAX as u64;

    /// An empty tally.
    pub fn new() -> Self {
        BinTally {
            counts: Box::new([0; Self::SLOTS]),
            total: 0,
        }
    }

    /// Counts one sample in bin `bin` (below `BIN_COUNT`). The caller takes the tally before
    /// [`BinTally::CAPACITY`] samples, so a count never wraps; the add is written as wrapping
    /// so that builds with overflow checks (the shipped wasm has them) carry no check here.
    #[inline(always)]
    pub fn record_bin(&mut self, bin: usize) {
        debug_assert!(bin < BIN_COUNT);
        let count = &mut self.counts[bin & (Self::SLOTS - 1)];
        *count = count.wrapping_add(1);
    }

    /// Adds `n` to the total: the hot loop counts its samples once per request, not per
    /// sample. The caller keeps the total equal to the samples recorded.
    #[inline(always)]
    pub fn add_to_total(&mut self, n: u32) {
        self.total += u64::from(n);
    }
}

/// Counts on the shared bins.
///
/// Counts are `f64` (exact integers up to 2^53) so a JS reader can view them as a
/// `Float64Array` without conversion.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    counts: Vec<f64>,
    total: f64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Histogram {
            counts: vec![0.0; BIN_COUNT],
            total: 0.0,
        }
    }

    /// Adds one latency (ms).
    #[inline(always)]
    pub fn record(&mut self, bins: &LogBins, t_ms: f64) {
        self.record_bin(bins.bin_of(t_ms));
    }

    /// Adds one count to bin `b`.
    #[inline(always)]
    pub fn record_bin(&mut self, b: usize) {
        self.counts[b] += 1.0;
        self.total += 1.0;
    }

    /// Adds `count` (a whole number) to bin `b`: many samples known to share it.
    #[inline]
    pub fn add_bin(&mut self, b: usize, count: f64) {
        debug_assert!(count >= 0.0 && count.fract() == 0.0);
        self.counts[b] += count;
        self.total += count;
    }

    /// The per-bin counts.
    pub fn counts(&self) -> &[f64] {
        &self.counts
    }

    /// Number of samples recorded.
    pub fn total(&self) -> f64 {
        self.total
    }

    /// Adds another histogram's counts (as [`Histogram::counts`] gives them) and their total.
    /// Counts are whole numbers below 2^53, so the sum is exact and the same in any order:
    /// merging the same pieces in any grouping gives the same bits.
    pub fn add_counts(&mut self, counts: &[f64], total: f64) {
        debug_assert_eq!(counts.len(), self.counts.len());
        for (mine, theirs) in self.counts.iter_mut().zip(counts) {
            *mine += theirs;
        }
        self.total += total;
    }

    /// Moves a tally's counts into this histogram (exactly: both hold whole numbers) and
    /// empties the tally.
    pub fn take_tally(&mut self, tally: &mut BinTally) {
        for (mine, theirs) in self.counts.iter_mut().zip(tally.counts.iter_mut()) {
            *mine += f64::from(*theirs);
            *theirs = 0;
        }
        debug_assert!(tally.counts[BIN_COUNT..].iter().all(|&c| c == 0));
        self.total += tally.total as f64;
        tally.total = 0;
    }

    /// Empties the histogram.
    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0.0);
        self.total = 0.0;
    }

    /// Fraction of samples above `t` ms, counting a straddled bin by geometric interpolation.
    pub fn survival(&self, bins: &LogBins, t_ms: f64) -> f64 {
        if self.total == 0.0 {
            return f64::NAN;
        }
        let b = bins.bin_of(t_ms);
        let above: f64 = self.counts[b + 1..].iter().sum();
        let (lo, hi) = (bins.edges[b], bins.edges[b + 1]);
        let inside = if t_ms <= lo {
            1.0
        } else if t_ms >= hi {
            0.0
        } else {
            libm::log(hi / t_ms) / libm::log(hi / lo)
        };
        (above + inside * self.counts[b]) / self.total
    }

    /// The `q`-quantile (q in 0..=1) in ms, or NaN when the histogram is empty.
    ///
    /// The quantile's rank `q · total` is located in the cumulative counts and interpolated
    /// geometrically inside its bin, so the error is at most one bin (2%), and much less where
    /// the density is smooth.
    pub fn percentile(&self, bins: &LogBins, q: f64) -> f64 {
        if self.total == 0.0 || !(0.0..=1.0).contains(&q) {
            return f64::NAN;
        }
        let rank = q * self.total;
        let mut below = 0.0;
        for (b, &c) in self.counts.iter().enumerate() {
            if c > 0.0 && below + c >= rank {
                let f = ((rank - below) / c).clamp(0.0, 1.0);
                return bins.edges[b] * libm::exp2(f / BINS_PER_OCTAVE as f64);
            }
            below += c;
        }
        bins.edges[BIN_COUNT]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::address::SampleStream;

    #[test]
    fn ratio_constant_matches_the_edges() {
        let bins = LogBins::new();
        for w in bins.edges().windows(2) {
            assert!((w[1] / w[0] - BIN_RATIO).abs() < 1e-12);
        }
        assert_eq!(bins.edges().len(), BIN_COUNT + 1);
        assert_eq!(bins.edges()[0], 0.0625);
    }

    #[test]
    fn binning_agrees_with_the_logarithm() {
        let bins = LogBins::new();
        let mut s = SampleStream::from_state(3);
        for _ in 0..200_000 {
            // Log-uniform over the whole range.
            let t = libm::exp2(FIRST_OCTAVE as f64 + s.next_unit() * OCTAVES as f64);
            let b = bins.bin_of(t);
            assert!(
                bins.edges()[b] <= t && t < bins.edges()[b + 1],
                "t={t} b={b}"
            );
        }
        // Every edge belongs to the bin it opens.
        for (b, &e) in bins.edges().iter().enumerate().take(BIN_COUNT) {
            assert_eq!(bins.bin_of(e), b);
        }
    }

    #[test]
    fn out_of_range_values_are_clamped() {
        let bins = LogBins::new();
        assert_eq!(bins.bin_of(0.0), 0);
        assert_eq!(bins.bin_of(-3.0), 0);
        assert_eq!(bins.bin_of(f64::NAN), 0);
        assert_eq!(bins.bin_of(1e-9), 0);
        assert_eq!(bins.bin_of(1e12), BIN_COUNT - 1);
        assert_eq!(bins.bin_of(f64::INFINITY), BIN_COUNT - 1);
    }

    #[test]
    fn percentiles_invert_a_known_distribution() {
        // Log-uniform between 1 and 1024 ms: the q-quantile is 2^(10q).
        let bins = LogBins::new();
        let mut h = Histogram::new();
        let n = 1_000_000;
        for i in 0..n {
            h.record(&bins, libm::exp2(10.0 * (i as f64 + 0.5) / n as f64));
        }
        for q in [0.01, 0.25, 0.5, 0.9, 0.99, 0.999] {
            let want = libm::exp2(10.0 * q);
            let got = h.percentile(&bins, q);
            assert!(
                (got / want - 1.0).abs() < 1e-3,
                "q={q} got={got} want={want}"
            );
            assert!((h.survival(&bins, want) - (1.0 - q)).abs() < 1e-4);
        }
        assert!(Histogram::new().percentile(&bins, 0.5).is_nan());
    }
}
