//! Batch means: a 95% interval for a run's mean and its quantiles, from one run whose samples
//! are correlated (a queue's consecutive waits are).
//!
//! A run's measured samples are stored, in the order they are measured, in [`BATCHES`] batches
//! of (nearly) equal size, and the intervals are taken over [`INTERVAL_BATCHES`] = 5 of them,
//! each four stored batches merged. Batches far longer than the run's correlation time are
//! nearly independent, and their means nearly normal, so `(mean of the batch means − truth)`
//! over their standard error is Student's t with `5 − 1` degrees of freedom (Law & Kelton,
//! *Simulation Modeling and Analysis*, §9.5.2). The same holds for a quantile through the
//! indicator `1{X ≤ q̂}`: each batch's share of samples at or below the run's own estimate `q̂`
//! is a batch mean, its t-interval is an interval on the level, and the run's histogram turns
//! the level's two ends back into latencies.
//!
//! **Why five batches, not twenty** (issue 33). Near saturation a queue remembers its past for
//! longer than a twentieth of any run the page can afford, twenty batch means are then
//! correlated, and their interval is too narrow. Five batches are each four times longer.
//! Measured on 10 M/M/1 queues from empty, their sojourns interleaved (a stand-in for random
//! assignment; 200 seeds a case, the share of runs whose interval held the closed form, mean /
//! p99):
//!
//! | load, sojourns a server | twenty batches | ten | five |
//! |---|---|---|---|
//! | 0.5, 2,000 | 95% / 94% | 94% / 93% | 97% / 95% |
//! | 0.9, 9,000 | 87% / 83% | 93% / 86% | 93% / 90% |
//! | 0.95, 10,000 | 67% / 66% | 80% / 77% | 87% / 85% |
//! | 0.95, 40,000 | 85% / 83% | 90% / 88% | 94% / 92% |
//! | 0.95, 160,000 | 92% / 92% | 92% / 94% | 91% / 92% |
//!
//! On the models themselves (`tests/it/coverage.rs`, and BENCHMARKS.md's issue 33 section):
//! 90–98% at loads from 20% to 95% for queue, balance, balancer and loaded. The balancer's page
//! runs, sized to settle (five relaxation times, about one a batch), held 88.5% / 86.5% at
//! λ = 0.9, so the balancer now gives intervals only to a run of seventeen
//! (`balancer_signals::theory::BAR_RELAXATIONS`): 94.5% / 93% at its page's λ = 0.9.
//!
//! The price is width: t₄ = 2.78 against t₁₉ = 2.09, and a noisier spread, so an interval is
//! about 30% wider at low load. Not chosen: letting a run pick its own batch count (merging
//! pairs until their lag-1 correlation passes a test). A run that judges itself passes most
//! easily when its batches happen to look calm, which is when its interval is too narrow:
//! measured on one M/M/1 queue at 95% load over 20,000 requests, the intervals such a rule kept
//! held the truth 12 times in 31, where twenty fixed batches held it 158 times in 200. Nor
//! independent replications: each must settle from empty on its own, and ten would spend ten
//! warm-ups. What no batch count fixes is a run too short for its load: such runs must be made
//! longer, or say they have not settled (the balancer's runs do).
//!
//! The merged counts are the same bits as one [`Histogram`] fed the same samples (counts are
//! whole numbers, summed exactly), so a model can record here instead of into a histogram and
//! every figure it already reports stays unchanged.
//!
//! An interval is honest only for a run long enough that each batch sees the system settle;
//! a model reports none for a run it does not call stable.

use super::histogram::{BIN_COUNT, Histogram, LogBins};

/// Batches a run is stored in.
pub const BATCHES: usize = 20;

/// Batches the intervals are taken over: each [`BATCHES`]` / 5` stored ones merged.
pub const INTERVAL_BATCHES: usize = 5;

/// Student's t at 0.975 with `k − 1` degrees of freedom, for the batch counts an interval can
/// be taken over (5, the Lab's; 10 and 20 for the coverage tests that compare them): the
/// half-width of a 95% two-sided interval, in standard errors.
pub fn t_975(batches: usize) -> Option<f64> {
    match batches {
        5 => Some(2.776_445_105_197_794),
        10 => Some(2.262_157_162_798_205),
        20 => Some(2.093_024_054_408_263),
        _ => None,
    }
}

thread_local! {
    /// The batch count this thread's intervals are taken over ([`with_interval_batches`]).
    static INTERVAL_OVER: std::cell::Cell<usize> = const { std::cell::Cell::new(INTERVAL_BATCHES) };
}

/// Runs `f` with every interval a model reads in this thread taken over `batches` (5, 10 or 20:
/// other counts are refused with `None`) instead of [`INTERVAL_BATCHES`], then restores the
/// count it found. A planned run's pilot is read through it over ten batches
/// (`lab::precision::PILOT_BATCHES`), never shown; the coverage tests use it to show, on a
/// model's own runs, what twenty batches (the Lab's count before issue 33) would have claimed.
pub fn with_interval_batches<T>(batches: usize, f: impl FnOnce() -> T) -> Option<T> {
    t_975(batches)?;
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            INTERVAL_OVER.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(INTERVAL_OVER.with(|c| c.replace(batches)));
    Some(f())
}

/// How many relaxation times of its slowest queue a run must last for its intervals to be given
/// (the balancer and the balance models, which know theirs, withhold them otherwise): about 3 for each of
/// the five interval batches, after the warm-up tenth (17 · 0.9 / 5 = 3.06). Batch means a
/// relaxation time apart are correlated, and the interval then claims more than it holds.
/// Measured on random assignment at λ = 0.9 on 100 servers, 200 seeds (the share of runs whose
/// interval held the closed form, mean / p99): one relaxation time a batch (200,000 arrivals,
/// the page's length before) 88.5% / 86.5%; 2.1 (400,000) 94% / 92%; 2.6 (500,000) 93% / 91%;
/// 3.2 (600,000) 94.5% / 93%.
pub const BAR_RELAXATIONS: f64 = 17.0;

/// The fewest samples each of the interval's batches must expect beyond a quantile (on its
/// rarer side) for the quantile's interval to be given: the usual `np ≥ 5` for a normal
/// approximation.
pub const MIN_TAIL_PER_BATCH: f64 = 5.0;

/// A 95% interval `lo..=hi`, in the unit of the figure it brackets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

impl Interval {
    /// Whether `x` lies inside (ends included).
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

/// The 95% batch-means intervals of a run's mean, median and 99th percentile, in the unit of
/// its samples; each `None` where the run is too short for it (an empty batch, or too few
/// samples beyond the quantile: [`MIN_TAIL_PER_BATCH`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunIntervals {
    /// Of the mean.
    pub mean: Option<Interval>,
    /// Of the median.
    pub p50: Option<Interval>,
    /// Of the 99th percentile.
    pub p99: Option<Interval>,
}

impl RunIntervals {
    /// No interval at all: what a run too short for honest ones reports.
    pub const NONE: RunIntervals = RunIntervals {
        mean: None,
        p50: None,
        p99: None,
    };
}

/// Histograms and sums of a run's samples, one per batch of consecutive samples: whole counts
/// (`u32`, as [`super::histogram::BinTally`] keeps them: a hot loop adds one with one store).
#[derive(Debug, Clone)]
pub struct BatchHistogram {
    /// `BATCHES × BIN_COUNT` counts, batch-major.
    counts: Vec<u32>,
    totals: [u64; BATCHES],
    sums: [f64; BATCHES],
    /// Samples the run expects to measure: batch `b` holds samples `b·n/B .. (b+1)·n/B`.
    expected: u64,
    seen: u64,
    batch: usize,
    /// The index of the first sample of the next batch.
    next_boundary: u64,
}

impl BatchHistogram {
    /// Empty batches for a run that will measure about `expected` samples. Samples past
    /// `expected` go into the last batch; a run that measures fewer leaves its last batches
    /// empty, and the intervals use the batches that are not.
    pub fn new(expected: u64) -> Self {
        let expected = expected.max(1);
        BatchHistogram {
            counts: vec![0; BATCHES * BIN_COUNT],
            totals: [0; BATCHES],
            sums: [0.0; BATCHES],
            expected,
            seen: 0,
            batch: 0,
            next_boundary: Self::boundary(expected, 1),
        }
    }

    fn boundary(expected: u64, b: usize) -> u64 {
        (u128::from(expected) * b as u128 / BATCHES as u128) as u64
    }

    /// Adds one sample, whose bin is `bin` (< [`BIN_COUNT`]) on the shared bins and whose value
    /// is `value`.
    #[inline(always)]
    pub fn record_bin(&mut self, bin: usize, value: f64) {
        if self.seen >= self.next_boundary {
            self.advance();
        }
        self.seen += 1;
        self.counts[self.batch * BIN_COUNT + bin] += 1;
        self.totals[self.batch] += 1;
        self.sums[self.batch] += value;
    }

    #[cold]
    fn advance(&mut self) {
        while self.seen >= self.next_boundary && self.batch + 1 < BATCHES {
            self.batch += 1;
            self.next_boundary = Self::boundary(self.expected, self.batch + 1);
        }
        if self.batch + 1 == BATCHES {
            self.next_boundary = u64::MAX;
        }
    }

    /// Adds one sample of `value`.
    #[inline(always)]
    pub fn record(&mut self, bins: &LogBins, value: f64) {
        self.record_bin(bins.bin_of(value), value);
    }

    /// Samples recorded.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// Batch `b`'s histogram.
    fn batch_histogram(&self, b: usize) -> Histogram {
        let mut h = Histogram::new();
        let counts: Vec<f64> = self.counts[b * BIN_COUNT..(b + 1) * BIN_COUNT]
            .iter()
            .map(|&c| f64::from(c))
            .collect();
        h.add_counts(&counts, self.totals[b] as f64);
        h
    }

    /// Every sample in one histogram: the same bits as one histogram fed them all (whole
    /// counts, summed exactly).
    pub fn merged(&self) -> Histogram {
        let mut counts = vec![0.0; BIN_COUNT];
        for b in 0..BATCHES {
            for (all, &c) in counts
                .iter_mut()
                .zip(&self.counts[b * BIN_COUNT..(b + 1) * BIN_COUNT])
            {
                *all += f64::from(c);
            }
        }
        let mut h = Histogram::new();
        h.add_counts(&counts, self.totals.iter().sum::<u64>() as f64);
        h
    }

    /// A t-interval around `center` over the interval's batches (each `BATCHES / k` stored
    /// ones merged), from each stored batch's `(sum, count)`, or `None` with a stored batch
    /// empty (a run cut short).
    fn t_interval(
        &self,
        center: f64,
        per_batch: impl Fn(usize) -> (f64, f64),
    ) -> Option<(f64, f64)> {
        if self.totals.contains(&0) {
            return None;
        }
        let k = INTERVAL_OVER.with(|c| c.get());
        let t = t_975(k)?;
        let merge = BATCHES / k;
        let values: Vec<f64> = (0..k)
            .map(|j| {
                let (s, c) = (0..merge)
                    .map(|i| per_batch(j * merge + i))
                    .fold((0.0, 0.0), |(s, c), (a, b)| (s + a, c + b));
                s / c
            })
            .collect();
        let mean = values.iter().sum::<f64>() / k as f64;
        let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (k - 1) as f64;
        let half = t * (var / k as f64).sqrt();
        half.is_finite().then_some((center - half, center + half))
    }

    /// The 95% batch-means interval of the run's mean, or `None` when a batch is empty.
    pub fn mean_interval(&self) -> Option<Interval> {
        let total: f64 = self.sums.iter().sum();
        let mean = total / self.seen as f64;
        self.t_interval(mean, |b| (self.sums[b], self.totals[b] as f64))
            .map(|(lo, hi)| Interval { lo, hi })
    }

    /// The mean's, the median's and the p99's intervals, read through `merged` (what
    /// [`BatchHistogram::merged`] gives).
    pub fn intervals(&self, bins: &LogBins, merged: &Histogram) -> RunIntervals {
        RunIntervals {
            mean: self.mean_interval(),
            p50: self.quantile_interval(bins, merged, 0.5),
            p99: self.quantile_interval(bins, merged, 0.99),
        }
    }

    /// The 95% batch-means interval of the run's `q`-quantile (q in 0..=1), read through the
    /// merged histogram `merged` (what [`BatchHistogram::merged`] gives), or `None` when a
    /// batch is empty or `q` is outside 0..=1.
    pub fn quantile_interval(
        &self,
        bins: &LogBins,
        merged: &Histogram,
        q: f64,
    ) -> Option<Interval> {
        if !(0.0..=1.0).contains(&q) {
            return None;
        }
        // Each batch's share at or below the estimate is a mean of indicators; with fewer than
        // five expected on the rarer side (np < 5) it is too discrete and skewed for Student's
        // t, so no interval is claimed (a p99 needs 500 samples a batch: 2,500 in the run over
        // five batches).
        let k = INTERVAL_OVER.with(|c| c.get());
        if q.min(1.0 - q) * self.seen as f64 / (k as f64) < MIN_TAIL_PER_BATCH {
            return None;
        }
        let estimate = merged.percentile(bins, q);
        let (lo, hi) = self.t_interval(q, |b| {
            let n = self.totals[b] as f64;
            (
                (1.0 - self.batch_histogram(b).survival(bins, estimate)) * n,
                n,
            )
        })?;
        Some(Interval {
            lo: merged.percentile(bins, lo.clamp(0.0, 1.0)),
            hi: merged.percentile(bins, hi.clamp(0.0, 1.0)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::address::SampleStream;
    use crate::sampling::histogram::shared_bins;

    /// Exponential draws of mean `mean` ms.
    fn exponential(rng: &mut SampleStream, mean: f64) -> f64 {
        -mean * libm::log(rng.next_open_unit())
    }

    #[test]
    fn merged_counts_are_the_bits_of_one_histogram() {
        let bins = shared_bins();
        let mut rng = SampleStream::from_state(7);
        let mut one = Histogram::new();
        let mut batched = BatchHistogram::new(12_345);
        for _ in 0..12_345 + 77 {
            let x = exponential(&mut rng, 3.0);
            one.record(bins, x);
            batched.record(bins, x);
        }
        assert_eq!(batched.merged(), one);
        assert_eq!(batched.seen(), 12_345 + 77);
        for q in [0.5, 0.9, 0.99, 0.999] {
            assert_eq!(
                batched.merged().percentile(bins, q).to_bits(),
                one.percentile(bins, q).to_bits()
            );
        }
    }

    #[test]
    fn batches_split_the_expected_samples_evenly() {
        let mut batched = BatchHistogram::new(1_000);
        for _ in 0..1_000 {
            batched.record_bin(10, 1.0);
        }
        assert!(batched.totals.iter().all(|&t| t == 50));
        let mut short = BatchHistogram::new(1_000);
        for _ in 0..500 {
            short.record_bin(10, 1.0);
        }
        assert_eq!(short.mean_interval(), None, "half the batches are empty");
    }

    #[test]
    fn no_quantile_interval_without_five_samples_a_batch_beyond_it() {
        let bins = shared_bins();
        let mut rng = SampleStream::from_state(3);
        // 2,400 samples: 480 in each of the five batches, 4.8 expected beyond the p99.
        let mut b = BatchHistogram::new(2_400);
        for _ in 0..2_400 {
            b.record(bins, exponential(&mut rng, 1.0));
        }
        let i = b.intervals(bins, &b.merged());
        assert!(i.mean.is_some() && i.p50.is_some());
        assert_eq!(i.p99, None);
        // 2,500 samples: exactly 5 a batch beyond the p99; over twenty batches it would not be.
        let mut b = BatchHistogram::new(2_500);
        for _ in 0..2_500 {
            b.record(bins, exponential(&mut rng, 1.0));
        }
        assert!(b.intervals(bins, &b.merged()).p99.is_some());
        let twenty = with_interval_batches(20, || b.intervals(bins, &b.merged())).unwrap();
        assert_eq!(twenty.p99, None);
        assert!(
            with_interval_batches(7, || ()).is_none(),
            "7 batches is no count"
        );
    }

    /// M/M/1 sojourn times by Lindley's recursion, `W' = max(0, W + S − A)`, from an empty
    /// queue, the first tenth of `n` discarded as warm-up, as the Lab's queue runs are.
    fn mm1_from_empty(seed: u64, n: u64, rho: f64) -> BatchHistogram {
        let bins = shared_bins();
        let mut rng = SampleStream::from_state(seed);
        let mut b = BatchHistogram::new(n - n / 10);
        let mut w = 0.0;
        for i in 0..n {
            let s = exponential(&mut rng, 1.0);
            if i >= n / 10 {
                b.record(bins, w + s);
            }
            w = (w + s - exponential(&mut rng, 1.0 / rho)).max(0.0);
        }
        b
    }

    /// One M/M/1 queue at ρ = 0.95 over 10⁶ requests: about 600 of its correlation times
    /// (1,500 requests: Whitt's variance of the mean wait over one sojourn's), so a twentieth of
    /// the run is 30 of them and adjacent batch means are still correlated. Over 200 seeds twenty
    /// batches' intervals hold 1/(1 − ρ) = 20 in 182 runs (91%), five batches' in 190 (95%).
    /// (Both read the very same runs; the seeds are fixed, so the counts are exact.)
    #[test]
    fn five_batches_cover_a_correlated_queue_where_twenty_do_not() {
        let (mut five, mut twenty) = (0, 0);
        for seed in 0..REPLICATES {
            let b = mm1_from_empty(7000 + seed, 1_000_000, 0.95);
            five += u64::from(b.mean_interval().unwrap().contains(20.0));
            twenty += u64::from(
                with_interval_batches(20, || b.mean_interval())
                    .flatten()
                    .unwrap()
                    .contains(20.0),
            );
        }
        assert!(twenty < 185, "twenty batches: {twenty} of {REPLICATES}");
        assert!(
            COVERED.contains(&five) && five >= 185,
            "five batches: {five} of {REPLICATES}"
        );
    }

    /// Coverage: over `REPLICATES` independent runs, the 95% interval must contain the truth in
    /// a share whose binomial(200, 0.95) spread is ±3.1 runs; the bounds 180..=198 are ±3.2
    /// standard deviations, and the seeds are fixed, so the test is exact, not flaky.
    const REPLICATES: u64 = 200;
    const COVERED: std::ops::RangeInclusive<u64> = 180..=198;

    #[test]
    fn intervals_cover_an_exponential_mean_and_quantiles_95_percent_of_the_time() {
        let bins = shared_bins();
        let n = 20_000;
        let mean = 2.0;
        let (mut mean_hits, mut p50_hits, mut p99_hits) = (0, 0, 0);
        for seed in 0..REPLICATES {
            let mut rng = SampleStream::from_state(1000 + seed);
            let mut b = BatchHistogram::new(n);
            for _ in 0..n {
                b.record(bins, exponential(&mut rng, mean));
            }
            let merged = b.merged();
            mean_hits += u64::from(b.mean_interval().unwrap().contains(mean));
            let p50 = b.quantile_interval(bins, &merged, 0.5).unwrap();
            p50_hits += u64::from(p50.contains(mean * std::f64::consts::LN_2));
            let p99 = b.quantile_interval(bins, &merged, 0.99).unwrap();
            p99_hits += u64::from(p99.contains(mean * libm::log(100.0)));
        }
        for (what, hits) in [("mean", mean_hits), ("p50", p50_hits), ("p99", p99_hits)] {
            assert!(
                COVERED.contains(&hits),
                "{what}: {hits} of {REPLICATES} covered"
            );
        }
    }

    /// Correlated samples: an AR(1) sequence `x = 30 + y`, `y' = φy + e` with φ = 0.95 (a
    /// correlation time of about 40 samples). The naive iid interval, from the same samples,
    /// covers far less often (its spread ignores the correlation: √((1 + φ)/(1 − φ)) ≈ 6× too
    /// narrow); batches of 1,000 cover 95% of the time.
    #[test]
    fn batch_means_cover_a_correlated_mean_where_the_iid_interval_does_not() {
        let bins = shared_bins();
        let (n, phi) = (20_000u64, 0.95f64);
        let (mut batch_hits, mut naive_hits) = (0, 0);
        for seed in 0..REPLICATES {
            let mut rng = SampleStream::from_state(5000 + seed);
            let mut b = BatchHistogram::new(n);
            let (mut y, mut sum, mut sum2) = (0.0f64, 0.0, 0.0);
            // Start in the stationary law: y ~ N(0, 1/(1 − φ²)).
            y += crate::sampling::normal::quantile(rng.next_open_unit()) / (1.0 - phi * phi).sqrt();
            for _ in 0..n {
                let x = 30.0 + y;
                b.record(bins, x);
                sum += x;
                sum2 += x * x;
                y = phi * y + crate::sampling::normal::quantile(rng.next_open_unit());
            }
            batch_hits += u64::from(b.mean_interval().unwrap().contains(30.0));
            let m = sum / n as f64;
            let se = ((sum2 / n as f64 - m * m) / n as f64).sqrt();
            naive_hits += u64::from((m - 30.0).abs() <= 1.96 * se);
        }
        assert!(
            COVERED.contains(&batch_hits),
            "batch means: {batch_hits} of {REPLICATES}"
        );
        // ±1.96/6 standard errors cover about 25%: far below 95% whatever the seeds.
        assert!(naive_hits < 120, "naive: {naive_hits} of {REPLICATES}");
    }
}
