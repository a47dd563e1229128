//! The rules that decide whether a hedge is sent and when: the token bucket
//! ([`TokenBucket`]), the delay that tracks recent latencies ([`DelayTracker`]) and the
//! utilisation the disable rule reads ([`UtilisationMeter`]).

use super::params::{
    TRACKING_EVERY, TRACKING_QUANTILE, TRACKING_WINDOW, UTILISATION_SLOTS, UTILISATION_WINDOW_MS,
};
use crate::sampling::histogram::{BIN_COUNT, LogBins};

/// A budget on hedges shaped like gRPC's retry throttling (proposal A6) but charged per
/// backup, not per failed call (see the module's `budgeted`), counted in thousandths of a
/// token so that every step is exact: it starts full at `max` tokens, each
/// request adds `ratio` (capped at `max`), each hedge costs one, and no hedge is sent while
/// the bucket holds `max / 2` or less. `max = None` is unlimited: every hedge is allowed.
#[derive(Debug, Clone, Copy)]
pub struct TokenBucket {
    max_milli: Option<u64>,
    ratio_milli: u64,
    milli: u64,
}

impl TokenBucket {
    /// A full bucket of `max` tokens (`None`: unlimited) that gains `ratio_milli` thousandths
    /// of a token per request.
    pub fn new(max: Option<u32>, ratio_milli: u64) -> Self {
        let max_milli = max.map(|m| u64::from(m) * 1000);
        TokenBucket {
            max_milli,
            ratio_milli,
            milli: max_milli.unwrap_or(0),
        }
    }

    /// A request arrived: add the ratio, capped at the maximum.
    #[inline]
    pub fn on_request(&mut self) {
        if let Some(max) = self.max_milli {
            self.milli = (self.milli + self.ratio_milli).min(max);
        }
    }

    /// A hedge is due: spend a token and say yes when the bucket holds more than half its
    /// maximum, else say no and spend nothing.
    #[inline]
    pub fn try_spend(&mut self) -> bool {
        match self.max_milli {
            None => true,
            Some(max) if self.milli > max / 2 => {
                self.milli -= 1000;
                true
            }
            Some(_) => false,
        }
    }

    /// The tokens held; `None` when unlimited.
    pub fn tokens(&self) -> Option<f64> {
        self.max_milli.map(|_| self.milli as f64 / 1000.0)
    }
}

/// A hedge delay that tracks the [`TRACKING_QUANTILE`] of the last [`TRACKING_WINDOW`]
/// answers' latencies, kept as bin counts on the shared bins (a ring of the answers' bins and
/// a count per bin), recomputed every [`TRACKING_EVERY`] answers once the window is full. Until
/// then it is the delay it started with. The quantile is the upper edge of the bin that holds
/// it (within one bin, 2%).
#[derive(Debug, Clone)]
pub struct DelayTracker {
    ring: Vec<u16>,
    next: usize,
    filled: bool,
    counts: Vec<u32>,
    since: usize,
    delay_ms: f64,
}

impl DelayTracker {
    /// A tracker whose delay is `start_ms` until its window first fills.
    pub fn new(start_ms: f64) -> Self {
        DelayTracker {
            ring: vec![0; TRACKING_WINDOW],
            next: 0,
            filled: false,
            counts: vec![0; BIN_COUNT],
            since: 0,
            delay_ms: start_ms,
        }
    }

    /// The delay now (ms).
    #[inline]
    pub fn delay_ms(&self) -> f64 {
        self.delay_ms
    }

    /// An answer of latency in bin `bin` (of the shared bins `bins`).
    pub fn record(&mut self, bins: &LogBins, bin: usize) {
        if self.filled {
            self.counts[usize::from(self.ring[self.next])] -= 1;
        }
        self.ring[self.next] = bin as u16;
        self.counts[bin] += 1;
        self.next += 1;
        if self.next == TRACKING_WINDOW {
            self.next = 0;
            self.filled = true;
        }
        self.since += 1;
        if self.filled && self.since >= TRACKING_EVERY {
            self.since = 0;
            // The smallest bin whose running count reaches ⌈q·N⌉ answers.
            let need = (TRACKING_QUANTILE * TRACKING_WINDOW as f64).ceil() as u32;
            let mut seen = 0;
            for (b, &c) in self.counts.iter().enumerate() {
                seen += c;
                if seen >= need {
                    self.delay_ms = bins.edges()[b + 1];
                    break;
                }
            }
        }
    }
}

/// The offered utilisation over the last [`UTILISATION_WINDOW_MS`], as source 003's
/// saturation threshold reads it, `(1 + h)ρ`: copies sent to the replicas in the window
/// (primaries and backups), times the service's mean time `E[S]` (a capacity planner's
/// figure, blind to the outage), over the window's capacity (replicas × its length). Above
/// one the replicas are asked for more work than they can do. Kept in [`UTILISATION_SLOTS`]
/// slots of a tenth of the window each, so it slides a tenth at a time.
#[derive(Debug, Clone)]
pub struct UtilisationMeter {
    slot_ms: f64,
    work_per_copy: f64,
    /// Per slot: its index in time and the copies sent in it.
    slots: [(u64, u32); UTILISATION_SLOTS],
}

impl UtilisationMeter {
    /// A meter for `replicas` replicas whose service takes `mean_ms` on average.
    pub fn new(replicas: u32, mean_ms: f64) -> Self {
        UtilisationMeter {
            slot_ms: UTILISATION_WINDOW_MS / UTILISATION_SLOTS as f64,
            work_per_copy: mean_ms / (f64::from(replicas) * UTILISATION_WINDOW_MS),
            slots: [(u64::MAX, 0); UTILISATION_SLOTS],
        }
    }

    /// A copy was sent to a replica at `t_ms`.
    #[inline]
    pub fn sent(&mut self, t_ms: f64) {
        let index = (t_ms / self.slot_ms) as u64;
        let s = &mut self.slots[(index % UTILISATION_SLOTS as u64) as usize];
        if s.0 != index {
            *s = (index, 0);
        }
        s.1 += 1;
    }

    /// The utilisation offered over the window that ends in the slot of `t_ms`.
    pub fn utilisation(&self, t_ms: f64) -> f64 {
        let now = (t_ms / self.slot_ms) as u64;
        let sent: u32 = self
            .slots
            .iter()
            .filter(|&&(index, _)| index <= now && now - index < UTILISATION_SLOTS as u64)
            .map(|&(_, n)| n)
            .sum();
        f64::from(sent) * self.work_per_copy
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::histogram::shared_bins;

    #[test]
    fn the_bucket_stops_at_half_and_refills_by_the_ratio() {
        // 10 tokens, 0.1 a request: five hedges take it from 10 to 5, where it stops.
        let mut b = TokenBucket::new(Some(10), 100);
        for _ in 0..5 {
            assert!(b.try_spend());
        }
        assert_eq!(b.tokens(), Some(5.0));
        assert!(!b.try_spend(), "at half: no hedge");
        b.on_request();
        assert_eq!(b.tokens(), Some(5.1));
        assert!(b.try_spend(), "above half: one more");
        assert_eq!(b.tokens(), Some(4.1));
        for _ in 0..1000 {
            b.on_request();
        }
        assert_eq!(b.tokens(), Some(10.0), "capped at the maximum");
        let mut unlimited = TokenBucket::new(None, 100);
        assert!((0..10_000).all(|_| unlimited.try_spend()));
        assert_eq!(unlimited.tokens(), None);
    }

    #[test]
    fn the_tracker_follows_the_recent_p95() {
        let bins = shared_bins();
        let mut t = DelayTracker::new(7.0);
        for _ in 0..TRACKING_WINDOW - 1 {
            t.record(bins, bins.bin_of(10.0));
        }
        assert_eq!(t.delay_ms(), 7.0, "not full yet: the start");
        // 1000 answers, 950 at 10 ms and then 50 at 100 ms: the p95 is 10 ms's bin.
        for i in 0..TRACKING_WINDOW + 1 {
            let ms = if i % 20 == 0 { 100.0 } else { 10.0 };
            t.record(bins, bins.bin_of(ms));
        }
        assert!((t.delay_ms() / 10.0 - 1.0).abs() < 0.03, "{}", t.delay_ms());
        // All slow now: the window forgets the fast ones.
        for _ in 0..TRACKING_WINDOW {
            t.record(bins, bins.bin_of(100.0));
        }
        assert!(
            (t.delay_ms() / 100.0 - 1.0).abs() < 0.03,
            "{}",
            t.delay_ms()
        );
    }

    #[test]
    fn the_meter_reads_offered_work_over_capacity() {
        // 2 replicas of mean 50 ms, 1000 ms window: 48 copies sent → 48·50/2000 = 1.2.
        let mut m = UtilisationMeter::new(2, 50.0);
        for i in 0..48 {
            m.sent(f64::from(i) * 20.0 + 5.0);
        }
        assert!(
            (m.utilisation(990.0) - 1.2).abs() < 1e-12,
            "{}",
            m.utilisation(990.0)
        );
        // A slot later the first tenth (5 copies) has left the window.
        assert!((m.utilisation(1000.0) - 43.0 * 50.0 / 2000.0).abs() < 1e-12);
        assert_eq!(m.utilisation(10_000.0), 0.0);
    }
}
