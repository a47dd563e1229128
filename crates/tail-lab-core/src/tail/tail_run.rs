//! A Tail run: parent requests accumulated into the shared-bin histograms.
//!
//! [`TailRun::run`] simulates the next `count` requests (addresses `k = requests..requests+count`),
//! recording every leaf's resolved latency into the leaf histogram and each parent's latency
//! into the parent histogram. Nothing is stored per request, so a run can go to millions.

use crate::error::ParamError;
use crate::sampling::histogram::{Histogram, shared_bins};
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
            model,
        }
    }

    /// Simulates `count` more parent requests.
    pub fn run(&mut self, count: u64) {
        let bins = shared_bins();
        let end = self.requests.saturating_add(count);
        for k in self.requests..end {
            let leaf = &mut self.leaf;
            let tally = self
                .model
                .simulate(k, &mut self.scratch, |t| leaf.record_uncounted(bins, t));
            leaf.add_to_total(self.model.config().fanout());
            self.parent.record(bins, tally.parent_ms);
            self.hedges += u64::from(tally.hedges);
            self.primary_work_ms += tally.primary_work_ms;
            self.backup_work_ms += tally.backup_work_ms;
        }
        self.requests = end;
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
}
