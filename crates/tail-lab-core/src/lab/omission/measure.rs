//! One way of measuring: the latencies a client records, as counts on the shared bins with the
//! exact share at or under 1 ms, and HdrHistogram's expected-interval correction.

use crate::sampling::histogram::{Histogram, LogBins, shared_bins};

/// The latencies one way of measuring recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    hist: Histogram,
    /// Samples at or under 1 ms, counted exactly (not from the bins).
    le_1ms: f64,
    sum_ms: f64,
    max_ms: f64,
}

impl Default for Measurement {
    fn default() -> Self {
        Measurement {
            hist: Histogram::new(),
            le_1ms: 0.0,
            sum_ms: 0.0,
            max_ms: 0.0,
        }
    }
}

impl Measurement {
    /// Records one latency (ms).
    #[inline]
    pub fn record(&mut self, v_ms: f64) {
        self.hist.record(shared_bins(), v_ms);
        self.le_1ms += f64::from(u8::from(v_ms <= 1.0));
        self.sum_ms += v_ms;
        self.max_ms = self.max_ms.max(v_ms);
    }

    /// Records `v_ms` as HdrHistogram's `recordValueWithExpectedInterval(v, interval)` does:
    /// the value, then the sends a stalled closed loop never made, `v − j·interval` for
    /// `j = 1, 2, …` while at least `interval`. The fills are counted into the bins by
    /// arithmetic, not one by one, so a long stall at a short interval costs a pass over the
    /// bins it spans rather than one step per missing send.
    pub fn record_with_expected_interval(&mut self, v_ms: f64, interval_ms: f64) {
        self.record(v_ms);
        if interval_ms.is_nan() || interval_ms <= 0.0 || v_ms < 2.0 * interval_ms {
            return;
        }
        // Fills j = 1..=n: v − n·interval ≥ interval.
        let n = libm::floor((v_ms - interval_ms) / interval_ms);
        if n < 1.0 {
            return;
        }
        // j ≤ y, counted in 0..=n.
        let at_most = |y: f64| libm::floor(y).clamp(0.0, n);
        let bins: &LogBins = shared_bins();
        let (lowest, highest) = (v_ms - n * interval_ms, v_ms - interval_ms);
        let (first, last) = (bins.bin_of(lowest), bins.bin_of(highest));
        let edges = bins.edges();
        let mut counted = 0.0;
        for b in first..=last {
            // Fill j is in bin b when lo ≤ v − j·interval < hi: (v − hi)/interval < j ≤ (v − lo)/interval.
            let lo = if b == first { lowest } else { edges[b] };
            let hi = if b == last {
                f64::INFINITY
            } else {
                edges[b + 1]
            };
            let c = at_most((v_ms - lo) / interval_ms) - at_most((v_ms - hi) / interval_ms);
            if c > 0.0 {
                self.hist.add_bin(b, c);
                counted += c;
            }
        }
        debug_assert_eq!(counted, n);
        // Fills at or under 1 ms: v − j·interval ≤ 1, i.e. j ≥ (v − 1)/interval.
        let below = libm::ceil((v_ms - 1.0) / interval_ms) - 1.0;
        self.le_1ms += n - below.clamp(0.0, n);
        self.sum_ms += n * v_ms - interval_ms * n * (n + 1.0) / 2.0;
    }

    /// Samples recorded.
    pub fn count(&self) -> f64 {
        self.hist.total()
    }

    /// The share of samples at or under 1 ms (exact), or 0 with none.
    pub fn frac_le_1ms(&self) -> f64 {
        if self.count() == 0.0 {
            0.0
        } else {
            self.le_1ms / self.count()
        }
    }

    /// The `q`-quantile (ms), within one shared bin (2%).
    pub fn quantile(&self, q: f64) -> f64 {
        self.hist.percentile(shared_bins(), q)
    }

    /// The mean (ms).
    pub fn mean_ms(&self) -> f64 {
        self.sum_ms / self.count()
    }

    /// The largest sample (ms).
    pub fn max_ms(&self) -> f64 {
        self.max_ms
    }

    /// The counts on the shared bins.
    pub fn histogram(&self) -> &Histogram {
        &self.hist
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fills one by one, as HdrHistogram's loop makes them.
    fn by_loop(v: f64, interval: f64) -> Measurement {
        let mut m = Measurement::default();
        m.record(v);
        let mut j = 1.0;
        while v - j * interval >= interval {
            m.record(v - j * interval);
            j += 1.0;
        }
        m
    }

    #[test]
    fn the_fills_by_arithmetic_are_the_loops() {
        for (v, interval) in [
            (100_001.0, 10.0),
            (57.3, 0.7),
            (3.0, 1.0),
            (19.999, 10.0),
            (20.0, 10.0),
            (5000.0, 0.25),
            (1.5, 0.1),
            (12.0, 0.5),
        ] {
            let mut fast = Measurement::default();
            fast.record_with_expected_interval(v, interval);
            let slow = by_loop(v, interval);
            assert_eq!(fast.count(), slow.count(), "{v} every {interval}");
            assert_eq!(fast.le_1ms, slow.le_1ms, "{v} every {interval}");
            assert!((fast.sum_ms - slow.sum_ms).abs() <= 1e-9 * slow.sum_ms);
            // Bins agree but for fills on an edge, which the arithmetic may put one bin over:
            // none of these lie on one, so the counts are equal.
            assert_eq!(
                fast.hist.counts(),
                slow.hist.counts(),
                "{v} every {interval}"
            );
        }
    }

    #[test]
    fn the_worked_example_fills_half() {
        // 10,000 answers of 1 ms, then one of 100,001 ms sampled every 10 ms: 9,999 fills.
        let mut m = Measurement::default();
        for _ in 0..10_000 {
            m.record_with_expected_interval(1.0, 10.0);
        }
        m.record_with_expected_interval(100_001.0, 10.0);
        assert_eq!(m.count(), 20_000.0);
        assert_eq!(m.frac_le_1ms(), 0.5);
    }
}
