//! A Tail run: parent requests accumulated into the shared-bin histograms.
//!
//! [`TailRun::run`] simulates the next `count` requests (addresses `k = requests..requests+count`),
//! recording every leaf's resolved latency into the leaf histogram and each parent's latency
//! into the parent histogram. Nothing is stored per request, so a run can go to millions.
//! [`TailRun::run_range`] runs any range instead, and [`TailRun::absorb`] merges a
//! [`RunBlock`] from another run: how several workers share one run.

use crate::error::ParamError;
use crate::sampling::histogram::{BIN_COUNT, BinTally, Histogram, shared_bins};
use crate::tail::request::{RequestTrace, TailConfig, TailModel};

/// Work accounting of a run's hedges.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HedgeCost {
    /// Fraction (0..1) of leaf calls that fired a duplicate.
    pub extra_requests: f64,
    /// Service time the duplicates consumed until they answered or were cancelled, over the
    /// original attempts' full service time (fraction).
    pub extra_work: f64,
}

/// What a run accumulated over some requests: both histograms' counts and the hedge tallies,
/// to merge into another run of the same configuration ([`TailRun::absorb`]). It names the
/// model it came from and the requests it holds, so a block from another run, or one merged
/// twice, is refused.
#[derive(Debug, Clone, PartialEq)]
pub struct RunBlock {
    /// [`TailModel::fingerprint`] of the run that made it.
    pub fingerprint: u64,
    /// The requests it holds: sorted, disjoint, non-empty half-open ranges `first..end`.
    pub ranges: Vec<(u64, u64)>,
    /// Leaf counts per shared bin (whole numbers).
    pub leaf_counts: Vec<f64>,
    /// Parent counts per shared bin (whole numbers).
    pub parent_counts: Vec<f64>,
    /// Parent requests in the block.
    pub requests: u64,
    /// Leaf calls that fired a duplicate.
    pub hedges: u64,
    /// Service time of the original attempts (ms).
    pub primary_work_ms: f64,
    /// Service time the duplicates consumed (ms).
    pub backup_work_ms: f64,
}

/// Accumulating histograms of one [`TailConfig`].
///
/// ```
/// use tail_lab_core::tail::mitigation::Mitigation;
/// use tail_lab_core::tail::profile::ProfileId;
/// use tail_lab_core::tail::request::{TailConfig, TailModel};
/// use tail_lab_core::tail::tail_run::TailRun;
///
/// // 100 leaves per parent, the default leaf profile, no fix, seed 1. (`TailRun::new`
/// // calibrates on 2^22 draws; a shallower calibration keeps the example quick.)
/// let config = TailConfig::new(100, ProfileId::Default.profile(), Mitigation::None, 1).unwrap();
/// let mut run = TailRun::from_model(TailModel::with_calibration(config, 1 << 14));
/// run.run(2_000).unwrap();
/// assert_eq!(run.requests(), 2_000);
/// // A parent waits for its slowest leaf: its median is a leaf's 0.5^(1/100) ≈ p99.3.
/// assert!(run.parent_percentile(0.5).unwrap() > run.leaf_percentile(0.9).unwrap());
/// // A level outside 0..=1 is refused by name.
/// assert_eq!(run.parent_percentile(1.5).unwrap_err().param(), "q");
/// ```
#[derive(Debug, Clone)]
pub struct TailRun {
    model: TailModel,
    leaf: Histogram,
    parent: Histogram,
    requests: u64,
    hedges: u64,
    primary_work_ms: f64,
    backup_work_ms: f64,
    scratch: Vec<f64>,
    /// The leaf counts of the range being run, moved into `leaf` when it ends.
    leaf_tally: BinTally,
    /// The requests accumulated, as sorted, disjoint, coalesced ranges `first..end`.
    ranges: Vec<(u64, u64)>,
}

/// Most requests × fan-out a run may hold: leaf counts are `f64`, exact up to 2^53.
pub const MAX_LEAVES: u64 = 1 << 53;

/// Most separate request ranges a run (and so a block) may hold; ranges coalesce when they
/// touch, so a run fed in order holds one.
pub const MAX_BLOCK_RANGES: usize = 1 << 16;

/// The union of two sorted, disjoint, coalesced range lists, in one pass; `None` when a
/// range of one overlaps a range of the other.
fn merge_ranges(a: &[(u64, u64)], b: &[(u64, u64)]) -> Option<Vec<(u64, u64)>> {
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = if j == b.len() || (i < a.len() && a[i].0 < b[j].0) {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        match out.last_mut() {
            Some(last) if next.0 < last.1 => return None,
            Some(last) if next.0 == last.1 => last.1 = next.1,
            _ => out.push(next),
        }
    }
    Some(out)
}

impl TailRun {
    /// A fresh run of `config` (measures the leaf quantiles once).
    pub fn new(config: TailConfig) -> Self {
        Self::from_model(TailModel::new(config))
    }

    /// A fresh run on an already prepared model.
    pub fn from_model(model: TailModel) -> Self {
        TailRun {
            leaf: Histogram::new(),
            parent: Histogram::new(),
            requests: 0,
            hedges: 0,
            primary_work_ms: 0.0,
            backup_work_ms: 0.0,
            scratch: Vec::with_capacity(model.config().fanout() as usize),
            leaf_tally: BinTally::new(),
            ranges: Vec::new(),
            model,
        }
    }

    /// The first request after every request this run holds (0 for a fresh run).
    pub fn next_request(&self) -> u64 {
        self.ranges.last().map_or(0, |&(_, end)| end)
    }

    /// Most more requests this run can take: its leaf counts stay exact (`MAX_LEAVES`).
    pub fn room(&self) -> u64 {
        let fanout = u64::from(self.model.config().fanout());
        (MAX_LEAVES / fanout).saturating_sub(self.requests)
    }

    /// Simulates `count` more parent requests: requests `next_request()..+count`, after every
    /// request the run holds (for a run that only ever called `run`, `requests()..`).
    pub fn run(&mut self, count: u64) -> Result<(), ParamError> {
        self.run_range(self.next_request(), count)
    }

    /// Simulates requests `first..first + count` and adds them to this run. Samples are
    /// addressed, so any range can run anywhere: workers each run disjoint ranges into runs of
    /// their own, and [`TailRun::absorb`] merges their [`TailRun::block`]s into one run with
    /// the same histograms, to the bit, as running every range here.
    ///
    /// Refused, changing nothing, when the range overlaps requests this run already holds (they
    /// would be counted twice), ends past 2^53, or would take the run past [`MAX_LEAVES`].
    pub fn run_range(&mut self, first: u64, count: u64) -> Result<(), ParamError> {
        let bins = shared_bins();
        let fanout = self.model.config().fanout();
        let end =
            first
                .checked_add(count)
                .filter(|&e| e <= 1 << 53)
                .ok_or(ParamError::OutOfRange {
                    param: "count",
                    got: count as f64,
                    expected: "a range that ends at or below 2^53",
                })?;
        if count > self.room() {
            return Err(ParamError::OutOfRange {
                param: "count",
                got: count as f64,
                expected: "at most 2^53 leaves in one run (fan-out × requests)",
            });
        }
        let Some(ranges) = merge_ranges(&self.ranges, &[(first, end)][..usize::from(first < end)])
        else {
            return Err(ParamError::OutOfRange {
                param: "first",
                got: first as f64,
                expected: "a range of requests this run does not hold yet",
            });
        };
        if ranges.len() > MAX_BLOCK_RANGES {
            return Err(ParamError::OutOfRange {
                param: "first",
                got: first as f64,
                expected: "a range that touches one this run holds (it holds 65536 separate ones)",
            });
        }
        self.ranges = ranges;
        // Leaves are counted in integers and moved into the `f64` histogram once per stretch
        // of requests small enough for the tally's `u32` counts.
        let stretch = BinTally::CAPACITY / u64::from(fanout);
        let mut start = first;
        while start < end {
            let stop = end.min(start.saturating_add(stretch));
            for k in start..stop {
                let tally = &mut self.leaf_tally;
                let request = self
                    .model
                    .simulate(k, &mut self.scratch, bins, |bin| tally.record_bin(bin));
                tally.add_to_total(fanout);
                self.parent.record(bins, request.parent_ms);
                self.hedges += u64::from(request.hedges);
                self.primary_work_ms += request.primary_work_ms;
                self.backup_work_ms += request.backup_work_ms;
            }
            self.leaf.take_tally(&mut self.leaf_tally);
            start = stop;
        }
        self.requests += end - first;
        Ok(())
    }

    /// What this run has accumulated, to move to another run ([`TailRun::absorb`]).
    pub fn block(&self) -> RunBlock {
        RunBlock {
            fingerprint: self.model.fingerprint(),
            ranges: self.ranges.clone(),
            leaf_counts: self.leaf.counts().to_vec(),
            parent_counts: self.parent.counts().to_vec(),
            requests: self.requests,
            hedges: self.hedges,
            primary_work_ms: self.primary_work_ms,
            backup_work_ms: self.backup_work_ms,
        }
    }

    /// Adds a block accumulated elsewhere (by a run of the same model) to this run.
    ///
    /// Refused, leaving the run unchanged, unless the block is whole and could have come from
    /// simulating its requests under this model:
    /// - the same [`TailModel::fingerprint`] (fan-out, profile, fix, seed, calibration);
    /// - request ranges that are sorted, disjoint, non-empty, at most [`MAX_BLOCK_RANGES`] of
    ///   them, ending at or below 2^53, holding `requests` requests, none of which this run
    ///   holds already (a block merged twice is refused);
    /// - one whole, non-negative count per shared bin, `fanout × requests` leaves and
    ///   `requests` parents, and the run's total within [`MAX_LEAVES`];
    /// - hedge tallies a run could produce: none without a hedge; with one, at most
    ///   `fanout × requests` hedges, primary work between the fastest and the slowest leaf
    ///   times the leaves (with 10^-9 of relative slack for the order of floating-point
    ///   additions), and backup work at most the primary work (a duplicate runs only while its
    ///   original is still outstanding) and zero without hedges.
    ///
    /// The histograms' merge is exact in any order; the work sums are floating-point, so merge
    /// blocks in a fixed order to keep their last bits fixed too.
    pub fn absorb(&mut self, block: &RunBlock) -> Result<(), ParamError> {
        let out_of_range = |param, got, expected| {
            Err(ParamError::OutOfRange {
                param,
                got,
                expected,
            })
        };
        if block.fingerprint != self.model.fingerprint() {
            return out_of_range(
                "fingerprint",
                block.fingerprint as f64,
                "the fingerprint of a run with this run's fanout, profile, fix and seed",
            );
        }
        let fanout = f64::from(self.model.config().fanout());
        let mut held = 0u64;
        let mut last_end = 0u64;
        for (i, &(first, end)) in block.ranges.iter().enumerate() {
            if first >= end || end > 1 << 53 || (i > 0 && first < last_end) || i >= MAX_BLOCK_RANGES
            {
                return out_of_range(
                    "ranges",
                    first as f64,
                    "at most 65536 sorted, disjoint, non-empty ranges of requests ending at or below 2^53",
                );
            }
            held += end - first;
            last_end = end;
        }
        if held != block.requests {
            return out_of_range(
                "requests",
                block.requests as f64,
                "the number of requests its ranges hold",
            );
        }
        if block.requests > self.room() {
            return out_of_range(
                "requests",
                block.requests as f64,
                "at most 2^53 leaves in one run (fan-out × requests)",
            );
        }
        let Some(merged) = merge_ranges(&self.ranges, &block.ranges) else {
            return out_of_range(
                "ranges",
                block.ranges.len() as f64,
                "requests this run does not hold yet (a block is merged once)",
            );
        };
        if merged.len() > MAX_BLOCK_RANGES {
            return out_of_range(
                "ranges",
                merged.len() as f64,
                "at most 65536 separate ranges in one run, once merged",
            );
        }
        let whole = |counts: &[f64], want: f64| {
            counts.len() == BIN_COUNT
                && counts
                    .iter()
                    .all(|c| c.is_finite() && *c >= 0.0 && c.fract() == 0.0)
                && counts.iter().sum::<f64>() == want
        };
        let requests = block.requests as f64;
        let sum = |counts: &[f64]| counts.iter().sum::<f64>();
        if !whole(&block.leaf_counts, fanout * requests) {
            return out_of_range(
                "leafCounts",
                sum(&block.leaf_counts),
                "840 whole counts summing to fanout × requests",
            );
        }
        if !whole(&block.parent_counts, requests) {
            return out_of_range(
                "parentCounts",
                sum(&block.parent_counts),
                "840 whole counts summing to requests",
            );
        }
        let hedging = self.model.hedge_delay_ms().is_some();
        let leaves = fanout * requests;
        let (fastest, slowest) = self.model.leaf_latency_range();
        const SLACK: f64 = 1e-9;
        let (primary, backup) = (block.primary_work_ms, block.backup_work_ms);
        if !hedging && block.hedges > 0 {
            return out_of_range(
                "hedges",
                block.hedges as f64,
                "0 for a run whose fix does not hedge",
            );
        }
        if block.hedges as f64 > leaves {
            return out_of_range("hedges", block.hedges as f64, "at most fanout × requests");
        }
        let primary_ok = if hedging {
            primary.is_finite()
                && primary >= leaves * fastest * (1.0 - SLACK)
                && primary <= leaves * slowest * (1.0 + SLACK)
        } else {
            primary == 0.0
        };
        if !primary_ok {
            return out_of_range(
                "primaryWorkMs",
                primary,
                "between the fastest and the slowest leaf's ms times fanout × requests (0 without a hedge)",
            );
        }
        let backup_ok = backup.is_finite()
            && backup >= 0.0
            && backup <= primary
            && (block.hedges > 0 || backup == 0.0);
        if !backup_ok {
            return out_of_range(
                "backupWorkMs",
                backup,
                "a finite number of ms from 0 to primaryWorkMs (0 without hedges)",
            );
        }
        self.leaf.add_counts(&block.leaf_counts, leaves);
        self.parent.add_counts(&block.parent_counts, requests);
        self.ranges = merged;
        self.requests += block.requests;
        self.hedges += block.hedges;
        self.primary_work_ms += primary;
        self.backup_work_ms += backup;
        Ok(())
    }

    /// Parent requests simulated so far.
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// The prepared model.
    pub fn model(&self) -> &TailModel {
        &self.model
    }

    /// Leaf histogram (resolved latency of every leaf call, dropped ones included).
    pub fn leaf_histogram(&self) -> &Histogram {
        &self.leaf
    }

    /// Parent histogram.
    pub fn parent_histogram(&self) -> &Histogram {
        &self.parent
    }

    /// Leaf `q`-quantile (ms) of the accumulated histogram; NaN before the first request.
    pub fn leaf_percentile(&self, q: f64) -> Result<f64, ParamError> {
        Ok(self.leaf.percentile(shared_bins(), check_q(q)?))
    }

    /// Parent `q`-quantile (ms) of the accumulated histogram; NaN before the first request.
    pub fn parent_percentile(&self, q: f64) -> Result<f64, ParamError> {
        Ok(self.parent.percentile(shared_bins(), check_q(q)?))
    }

    /// What the hedges cost so far (zeros when the mitigation does not hedge).
    pub fn hedge_cost(&self) -> HedgeCost {
        let calls = self.requests as f64 * f64::from(self.model.config().fanout());
        if calls == 0.0 {
            return HedgeCost::default();
        }
        HedgeCost {
            extra_requests: self.hedges as f64 / calls,
            // Without a hedge no primary work is tallied and no backup ran: 0, not 0/0.
            extra_work: if self.primary_work_ms > 0.0 {
                self.backup_work_ms / self.primary_work_ms
            } else {
                0.0
            },
        }
    }

    /// The latest request this run holds, in full (request 0 before any has run), for
    /// drawing: after `run_range(1000, 5)`, request 1004.
    pub fn last_request(&self) -> RequestTrace {
        self.model.request_at(self.next_request().saturating_sub(1))
    }

    /// Switches to another configuration and starts again from request 0, reusing the
    /// calibration when profile and seed are unchanged (see [`TailModel::with_config`]).
    pub fn reconfigure(&mut self, config: TailConfig) {
        self.model = self.model.with_config(config);
        self.reset();
    }

    /// Request `k` in full, under this run's model.
    pub fn request_at(&self, k: u64) -> RequestTrace {
        self.model.request_at(k)
    }

    /// Clears the histograms and starts again from request 0.
    pub fn reset(&mut self) {
        self.leaf.clear();
        self.parent.clear();
        self.requests = 0;
        self.hedges = 0;
        self.primary_work_ms = 0.0;
        self.backup_work_ms = 0.0;
        self.ranges.clear();
    }
}

/// Requests one call of a binding may add to a run (about a second of work): keeps any single
/// call from freezing a tab.
pub const REQUESTS_PER_CALL: crate::error::CountRange = crate::count_range!(0, 10000000);

fn check_q(q: f64) -> Result<f64, ParamError> {
    crate::error::check_quantile_level("q", q)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tail::mitigation::Mitigation;
    use crate::tail::profile::ProfileId;

    #[test]
    fn runs_accumulate_the_same_way_in_one_go_or_in_pieces() {
        let cfg = TailConfig::new(50, ProfileId::Default.profile(), Mitigation::None, 3).unwrap();
        let mut a = TailRun::new(cfg);
        let mut b = TailRun::from_model(a.model().clone());
        a.run(1000).unwrap();
        for _ in 0..10 {
            b.run(100).unwrap();
        }
        assert_eq!(a.leaf_histogram(), b.leaf_histogram());
        assert_eq!(a.parent_histogram(), b.parent_histogram());
        assert_eq!(a.leaf_histogram().total(), 50_000.0);
        assert_eq!(a.requests(), 1000);
        assert!(a.leaf_percentile(1.5).is_err());
        a.reset();
        assert!(a.parent_percentile(0.5).unwrap().is_nan());
        assert_eq!(a.last_request().request, 0);
    }

    /// `requests` split into blocks of `block` requests, dealt round-robin to `workers` runs
    /// that each reset before a block, merged into one run in block order.
    fn merged(model: &TailModel, requests: u64, block: u64, workers: usize) -> TailRun {
        let mut pool: Vec<TailRun> = (0..workers)
            .map(|_| TailRun::from_model(model.clone()))
            .collect();
        let mut blocks = Vec::new();
        for (i, first) in (0..requests).step_by(block as usize).enumerate() {
            let worker = &mut pool[i % workers];
            worker.reset();
            worker
                .run_range(first, block.min(requests - first))
                .unwrap();
            blocks.push(worker.block());
        }
        let mut main = TailRun::from_model(model.clone());
        for b in &blocks {
            main.absorb(b).unwrap();
        }
        main
    }

    #[test]
    fn blocks_from_any_number_of_workers_merge_to_the_same_bits() {
        for fix in ["none", "hedge-p95", "drop-5"] {
            let cfg = TailConfig::new(
                40,
                ProfileId::Default.profile(),
                Mitigation::from_name(fix).unwrap(),
                8,
            )
            .unwrap();
            let model = TailModel::with_calibration(cfg, 1 << 16);
            let mut single = TailRun::from_model(model.clone());
            single.run(5000).unwrap();
            let one = merged(&model, 5000, 700, 1);
            for workers in [2, 4] {
                let many = merged(&model, 5000, 700, workers);
                assert_eq!(
                    many.leaf_histogram(),
                    one.leaf_histogram(),
                    "{fix}, {workers} workers"
                );
                assert_eq!(many.parent_histogram(), one.parent_histogram());
                assert_eq!(
                    many.hedge_cost(),
                    one.hedge_cost(),
                    "same blocks, same order"
                );
                assert_eq!(many.requests(), 5000);
            }
            // And the histograms are the single run's, to the bit; the work sums differ only
            // by the order of floating-point additions.
            assert_eq!(one.leaf_histogram(), single.leaf_histogram());
            assert_eq!(one.parent_histogram(), single.parent_histogram());
            let (a, b) = (one.hedge_cost(), single.hedge_cost());
            assert_eq!(a.extra_requests, b.extra_requests);
            assert!((a.extra_work - b.extra_work).abs() <= 1e-12 * b.extra_work.max(1e-300));
            // The merged run continues where the blocks stopped.
            assert_eq!(one.last_request(), single.last_request());
        }
    }

    #[test]
    fn a_block_that_is_not_whole_is_refused_and_changes_nothing() {
        let cfg = TailConfig::new(10, ProfileId::Tight.profile(), Mitigation::None, 1).unwrap();
        let model = TailModel::with_calibration(cfg, 1 << 12);
        let mut worker = TailRun::from_model(model.clone());
        worker.run_range(100, 50).unwrap();
        let good = worker.block();
        let mut main = TailRun::from_model(model);
        let mut bad = good.clone();
        bad.leaf_counts[3] += 1.0; // one leaf too many
        assert_eq!(main.absorb(&bad).unwrap_err().param(), "leafCounts");
        let mut bad = good.clone();
        bad.parent_counts.pop();
        assert_eq!(main.absorb(&bad).unwrap_err().param(), "parentCounts");
        let mut bad = good.clone();
        bad.parent_counts[0] = 0.5;
        bad.parent_counts[1] += 0.5;
        assert_eq!(main.absorb(&bad).unwrap_err().param(), "parentCounts");
        let mut bad = good.clone();
        bad.backup_work_ms = f64::NAN;
        assert_eq!(main.absorb(&bad).unwrap_err().param(), "backupWorkMs");
        assert_eq!(main.requests(), 0);
        assert_eq!(main.leaf_histogram().total(), 0.0);
        main.absorb(&good).unwrap();
        assert_eq!(main.requests(), 50);
        assert_eq!(main.leaf_histogram(), worker.leaf_histogram());
    }

    fn hedged_model(seed: u64) -> TailModel {
        let cfg = TailConfig::new(
            10,
            ProfileId::GcPause.profile(),
            Mitigation::from_name("hedge-p95").unwrap(),
            seed,
        )
        .unwrap();
        TailModel::with_calibration(cfg, 1 << 12)
    }

    #[test]
    fn a_block_merged_twice_or_from_another_run_is_refused() {
        let model = hedged_model(1);
        let mut worker = TailRun::from_model(model.clone());
        worker.run_range(100, 50).unwrap();
        let block = worker.block();
        let mut main = TailRun::from_model(model.clone());
        main.absorb(&block).unwrap();
        // The same block again, or one overlapping it, would count requests twice.
        assert_eq!(main.absorb(&block).unwrap_err().param(), "ranges");
        let mut overlapping = TailRun::from_model(model.clone());
        overlapping.run_range(149, 2).unwrap();
        assert_eq!(
            main.absorb(&overlapping.block()).unwrap_err().param(),
            "ranges"
        );
        // A run refuses to simulate requests it already holds.
        assert_eq!(main.run_range(120, 1).unwrap_err().param(), "first");
        // Another seed, profile, fan-out or fix: another fingerprint.
        let mut other = TailRun::from_model(hedged_model(2));
        other.run_range(0, 50).unwrap();
        assert_eq!(
            main.absorb(&other.block()).unwrap_err().param(),
            "fingerprint"
        );
        // Ranges that do not add up to the requests claimed.
        let mut bad = worker.block();
        bad.ranges = vec![(0, 10), (5, 50)];
        bad.ranges[0].0 = 300;
        assert_eq!(main.absorb(&bad).unwrap_err().param(), "ranges");
        let mut bad = worker.block();
        bad.ranges = vec![(200, 260)];
        assert_eq!(main.absorb(&bad).unwrap_err().param(), "requests");
        assert_eq!(main.requests(), 50);
        // A block right after the held ones merges, and the latest request is the last held.
        let mut next = TailRun::from_model(model);
        next.run_range(150, 10).unwrap();
        main.absorb(&next.block()).unwrap();
        assert_eq!(main.last_request().request, 159);
        assert_eq!(main.ranges, vec![(100, 160)]);
    }

    #[test]
    fn counters_cannot_overflow_and_work_sums_stay_what_requests_could_do() {
        let model = hedged_model(3);
        let mut worker = TailRun::from_model(model.clone());
        worker.run_range(0, 400).unwrap();
        let good = worker.block();
        assert!(good.hedges > 0 && good.backup_work_ms > 0.0);
        let mut main = TailRun::from_model(model.clone());
        // 2^53 − 1 requests at fan-out 10 would pass the exact range of the leaf counts.
        let mut huge = good.clone();
        huge.ranges = vec![(0, (1 << 53) - 1)];
        huge.requests = (1 << 53) - 1;
        assert_eq!(main.absorb(&huge).unwrap_err().param(), "requests");
        for (primary, backup, param) in [
            (1e308, 1e308, "primaryWorkMs"),
            (1e300, 0.0, "primaryWorkMs"),
            (1e-300, 0.0, "primaryWorkMs"),
            (
                good.primary_work_ms,
                good.primary_work_ms * 1.5,
                "backupWorkMs",
            ),
            (good.primary_work_ms, f64::INFINITY, "backupWorkMs"),
        ] {
            let mut bad = good.clone();
            bad.primary_work_ms = primary;
            bad.backup_work_ms = backup;
            assert_eq!(
                main.absorb(&bad).unwrap_err().param(),
                param,
                "{primary} {backup}"
            );
        }
        let mut bad = good.clone();
        bad.hedges = 0;
        assert_eq!(main.absorb(&bad).unwrap_err().param(), "backupWorkMs");
        let mut bad = good.clone();
        bad.hedges = 4001;
        assert_eq!(main.absorb(&bad).unwrap_err().param(), "hedges");
        // Without a hedge there are no hedges and no work tallies at all.
        let cfg = TailConfig::new(10, ProfileId::Default.profile(), Mitigation::None, 3).unwrap();
        let plain = TailModel::with_calibration(cfg, 1 << 12);
        let mut w = TailRun::from_model(plain.clone());
        w.run_range(0, 100).unwrap();
        let mut bad = w.block();
        bad.hedges = 1000;
        let mut target = TailRun::from_model(plain);
        assert_eq!(target.absorb(&bad).unwrap_err().param(), "hedges");
        let mut bad = w.block();
        bad.primary_work_ms = 5.0;
        assert_eq!(target.absorb(&bad).unwrap_err().param(), "primaryWorkMs");
        target.absorb(&w.block()).unwrap();
        assert_eq!(target.hedge_cost(), HedgeCost::default());
        // The good block merges, and its cost is a fraction.
        main.absorb(&good).unwrap();
        let cost = main.hedge_cost();
        assert!(
            (0.0..=1.0).contains(&cost.extra_work) && (0.0..=1.0).contains(&cost.extra_requests)
        );
        // A run at its exact-count limit refuses more.
        let mut full = TailRun::from_model(model);
        full.requests = MAX_LEAVES / 10 - 5;
        assert_eq!(full.run_range(0, 6).unwrap_err().param(), "count");
    }

    #[test]
    fn ranges_coalesce_and_overlaps_are_found() {
        fn insert_range(r: &mut Vec<(u64, u64)>, first: u64, end: u64) -> bool {
            merge_ranges(r, &[(first, end)]).map(|m| *r = m).is_some()
        }
        let mut r = Vec::new();
        assert!(insert_range(&mut r, 10, 20));
        assert!(insert_range(&mut r, 30, 40));
        assert!(insert_range(&mut r, 20, 30));
        assert_eq!(r, vec![(10, 40)]);
        assert!(!insert_range(&mut r, 39, 41));
        assert!(!insert_range(&mut r, 0, 11));
        assert!(!insert_range(&mut r, 15, 16));
        assert!(!insert_range(&mut r, 0, 100));
        assert!(insert_range(&mut r, 0, 5));
        assert!(insert_range(&mut r, 50, 60));
        assert!(!insert_range(&mut r, 4, 51));
        assert_eq!(r, vec![(0, 5), (10, 40), (50, 60)]);
        assert!(insert_range(&mut r, 5, 10));
        assert_eq!(r, vec![(0, 40), (50, 60)]);
    }

    #[test]
    fn a_run_holds_at_most_65536_separate_ranges() {
        let model = hedged_model(4);
        let mut run = TailRun::from_model(model.clone());
        // Every other request: each range stands alone.
        for k in 0..MAX_BLOCK_RANGES as u64 {
            run.run_range(2 * k, 1).unwrap();
        }
        assert_eq!(run.ranges.len(), MAX_BLOCK_RANGES);
        let far = 2 * MAX_BLOCK_RANGES as u64 + 10;
        assert_eq!(run.run_range(far, 1).unwrap_err().param(), "first");
        // One that touches a held range still merges.
        run.run_range(1, 1).unwrap();
        assert_eq!(run.ranges.len(), MAX_BLOCK_RANGES - 1);
        // A block that would take it past the cap is refused.
        let mut other = TailRun::from_model(model);
        other.run_range(far, 1).unwrap();
        other.run_range(far + 2, 1).unwrap();
        assert_eq!(run.absorb(&other.block()).unwrap_err().param(), "ranges");
    }
}
