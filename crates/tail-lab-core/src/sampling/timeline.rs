//! Sums and latency quantiles in fixed-width windows of simulated time, for charts drawn
//! against time (a partial outage, a load spike) rather than against a setting.
//!
//! A [`Timeline`] covers `0..span_ms` in `buckets` windows of equal width. A model adds amounts
//! to numbered series (requests arrived, attempts sent, backups sent, ms of work done, …) at the
//! simulated time they happen, and records each answer's latency in the window of its time, on
//! the shared log bins. Its memory is fixed when it is made, whatever the number of requests:
//! `buckets × (series + BIN_COUNT)` numbers. Anything past the span is counted in
//! [`Timeline::late`] and otherwise dropped, so a model may keep simulating past the window it
//! draws.
//!
//! ```
//! use tail_lab_core::sampling::timeline::Timeline;
//!
//! let mut t = Timeline::new(1000.0, 10, 2).unwrap();
//! t.add(0, 50.0, 1.0);
//! t.add(0, 99.9, 1.0);
//! t.add(1, 150.0, 4.5);
//! t.record_latency(120.0, 8.0);
//! assert_eq!(t.sum(0, 0), 2.0);
//! assert_eq!(t.series(1)[1], 4.5);
//! assert_eq!(t.answers(1), 1.0);
//! assert!(t.latency_quantile(0, 0.99).is_none());
//! ```

use crate::error::{CountRange, ParamError, check_open};
use crate::sampling::histogram::{Histogram, LogBins, shared_bins};

/// Windows a timeline may have.
pub const BUCKETS: CountRange = crate::count_range!(1, 1000);
/// Series a timeline may have.
pub const SERIES: CountRange = crate::count_range!(1, 32);

/// Sums of numbered series and latency histograms, per window of simulated time.
#[derive(Debug, Clone)]
pub struct Timeline {
    span_ms: f64,
    bucket_ms: f64,
    series: usize,
    /// Window-major: the sums of window `b` are `sums[b·series .. (b+1)·series]`.
    sums: Vec<f64>,
    latency: Vec<Histogram>,
    late: u64,
    bins: &'static LogBins,
}

impl Timeline {
    /// A timeline over `0..span_ms` (ms, finite and positive) in `buckets` equal windows, with
    /// `series` numbered series.
    pub fn new(span_ms: f64, buckets: usize, series: usize) -> Result<Self, ParamError> {
        let span_ms = check_open("span", span_ms, 0.0, f64::INFINITY, "a span in ms above 0")?;
        let buckets = BUCKETS.check("buckets", buckets as u64)? as usize;
        let series = SERIES.check("series", series as u64)? as usize;
        Ok(Timeline {
            span_ms,
            bucket_ms: span_ms / buckets as f64,
            series,
            sums: vec![0.0; buckets * series],
            latency: vec![Histogram::new(); buckets],
            late: 0,
            bins: shared_bins(),
        })
    }

    /// The window that holds time `t_ms`, or `None` before 0 or from the span on.
    #[inline]
    pub fn bucket_of(&self, t_ms: f64) -> Option<usize> {
        if !(0.0..self.span_ms).contains(&t_ms) {
            return None;
        }
        // Rounding may put a time just below the span at `buckets`: it belongs to the last.
        Some(((t_ms / self.bucket_ms) as usize).min(self.latency.len() - 1))
    }

    /// Adds `amount` to series `series` in the window of time `t_ms` (ms).
    ///
    /// # Panics
    /// If `series` is not below the number of series the timeline was made with.
    #[inline]
    pub fn add(&mut self, series: usize, t_ms: f64, amount: f64) {
        assert!(series < self.series, "series {series} of {}", self.series);
        match self.bucket_of(t_ms) {
            Some(b) => self.sums[b * self.series + series] += amount,
            None => self.late += 1,
        }
    }

    /// Records an answer's latency `latency_ms` (ms) in the window of time `t_ms` (ms): the
    /// caller chooses whether that is when the request arrived or when it was answered.
    #[inline]
    pub fn record_latency(&mut self, t_ms: f64, latency_ms: f64) {
        match self.bucket_of(t_ms) {
            Some(b) => self.latency[b].record(self.bins, latency_ms),
            None => self.late += 1,
        }
    }

    /// The number of windows.
    pub fn buckets(&self) -> usize {
        self.latency.len()
    }

    /// The width of one window (ms).
    pub fn bucket_ms(&self) -> f64 {
        self.bucket_ms
    }

    /// The time the timeline covers (ms).
    pub fn span_ms(&self) -> f64 {
        self.span_ms
    }

    /// The start of window `b` (ms).
    pub fn start_ms(&self, b: usize) -> f64 {
        b as f64 * self.bucket_ms
    }

    /// The sum of series `series` in window `b`.
    pub fn sum(&self, series: usize, b: usize) -> f64 {
        self.sums[b * self.series + series]
    }

    /// Series `series`, one sum per window.
    pub fn series(&self, series: usize) -> Vec<f64> {
        (0..self.buckets()).map(|b| self.sum(series, b)).collect()
    }

    /// The sum of series `series` over every window.
    pub fn total(&self, series: usize) -> f64 {
        (0..self.buckets()).map(|b| self.sum(series, b)).sum()
    }

    /// Latencies recorded in window `b`.
    pub fn answers(&self, b: usize) -> f64 {
        self.latency[b].total()
    }

    /// The `q`-quantile (q in 0..=1) of the latencies recorded in window `b` (ms), within one
    /// shared bin (2%); `None` when the window has none.
    pub fn latency_quantile(&self, b: usize, q: f64) -> Option<f64> {
        let h = &self.latency[b];
        (h.total() > 0.0).then(|| h.percentile(self.bins, q))
    }

    /// Every window's `q`-quantile of latency (ms); `None` where a window has no answer.
    pub fn latency_quantiles(&self, q: f64) -> Vec<Option<f64>> {
        (0..self.buckets())
            .map(|b| self.latency_quantile(b, q))
            .collect()
    }

    /// Window `b`'s latency histogram on the shared bins.
    pub fn histogram(&self, b: usize) -> &Histogram {
        &self.latency[b]
    }

    /// Additions and latencies that fell outside the span (before 0 or from its end on).
    pub fn late(&self) -> u64 {
        self.late
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_land_in_the_window_of_their_time() {
        let mut t = Timeline::new(100.0, 4, 3).unwrap();
        for (time, s, a) in [
            (0.0, 0, 1.0),
            (24.999, 0, 1.0),
            (25.0, 1, 2.0),
            (99.999, 2, 3.0),
        ] {
            t.add(s, time, a);
        }
        assert_eq!(t.series(0), vec![2.0, 0.0, 0.0, 0.0]);
        assert_eq!(t.series(1), vec![0.0, 2.0, 0.0, 0.0]);
        assert_eq!(t.series(2), vec![0.0, 0.0, 0.0, 3.0]);
        assert_eq!(t.total(0) + t.total(1) + t.total(2), 7.0);
        assert_eq!(t.late(), 0);
        t.add(0, 100.0, 1.0);
        t.add(0, -1.0, 1.0);
        t.record_latency(f64::NAN, 3.0);
        assert_eq!(t.late(), 3);
        assert_eq!(t.total(0), 2.0);
        assert_eq!(t.start_ms(3), 75.0);
        assert_eq!(t.bucket_ms(), 25.0);
    }

    #[test]
    fn a_window_quantile_is_its_own_histograms() {
        let mut t = Timeline::new(10.0, 2, 1).unwrap();
        // Window 0: 1..=100 ms; window 1: a single 500 ms answer.
        for i in 1..=100 {
            t.record_latency(1.0, f64::from(i));
        }
        t.record_latency(7.0, 500.0);
        let p50 = t.latency_quantile(0, 0.5).unwrap();
        assert!((p50 / 50.0 - 1.0).abs() < 0.021, "{p50}");
        let p99 = t.latency_quantile(0, 0.99).unwrap();
        assert!((p99 / 99.0 - 1.0).abs() < 0.021, "{p99}");
        let only = t.latency_quantile(1, 0.5).unwrap();
        assert!((only / 500.0 - 1.0).abs() < 0.021, "{only}");
        assert_eq!(t.answers(0), 100.0);
        assert_eq!(t.latency_quantiles(0.5).len(), 2);
    }

    #[test]
    fn bad_shapes_are_refused_by_name() {
        assert_eq!(Timeline::new(0.0, 4, 1).unwrap_err().param(), "span");
        assert_eq!(
            Timeline::new(f64::INFINITY, 4, 1).unwrap_err().param(),
            "span"
        );
        assert_eq!(Timeline::new(1.0, 0, 1).unwrap_err().param(), "buckets");
        assert_eq!(Timeline::new(1.0, 1001, 1).unwrap_err().param(), "buckets");
        assert_eq!(Timeline::new(1.0, 4, 0).unwrap_err().param(), "series");
    }

    #[test]
    fn a_time_just_below_the_span_is_in_the_last_window() {
        let t = Timeline::new(0.3, 3, 1).unwrap();
        let below = 0.3f64.next_down();
        assert_eq!(t.bucket_of(below), Some(2));
        assert_eq!(t.bucket_of(0.3), None);
    }
}
