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
/// to merge into another run of the same configuration ([`TailRun::absorb`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RunBlock {
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
            model,
        }
    }

    /// Simulates `count` more parent requests: requests `requests()..requests() + count`.
    pub fn run(&mut self, count: u64) {
        self.run_range(self.requests, count);
    }

    /// Simulates requests `first..first + count` and adds them to this run. Samples are
    /// addressed, so any range can run anywhere: workers each run disjoint ranges into runs of
    /// their own, and [`TailRun::absorb`] merges their [`TailRun::block`]s into one run with
    /// the same histograms, to the bit, as running every range here.
    pub fn run_range(&mut self, first: u64, count: u64) {
        let bins = shared_bins();
        let fanout = self.model.config().fanout();
        let end = first.saturating_add(count);
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
    }

    /// What this run has accumulated, to move to another run ([`TailRun::absorb`]).
    pub fn block(&self) -> RunBlock {
        RunBlock {
            leaf_counts: self.leaf.counts().to_vec(),
            parent_counts: self.parent.counts().to_vec(),
            requests: self.requests,
            hedges: self.hedges,
            primary_work_ms: self.primary_work_ms,
            backup_work_ms: self.backup_work_ms,
        }
    }

    /// Adds a block accumulated elsewhere (by a run of the same configuration) to this run.
    ///
    /// Refused, leaving the run unchanged, unless the block is whole: one count per shared bin
    /// in each histogram, counts whole and non-negative, `fanout × requests` leaves and
    /// `requests` parents, finite non-negative work. The histograms' merge is exact in any
    /// order; the work sums are floating-point, so merge blocks in a fixed order to keep their
    /// last bits fixed too.
    pub fn absorb(&mut self, block: &RunBlock) -> Result<(), ParamError> {
        let fanout = f64::from(self.model.config().fanout());
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
            return Err(ParamError::OutOfRange {
                param: "leafCounts",
                got: sum(&block.leaf_counts),
                expected: "840 whole counts summing to fanout × requests",
            });
        }
        if !whole(&block.parent_counts, requests) {
            return Err(ParamError::OutOfRange {
                param: "parentCounts",
                got: sum(&block.parent_counts),
                expected: "840 whole counts summing to requests",
            });
        }
        for (param, got) in [
            ("primaryWorkMs", block.primary_work_ms),
            ("backupWorkMs", block.backup_work_ms),
        ] {
            if !(got.is_finite() && got >= 0.0) {
                return Err(ParamError::OutOfRange {
                    param,
                    got,
                    expected: "a finite number of ms ≥ 0",
                });
            }
        }
        if block.hedges as f64 > fanout * requests {
            return Err(ParamError::OutOfRange {
                param: "hedges",
                got: block.hedges as f64,
                expected: "at most fanout × requests",
            });
        }
        self.leaf.add_counts(&block.leaf_counts, fanout * requests);
        self.parent.add_counts(&block.parent_counts, requests);
        self.requests += block.requests;
        self.hedges += block.hedges;
        self.primary_work_ms += block.primary_work_ms;
        self.backup_work_ms += block.backup_work_ms;
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

    /// The most recent request in full (request 0 before any has run), for drawing.
    pub fn last_request(&self) -> RequestTrace {
        self.model.request_at(self.requests.saturating_sub(1))
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
    }
}

fn check_q(q: f64) -> Result<f64, ParamError> {
    crate::error::check_range("q", q, 0.0, 1.0, "a quantile level in 0..=1")
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
        a.run(1000);
        for _ in 0..10 {
            b.run(100);
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
            worker.run_range(first, block.min(requests - first));
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
            single.run(5000);
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
        worker.run_range(100, 50);
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
}
