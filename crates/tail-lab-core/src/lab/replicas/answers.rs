//! A run's measured answers: the latencies of requests past the warm-up, on the shared bins,
//! and what the run's stability is judged from.

use crate::sampling::batch::{BatchHistogram, RunIntervals};
use crate::sampling::histogram::{BIN_COUNT, Histogram, LogBins, shared_bins};

/// The answers of a run of `requests` requests numbered from 0, of which the first tenth are
/// the warm-up and are not measured. Each measured latency (ms) goes to the shared bins by
/// batch (for the histogram and its intervals), to the mean, and to one of four blocks of
/// consecutive requests, whose means say whether the latency keeps climbing.
#[derive(Debug)]
pub(crate) struct Answers {
    bins: &'static LogBins,
    /// The bins' top edge (ms): a latency past it is off the scale.
    top_edge: f64,
    warmup: u64,
    /// The first request of blocks 1, 2 and 3 of the four the measured requests are cut into.
    block_starts: [u64; 3],
    block_sums: [f64; 4],
    block_counts: [u64; 4],
    latency: BatchHistogram,
    sum: f64,
    measured: u64,
    off_scale: bool,
}

/// The block (0..4) of measured request `k`: `min(3, (k − warmup)·4 / span)`.
fn block_of(k: u64, warmup: u64, span: u64) -> usize {
    (((k - warmup) * 4) / span).min(3) as usize
}

impl Answers {
    /// No answer yet, of a run of `requests` requests.
    pub(crate) fn new(requests: u64) -> Self {
        let warmup = requests / 10;
        let span = Self::span(requests);
        // Block j (1..=3) starts at the first k with (k − warmup)·4 ≥ j·span: the division
        // `block_of` does, found without dividing per request.
        let block_starts = [1u64, 2, 3].map(|j| warmup + (j * span).div_ceil(4));
        // (A span of fewer than four requests leaves some blocks empty: nothing to check.)
        debug_assert!(
            span < 4
                || block_starts.iter().enumerate().all(|(j, &s)| {
                    block_of(s, warmup, span) == j + 1 && block_of(s - 1, warmup, span) == j
                })
        );
        let bins = shared_bins();
        Answers {
            bins,
            top_edge: bins.edges()[BIN_COUNT],
            warmup,
            block_starts,
            block_sums: [0.0; 4],
            block_counts: [0; 4],
            latency: BatchHistogram::new(span),
            sum: 0.0,
            measured: 0,
            off_scale: false,
        }
    }

    /// Requests measured in a run of `requests` (at least one, so that it divides).
    pub(crate) fn span(requests: u64) -> u64 {
        (requests - requests / 10).max(1)
    }

    /// The first measured request.
    #[cfg(test)]
    pub(crate) fn warmup(&self) -> u64 {
        self.warmup
    }

    /// Request `k` was answered `latency` ms after it arrived. Returns its latency's bin when
    /// it is measured (past the warm-up), `None` otherwise.
    #[inline]
    pub(crate) fn record(&mut self, k: u64, latency: f64) -> Option<usize> {
        if k < self.warmup {
            return None;
        }
        let bin = self.bins.bin_of(latency);
        self.off_scale |= latency > self.top_edge;
        self.latency.record_bin(bin, latency);
        self.sum += latency;
        self.measured += 1;
        let [b1, b2, b3] = self.block_starts;
        let block = usize::from(k >= b1) + usize::from(k >= b2) + usize::from(k >= b3);
        self.block_sums[block] += latency;
        self.block_counts[block] += 1;
        Some(bin)
    }

    /// Latencies measured.
    pub(crate) fn measured(&self) -> u64 {
        self.measured
    }

    /// The sum of the measured latencies (ms).
    #[cfg(test)]
    pub(crate) fn sum_ms(&self) -> f64 {
        self.sum
    }

    /// The mean measured latency (ms); call it only when some were measured.
    pub(crate) fn mean_ms(&self) -> f64 {
        self.sum / self.measured as f64
    }

    /// A measured latency passed the bins' top edge.
    pub(crate) fn off_scale(&self) -> bool {
        self.off_scale
    }

    /// Empirical instability: the mean latency keeps climbing from block to block and the
    /// last quarter waits at least twice as long as the first. A stable queue's block means
    /// fluctuate; an unstable one's grow without bound.
    pub(crate) fn drifting(&self) -> bool {
        let means: Vec<f64> = self
            .block_sums
            .iter()
            .zip(self.block_counts)
            .map(|(s, c)| s / c.max(1) as f64)
            .collect();
        means.windows(2).all(|w| w[1] > w[0]) && means[3] > 2.0 * means[0]
    }

    /// The measured latencies' histogram, every batch merged.
    pub(crate) fn merged(&self) -> Histogram {
        self.latency.merged()
    }

    /// The batch-means intervals of the measured latencies, `merged` being [`Self::merged`].
    pub(crate) fn intervals(&self, merged: &Histogram) -> RunIntervals {
        self.latency.intervals(self.bins, merged)
    }
}
