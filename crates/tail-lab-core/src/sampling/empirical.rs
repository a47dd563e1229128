//! A distribution given by measured latencies: its quantile function at knots, linear between
//! them. This is what a reader's own data becomes ([`crate::lab::empirical`] builds it from
//! samples, percentiles or histogram buckets), and everything the Lab computes on it (draws,
//! `F(t)`, quantiles, moments) reads the same knots, so a simulation and its closed form agree
//! about the distribution exactly.
//!
//! A quantile function linear between knots is a density constant between them: `F` is linear
//! in `t` on each segment, and a segment whose two knots share a time is an atom (a value the
//! data repeats). From samples `x₍₀₎ ≤ … ≤ x₍ₙ₋₁₎` the knots are the order statistics at levels
//! `i / (n − 1)`: the interpolated empirical CDF, exactly, for up to [`MAX_KNOTS`] samples, and
//! a subset of them beyond ([`EmpiricalDistribution::from_samples`]).
//!
//! A draw reads 53 random bits as a level `u` in `[0, 1)`, finds its segment through a guide
//! table (Chen and Asau's indexed search: the segment of `u` is at or just after the one of
//! `⌊u·G⌋ / G`, whose index is the random word's top bits; a step past one knot is taken
//! without a branch), and interpolates with a multiply-add: IEEE `+ − ×` only, so it is
//! bit-identical on every target. A binned draw (the Tail page's histograms) reads its bin from
//! its segment when the whole segment lies in one bin.

use crate::error::{CountRange, ParamError};
use crate::sampling::histogram::{LogBins, shared_bins};

/// Marks a segment that crosses a bin edge (or comes near one).
const SPREAD: u16 = u16::MAX;

/// Most knots a distribution keeps. Up to this many samples, every order statistic is a knot
/// (the interpolated empirical CDF itself); above it, [`EmpiricalDistribution::from_samples`]
/// keeps a subset whose CDF is within `1/8192` of the full one everywhere, and within a
/// thousandth of the tail probability in either tail.
pub const MAX_KNOTS: usize = 1 << 16;

/// The knots a distribution given by its knots may have, as the length of either list: 2 to
/// [`MAX_KNOTS`] + 2.
pub const KNOTS: CountRange = CountRange {
    lo: 2,
    hi: MAX_KNOTS as u64 + 2,
    expected: "a length in 2..=65538",
};

/// Knots in the middle of a compressed sample are at most `n / MIDDLE_STEPS` ranks apart.
const MIDDLE_STEPS: usize = 8192;
/// In the tails of a compressed sample, knots are at most a `1/TAIL_STEPS` of their distance to
/// the nearer end apart (in ranks), so the extreme tail keeps every order statistic.
const TAIL_STEPS: usize = 1024;

/// A distribution as a quantile function linear between knots `(level, ms)`: levels from 0 to
/// 1, strictly increasing; times (ms) positive and non-decreasing.
#[derive(Debug, Clone)]
pub struct EmpiricalDistribution {
    levels: Box<[f64]>,
    ms: Box<[f64]>,
    /// Each segment as `[level at its start, level at its end, time at its start (ms), ms per
    /// unit of level]`, side by side: a draw reads one of these (half a cache line) instead of
    /// four arrays, and multiplies where a quotient would divide.
    segments: Box<[[f64; 4]]>,
    /// Each segment's shared-histogram bin when all of it lies in one bin (with a margin for
    /// rounding), else [`SPREAD`]: a binned draw then needs no `bin_of`.
    segment_bins: Box<[u16]>,
    /// `guide[j]`: the segment holding level `j / guide.len()`, a power of two at least 2.
    guide: Box<[u32]>,
    /// `64 − log2(guide.len())`: the guide index is the random word's top bits.
    guide_shift: u32,
    mean_ms: f64,
    second_moment_ms2: f64,
}

impl PartialEq for EmpiricalDistribution {
    /// The same knots: everything else is computed from them.
    fn eq(&self, other: &Self) -> bool {
        self.levels == other.levels && self.ms == other.ms
    }
}

fn invalid(param: &'static str, got: f64, expected: &'static str) -> ParamError {
    ParamError::OutOfRange {
        param,
        got,
        expected,
    }
}

impl EmpiricalDistribution {
    /// The distribution whose quantile function is linear between the knots `(levels[i],
    /// ms[i])`: `levels` strictly increasing from exactly 0 to exactly 1, `ms` finite, positive
    /// and non-decreasing, at least two knots, at most [`MAX_KNOTS`] + 2, and not all at one
    /// time. This is the form that crosses between threads and to JS.
    pub fn from_knots(levels: Vec<f64>, ms: Vec<f64>) -> Result<Self, ParamError> {
        if levels.len() != ms.len() {
            return Err(ParamError::Conflict {
                param: "knots",
                reason: format!(
                    "need as many levels as times (got {} levels and {} times)",
                    levels.len(),
                    ms.len()
                ),
            });
        }
        if levels.len() < 2 || levels.len() > MAX_KNOTS + 2 {
            return Err(invalid(
                "knots",
                levels.len() as f64,
                "a count of knots in 2..=65538",
            ));
        }
        if levels[0] != 0.0 || levels[levels.len() - 1] != 1.0 {
            return Err(invalid(
                "knots.levels",
                if levels[0] != 0.0 {
                    levels[0]
                } else {
                    levels[levels.len() - 1]
                },
                "levels that start at exactly 0 and end at exactly 1",
            ));
        }
        if let Some(w) = levels.windows(2).find(|w| w[1].is_nan() || w[1] <= w[0]) {
            return Err(invalid(
                "knots.levels",
                w[1],
                "strictly increasing levels in 0..=1",
            ));
        }
        if let Some(&t) = ms.iter().find(|t| !(t.is_finite() && **t > 0.0)) {
            return Err(invalid("knots.ms", t, "finite times above 0 ms"));
        }
        if let Some(w) = ms.windows(2).find(|w| w[1] < w[0]) {
            return Err(invalid(
                "knots.ms",
                w[1],
                "times that never decrease as the level rises",
            ));
        }
        if ms[0] == ms[ms.len() - 1] {
            return Err(invalid(
                "knots.ms",
                ms[0],
                "times that are not all equal (a latency distribution needs a spread)",
            ));
        }
        Ok(Self::build(levels.into(), ms.into()))
    }

    /// Knots already checked.
    fn build(levels: Box<[f64]>, ms: Box<[f64]>) -> Self {
        let segments = levels.len() - 1;
        let size = segments.next_power_of_two().max(2);
        let mut guide = Vec::with_capacity(size);
        let mut i = 0usize;
        for j in 0..size {
            let u = j as f64 / size as f64;
            while i + 1 < segments && levels[i + 1] <= u {
                i += 1;
            }
            guide.push(i as u32);
        }
        let (mut mean, mut second) = (0.0, 0.0);
        for k in 0..segments {
            let (w, a, b) = (levels[k + 1] - levels[k], ms[k], ms[k + 1]);
            mean += w * (a + b) / 2.0;
            second += w * (a * a + a * b + b * b) / 3.0;
        }
        let segments: Box<[[f64; 4]]> = (0..segments)
            .map(|k| {
                let (u0, u1, a, b) = (levels[k], levels[k + 1], ms[k], ms[k + 1]);
                // The last segment ends at 1 exactly, above every level a draw reads, so the
                // guide's walk always stops inside the array.
                [u0, u1, a, (b - a) / (u1 - u0)]
            })
            .collect();
        let bins = shared_bins();
        let segment_bins = segments
            .iter()
            .zip(ms.windows(2))
            .map(|(_, w)| {
                // A draw is within a few ulps of its segment's ends: a margin of 1e-9 relative
                // keeps a segment that ends near an edge out of the shortcut.
                let (lo, hi) = (
                    bins.bin_of(w[0] * (1.0 - 1e-9)),
                    bins.bin_of(w[1] * (1.0 + 1e-9)),
                );
                if lo == hi && lo < usize::from(SPREAD) {
                    lo as u16
                } else {
                    SPREAD
                }
            })
            .collect();
        EmpiricalDistribution {
            levels,
            ms,
            segments,
            segment_bins,
            guide_shift: 64 - size.trailing_zeros(),
            guide: guide.into(),
            mean_ms: mean,
            second_moment_ms2: second,
        }
    }

    /// The interpolated empirical CDF of `samples` (ms, each finite and positive; at least two
    /// distinct values): knot `i` is the `i`-th smallest sample at level `i / (n − 1)`.
    ///
    /// Above [`MAX_KNOTS`] samples it keeps the order statistics at ranks at most `n / 8192`
    /// apart, and in the tails at most a 1/1024 of their distance to the nearer end apart (so
    /// the last 1024 at either end are all kept): the CDF differs from the full interpolated
    /// one by less than `1/8192` anywhere and by less than a thousandth of the tail
    /// probability in either tail. 10⁶ samples keep about 16,000 knots.
    pub fn from_samples(mut samples: Vec<f64>) -> Result<Self, ParamError> {
        if let Some(&x) = samples.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
            return Err(invalid("samples", x, "finite latencies above 0 ms"));
        }
        if samples.len() < 2 {
            return Err(invalid(
                "samples",
                samples.len() as f64,
                "at least two latencies",
            ));
        }
        sort_positive(&mut samples);
        let n = samples.len();
        let last = (n - 1) as f64;
        let ranks: Vec<usize> = if n <= MAX_KNOTS {
            (0..n).collect()
        } else {
            let mut ranks = Vec::new();
            let mut r = 0usize;
            while r < n - 1 {
                ranks.push(r);
                let nearer_end = r.min(n - 1 - r);
                r += (nearer_end / TAIL_STEPS).clamp(1, (n / MIDDLE_STEPS).max(1));
            }
            ranks.push(n - 1);
            ranks
        };
        let levels: Box<[f64]> = ranks.iter().map(|&r| r as f64 / last).collect();
        let ms: Box<[f64]> = ranks.iter().map(|&r| samples[r]).collect();
        if ms[0] == ms[ms.len() - 1] {
            return Err(invalid(
                "samples",
                ms[0],
                "latencies that are not all the same value (a latency distribution needs a spread)",
            ));
        }
        Ok(Self::build(levels, ms))
    }

    /// The knots' levels (fractions 0..=1, strictly increasing, first 0 and last 1).
    pub fn levels(&self) -> &[f64] {
        &self.levels
    }

    /// The knots' times (ms, non-decreasing).
    pub fn knot_ms(&self) -> &[f64] {
        &self.ms
    }

    /// The smallest and largest value a draw can take (ms).
    pub fn range_ms(&self) -> (f64, f64) {
        (self.ms[0], self.ms[self.ms.len() - 1])
    }

    /// The segment `[levels[i], levels[i + 1])` that holds level `u` in `[0, 1)`, walking
    /// from guide entry `j` (the one of `⌊u·G⌋ / G`).
    #[inline(always)]
    fn walk(&self, j: usize, u: f64) -> usize {
        let mut i = self.guide[j] as usize;
        // One step without a branch (the common case: the level is past one knot in the guide's
        // cell), then a loop a level in the dense tail of a fit may need.
        i += usize::from(self.segments[i][1] <= u);
        while self.segments[i][1] <= u {
            i += 1;
        }
        i
    }

    /// The segment that holds level `u` in `[0, 1)`.
    fn segment_of(&self, u: f64) -> usize {
        self.walk((u * self.guide.len() as f64) as usize, u)
    }

    /// The time (ms) at level `u` inside segment `i`: the draw and the quantile alike.
    #[inline(always)]
    fn at(&self, i: usize, u: f64) -> f64 {
        let [u0, _, t0, slope] = self.segments[i];
        t0 + slope * (u - u0)
    }

    /// The exact `q`-quantile (ms), `q` clamped to 0..=1.
    pub fn quantile(&self, q: f64) -> f64 {
        let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
        if q >= 1.0 {
            return self.ms[self.ms.len() - 1];
        }
        self.at(self.segment_of(q), q)
    }

    /// `P(X ≤ t)` for `t` in ms: linear on each segment; at a repeated time, the level of its
    /// last knot (the atom's whole mass is at or below it).
    pub fn cdf(&self, t_ms: f64) -> f64 {
        if t_ms.is_nan() {
            return f64::NAN;
        }
        // Knots at or below t.
        let j = self.ms.partition_point(|&x| x <= t_ms);
        if j == 0 {
            return 0.0;
        }
        if j == self.ms.len() {
            return 1.0;
        }
        let i = j - 1; // ms[i] ≤ t < ms[i + 1]
        let (a, b) = (self.ms[i], self.ms[i + 1]);
        let (u0, u1) = (self.levels[i], self.levels[i + 1]);
        u0 + (u1 - u0) * ((t_ms - a) / (b - a))
    }

    /// `P(X < t)` for `t` in ms: [`Self::cdf`] from the left, without the mass of an atom at
    /// `t` (what a Kolmogorov–Smirnov distance needs at a repeated value).
    pub fn cdf_below(&self, t_ms: f64) -> f64 {
        if t_ms.is_nan() {
            return f64::NAN;
        }
        // Knots strictly below t.
        let j = self.ms.partition_point(|&x| x < t_ms);
        if j == 0 {
            return 0.0;
        }
        if j == self.ms.len() {
            return 1.0;
        }
        let i = j - 1; // ms[i] < t ≤ ms[i + 1]
        let (a, b) = (self.ms[i], self.ms[i + 1]);
        let (u0, u1) = (self.levels[i], self.levels[i + 1]);
        u0 + (u1 - u0) * ((t_ms - a) / (b - a))
    }

    /// `P(X > t)` for `t` in ms.
    pub fn survival(&self, t_ms: f64) -> f64 {
        1.0 - self.cdf(t_ms)
    }

    /// Mean (ms), exactly: each segment's mass times its midpoint.
    pub fn mean_ms(&self) -> f64 {
        self.mean_ms
    }

    /// Second moment (ms²), exactly: a segment from `a` to `b` contributes `(a² + ab + b²)/3`
    /// times its mass.
    pub fn second_moment_ms2(&self) -> f64 {
        self.second_moment_ms2
    }

    /// The segment and level of a draw from 64 random bits: the top 53 are the level `u`, and
    /// the top `log2 G` of those its guide entry (`⌊u·G⌋`, exactly, with no float conversion).
    #[inline(always)]
    fn locate(&self, bits: u64) -> (usize, f64) {
        // Through i64: a signed conversion is one instruction in wasm, an unsigned one several.
        let u = ((bits >> 11) as i64) as f64 * (1.0 / (1u64 << 53) as f64);
        (self.walk((bits >> self.guide_shift) as usize, u), u)
    }

    /// One draw (ms) from 64 random bits (the top 53 are the level).
    #[inline]
    pub fn sample(&self, bits: u64) -> f64 {
        let (i, u) = self.locate(bits);
        self.at(i, u)
    }

    /// One draw (ms) and its bin on `bins` ([`shared_bins`]): the same draw as
    /// [`Self::sample`], and exactly `bins.bin_of` of it, read from the segment where the whole
    /// segment lies in one bin.
    #[inline]
    pub fn sample_binned(&self, bits: u64, bins: &LogBins) -> (f64, usize) {
        let (i, u) = self.locate(bits);
        let t = self.at(i, u);
        let bin = self.segment_bins[i];
        if bin == SPREAD {
            (t, bins.bin_of(t))
        } else {
            (t, usize::from(bin))
        }
    }
}

/// Sorts finite positive numbers ascending. Their IEEE bits, read as integers, sort in the same
/// order, so a least-significant-digit radix sort on those bits (eight passes of one byte,
/// skipping a byte all keys share) sorts 10⁷ of them several times faster than a comparison
/// sort, which matters in wasm, where a reader's file of latencies is turned into a model.
fn sort_positive(values: &mut [f64]) {
    if values.len() < 4096 {
        values.sort_unstable_by(f64::total_cmp);
        return;
    }
    let mut keys: Vec<u64> = values.iter().map(|x| x.to_bits()).collect();
    let mut scratch = vec![0u64; keys.len()];
    for pass in 0..8 {
        let shift = pass * 8;
        let mut counts = [0usize; 256];
        for &k in &keys {
            counts[((k >> shift) & 0xFF) as usize] += 1;
        }
        if counts.contains(&keys.len()) {
            continue;
        }
        let mut start = 0;
        for c in counts.iter_mut() {
            let here = *c;
            *c = start;
            start += here;
        }
        for &k in &keys {
            let b = ((k >> shift) & 0xFF) as usize;
            scratch[counts[b]] = k;
            counts[b] += 1;
        }
        std::mem::swap(&mut keys, &mut scratch);
    }
    for (v, k) in values.iter_mut().zip(keys) {
        *v = f64::from_bits(k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_become_the_interpolated_ecdf() {
        let d = EmpiricalDistribution::from_samples(vec![4.0, 1.0, 3.0, 2.0, 5.0]).unwrap();
        assert_eq!(d.levels(), &[0.0, 0.25, 0.5, 0.75, 1.0]);
        assert_eq!(d.knot_ms(), &[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(d.quantile(0.5), 3.0);
        assert_eq!(d.quantile(0.125), 1.5);
        assert_eq!(d.cdf(3.5), 0.625);
        assert_eq!(d.cdf(0.5), 0.0);
        assert_eq!(d.cdf(5.0), 1.0);
        // Uniform between knots: mean 3, E[X²] = Σ ¼·(a² + ab + b²)/3 = ¼·(7 + 19 + 37 + 61)/3 = 31/3.
        assert!((d.mean_ms() - 3.0).abs() < 1e-15);
        assert!((d.second_moment_ms2() / (31.0 / 3.0) - 1.0).abs() < 1e-14);
        // Draws at levels 0, ½ and just under 1.
        assert_eq!(d.sample(0), 1.0);
        assert_eq!(d.sample(1 << 63), 3.0);
        assert!(d.sample(u64::MAX) <= 5.0 && d.sample(u64::MAX) > 4.999_999);
    }

    #[test]
    fn a_repeated_value_is_an_atom() {
        let d = EmpiricalDistribution::from_samples(vec![1.0, 2.0, 2.0, 2.0, 3.0]).unwrap();
        // Levels ¼ to ¾ are all at 2 ms: F jumps from ¼ to ¾ there.
        assert_eq!(d.cdf(2.0), 0.75);
        assert_eq!(d.cdf_below(2.0), 0.25);
        assert_eq!(d.cdf_below(1.5), d.cdf(1.5));
        assert!((d.cdf(1.999_999_999) - 0.25 * 0.999_999_999).abs() < 1e-15);
        assert_eq!(d.quantile(0.6), 2.0);
        assert_eq!(d.sample(1 << 63), 2.0);
    }

    #[test]
    fn bad_samples_are_refused_by_name() {
        for bad in [
            vec![1.0, f64::NAN],
            vec![1.0, -2.0],
            vec![0.0, 1.0],
            vec![1.0],
        ] {
            let e = EmpiricalDistribution::from_samples(bad).unwrap_err();
            assert_eq!(e.param(), "samples");
        }
        let e = EmpiricalDistribution::from_samples(vec![7.0; 10]).unwrap_err();
        assert!(e.to_string().contains("not all the same"), "{e}");
        assert!(EmpiricalDistribution::from_knots(vec![0.0, 0.5], vec![1.0, 2.0]).is_err());
        assert!(EmpiricalDistribution::from_knots(vec![0.0, 0.5, 0.5, 1.0], vec![1.0; 4]).is_err());
        assert!(EmpiricalDistribution::from_knots(vec![0.0, 1.0], vec![2.0, 1.0]).is_err());
        assert!(EmpiricalDistribution::from_knots(vec![0.0, 1.0], vec![1.0, 2.0]).is_ok());
    }

    #[test]
    fn a_binned_draw_is_exactly_bin_of_the_draw() {
        let bins = shared_bins();
        let d = EmpiricalDistribution::from_samples(
            (1..=3000)
                .map(|i| 0.05 + libm::pow(f64::from(i), 1.7) * 0.01)
                .collect(),
        )
        .unwrap();
        let mut state = 7u64;
        let mut shortcut = 0;
        for _ in 0..200_000 {
            state = crate::sampling::address::mix64(state);
            let (t, bin) = d.sample_binned(state, bins);
            assert_eq!(t.to_bits(), d.sample(state).to_bits());
            assert_eq!(bin, bins.bin_of(t), "{t}");
            shortcut += usize::from(d.segment_bins[d.locate(state).0] != SPREAD);
        }
        assert!(
            shortcut > 150_000,
            "{shortcut} of 200,000 draws took the shortcut"
        );
    }

    #[test]
    fn knots_round_trip() {
        let d =
            EmpiricalDistribution::from_samples((1..=1000).map(|i| f64::from(i).sqrt()).collect())
                .unwrap();
        let e =
            EmpiricalDistribution::from_knots(d.levels().to_vec(), d.knot_ms().to_vec()).unwrap();
        assert_eq!(d, e);
        assert_eq!(d.mean_ms().to_bits(), e.mean_ms().to_bits());
    }

    #[test]
    fn radix_sort_agrees_with_a_comparison_sort() {
        let mut x: Vec<f64> = (0..100_000u64)
            .map(|i| {
                let m = crate::sampling::address::mix64(i);
                // Positive values over many binades, with repeats.
                f64::from((m >> 40) as u32 % 5000 + 1)
                    * libm::exp2(f64::from((m & 31) as u32) - 16.0)
            })
            .collect();
        let mut y = x.clone();
        sort_positive(&mut x);
        y.sort_unstable_by(f64::total_cmp);
        assert_eq!(x, y);
    }

    #[test]
    fn compressed_samples_stay_within_their_stated_cdf_error() {
        // 300,001 samples of a smooth law: compression keeps a subset of knots, and the CDF of
        // the kept knots is within 1/8192 of the full interpolated ECDF everywhere (checked at
        // every order statistic, where the full one is exact), and within a thousandth of the
        // tail probability in the tails.
        let n = 300_001usize;
        let x: Vec<f64> = (0..n)
            .map(|i| {
                let u = (i as f64 + 0.5) / n as f64;
                -libm::log(1.0 - u) * 10.0 + 0.5
            })
            .collect();
        let d = EmpiricalDistribution::from_samples(x.clone()).unwrap();
        assert!(d.levels().len() < 20_000, "{} knots", d.levels().len());
        let last = (n - 1) as f64;
        for (r, &t) in x.iter().enumerate() {
            let full = r as f64 / last;
            let tail = full.min(1.0 - full);
            let err = (d.cdf(t) - full).abs();
            assert!(err <= 1.0 / 8192.0 + 1e-12, "rank {r}: {err}");
            assert!(
                err <= tail / 1000.0 + 1.0 / last,
                "rank {r}: {err} at tail {tail}"
            );
        }
    }
}
