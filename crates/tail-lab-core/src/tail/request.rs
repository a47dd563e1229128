//! One parent request of the Tail piece, and the prepared model that produces it.
//!
//! A parent sends one call to each of `fanout` leaves and answers when the last one it waits
//! for is in. [`TailModel::request_at`] returns everything about request `k`: each leaf's
//! original attempt, where it resolved after any hedge, which leaf the parent waited on, and
//! what was discarded. Because samples are addressed, leaf `i` of request `k` is the same at
//! every fan-out.

use crate::error::ParamError;
use crate::sampling::address::{RequestKey, Stream};
use crate::sampling::histogram::{LogBins, shared_bins};
use crate::tail::leaf_quantiles::{Calibration, DEFAULT_CALIBRATION_DRAWS, LeafQuantiles};
use crate::tail::mitigation::Mitigation;
use crate::tail::profile::{LeafProfile, LeafSampler};
use crate::theory::check_fanout;

/// The random stream of the Tail piece's leaf latencies (id 1).
pub const REQUEST_STREAM: Stream = Stream::new(1);

// A leaf's attempts: its original call, and the duplicate a hedge sends.
const ORIGINAL: u32 = 0;
const DUPLICATE: u32 = 1;

/// What a Tail run simulates.
#[derive(Debug, Clone, PartialEq)]
pub struct TailConfig {
    fanout: u32,
    profile: LeafProfile,
    mitigation: Mitigation,
    seed: u64,
}

impl TailConfig {
    /// `fanout` leaves (1..=1024) per parent, leaf latencies from `profile`, `mitigation` applied,
    /// everything drawn under `seed`.
    pub fn new(
        fanout: u32,
        profile: LeafProfile,
        mitigation: Mitigation,
        seed: u64,
    ) -> Result<Self, ParamError> {
        check_fanout("fanout", fanout)?;
        Ok(TailConfig {
            fanout,
            profile,
            mitigation,
            seed,
        })
    }

    /// Leaves per parent request.
    pub fn fanout(&self) -> u32 {
        self.fanout
    }
    /// The leaf latency profile.
    pub fn profile(&self) -> &LeafProfile {
        &self.profile
    }
    /// The mitigation applied.
    pub fn mitigation(&self) -> Mitigation {
        self.mitigation
    }
    /// The seed every sample is addressed under.
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// A duplicate sent for a slow leaf.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HedgeOutcome {
    /// When the duplicate was sent (ms after the parent started): the hedge delay.
    pub sent_at_ms: f64,
    /// The duplicate's own latency (ms), counted from when it was sent.
    pub retry_ms: f64,
    /// True when the duplicate answered first, so the original attempt was abandoned.
    pub won: bool,
}

/// One leaf of a parent request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeafOutcome {
    /// The original attempt's latency (ms): where it lands if nothing intervenes.
    pub original_ms: f64,
    /// When the leaf's answer reached the parent (ms), after any hedge.
    pub resolved_ms: f64,
    /// The duplicate, when one was sent.
    pub hedge: Option<HedgeOutcome>,
    /// True when the parent answered without this leaf (it still ran, and still counts in the
    /// leaf histogram).
    pub dropped: bool,
}

/// One whole parent request.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestTrace {
    /// The request index `k`.
    pub request: u64,
    /// Every leaf, in leaf order.
    pub leaves: Vec<LeafOutcome>,
    /// When the parent answered (ms).
    pub parent_ms: f64,
    /// The leaf the parent waited on (the last one it needed).
    pub waited_on: usize,
    /// The hedge delay (ms) when the mitigation hedges.
    pub hedge_delay_ms: Option<f64>,
}

/// A [`TailConfig`] made ready to simulate: sampling tables built, leaf quantiles measured
/// (memoized here), hedge delay calibrated on the calibration stream.
#[derive(Debug, Clone)]
pub struct TailModel {
    config: TailConfig,
    sampler: LeafSampler,
    quantiles: LeafQuantiles,
    hedge_delay_ms: Option<f64>,
    keep: usize,
}

/// A leaf's original attempt (ms, and its shared bin) and, when one was sent, its duplicate's
/// latency (ms).
#[derive(Debug, Clone, Copy)]
struct LeafDraw {
    original: f64,
    original_bin: usize,
    retry: Option<f64>,
}

impl LeafDraw {
    /// When the leaf answered: the first of the original and the duplicate sent at `delay`.
    #[inline(always)]
    fn resolved(self, delay: f64) -> f64 {
        self.retry
            .map_or(self.original, |retry| self.original.min(delay + retry))
    }

    /// The bin of [`Self::resolved`] on `bins`.
    #[inline(always)]
    fn resolved_bin(self, delay: f64, bins: &LogBins) -> usize {
        match self.retry {
            None => self.original_bin,
            Some(_) => bins.bin_of(self.resolved(delay)),
        }
    }
}

/// Per-request accounting that the fast path hands back.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct RequestTally {
    pub parent_ms: f64,
    pub hedges: u32,
    pub primary_work_ms: f64,
    pub backup_work_ms: f64,
}

/// A [`TailModel`] being prepared: its calibration taken a step at a time.
///
/// Small until its first step: the sampling tables (about 200 KB) are built then, so builders
/// that are made and dropped without stepping (a page whose garbage collector has not run
/// their finalizers yet) hold almost nothing.
#[derive(Debug, Clone)]
pub struct ModelBuilder {
    config: TailConfig,
    sampler: Option<LeafSampler>,
    calibration: Calibration,
}

impl ModelBuilder {
    /// Takes up to `draws` more calibration draws; true once the model is ready.
    pub fn step(&mut self, draws: u64) -> bool {
        let profile = &self.config.profile;
        let sampler = self
            .sampler
            .get_or_insert_with(|| LeafSampler::new(profile.clone()));
        self.calibration.step(sampler, draws)
    }

    /// The fraction (0..=1) of the calibration done.
    pub fn progress(&self) -> f64 {
        self.calibration.progress()
    }

    /// The model (finishing the calibration first if steps are left).
    pub fn finish(self) -> TailModel {
        let sampler = self
            .sampler
            .unwrap_or_else(|| LeafSampler::new(self.config.profile.clone()));
        let quantiles = self.calibration.finish(&sampler);
        TailModel::assemble(self.config, sampler, quantiles)
    }
}

impl TailModel {
    /// Prepares `config` with the default calibration depth.
    pub fn new(config: TailConfig) -> Self {
        Self::with_calibration(config, DEFAULT_CALIBRATION_DRAWS)
    }

    /// Prepares `config`, measuring the leaf quantiles from `draws` calibration samples.
    pub fn with_calibration(config: TailConfig, draws: usize) -> Self {
        let sampler = LeafSampler::new(config.profile.clone());
        let quantiles = LeafQuantiles::measure(&sampler, config.seed, draws);
        Self::assemble(config, sampler, quantiles)
    }

    /// Starts preparing `config` in steps ([`ModelBuilder::step`]): the same model as
    /// [`TailModel::new`], without one long calibration.
    pub fn builder(config: TailConfig) -> ModelBuilder {
        ModelBuilder {
            sampler: None,
            calibration: Calibration::new(config.seed, DEFAULT_CALIBRATION_DRAWS),
            config,
        }
    }

    /// The model from its measured parts; the hedge delay and the number of leaves waited for
    /// are derived here and nowhere else.
    fn assemble(config: TailConfig, sampler: LeafSampler, quantiles: LeafQuantiles) -> Self {
        let hedge_delay_ms = match config.mitigation {
            Mitigation::Hedge(level) => Some(quantiles.quantile_at(level.get())),
            _ => None,
        };
        let keep = (config.fanout - config.mitigation.dropped_leaves(config.fanout)) as usize;
        TailModel {
            config,
            sampler,
            quantiles,
            hedge_delay_ms,
            keep,
        }
    }

    /// The same model under another configuration. The sampling tables and the measured leaf
    /// quantiles depend only on profile and seed, so when those match they are reused (fan-out
    /// and mitigation changes cost no re-measurement); otherwise they are rebuilt.
    pub fn with_config(&self, config: TailConfig) -> TailModel {
        if config.profile != self.config.profile || config.seed != self.config.seed {
            return TailModel::with_calibration(config, self.quantiles.draws() as usize);
        }
        Self::assemble(config, self.sampler.clone(), self.quantiles.clone())
    }

    /// The configuration.
    pub fn config(&self) -> &TailConfig {
        &self.config
    }

    /// The shortest and the longest latency (ms) one leaf call can take under this model's
    /// profile ([`LeafSampler::latency_range`]).
    pub fn leaf_latency_range(&self) -> (f64, f64) {
        self.sampler.latency_range()
    }

    /// A 64-bit fingerprint of everything a request's numbers depend on: the configuration
    /// (fan-out, profile, mitigation, seed; a measured profile by an FNV-1a hash of its knots'
    /// bits) and the calibration depth. Two models with the same
    /// fingerprint simulate the same requests; [`crate::tail::tail_run::RunBlock`]s carry it so
    /// a block from another run is refused. FNV-1a over the `Debug` text, which prints every
    /// number in its shortest round-trip form and so is the same on every target.
    pub fn fingerprint(&self) -> u64 {
        let text = format!("{:?}/{}", self.config, self.quantiles.draws());
        text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    /// The measured leaf quantiles (calibration stream).
    pub fn leaf_quantiles(&self) -> &LeafQuantiles {
        &self.quantiles
    }

    /// The hedge delay in ms, when the mitigation hedges.
    pub fn hedge_delay_ms(&self) -> Option<f64> {
        self.hedge_delay_ms
    }

    /// Leaf `leaf`'s original attempt and, when it outlasted `delay` (ms; `f64::INFINITY`
    /// when not hedging), the duplicate's own latency. The one place a leaf is hedged: both
    /// [`TailModel::request_at`] and the hot loop call it.
    #[inline(always)]
    fn draw_leaf(&self, key: RequestKey, leaf: u32, delay: f64, bins: &LogBins) -> LeafDraw {
        let (original, original_bin) = self.sampler.sample_binned(key.sample(leaf, ORIGINAL), bins);
        LeafDraw {
            original,
            original_bin,
            retry: (original > delay).then(|| self.sampler.sample(key.sample(leaf, DUPLICATE))),
        }
    }

    /// Request `k`, in full.
    pub fn request_at(&self, k: u64) -> RequestTrace {
        let key = RequestKey::new(self.config.seed, REQUEST_STREAM, k);
        let delay = self.hedge_delay_ms.unwrap_or(f64::INFINITY);
        let mut leaves: Vec<LeafOutcome> = (0..self.config.fanout)
            .map(|i| {
                let draw = self.draw_leaf(key, i, delay, shared_bins());
                LeafOutcome {
                    original_ms: draw.original,
                    resolved_ms: draw.resolved(delay),
                    hedge: draw.retry.map(|retry_ms| HedgeOutcome {
                        sent_at_ms: delay,
                        retry_ms,
                        won: delay + retry_ms < draw.original,
                    }),
                    dropped: false,
                }
            })
            .collect();
        // The parent waits for the keep-th earliest leaf; ties go to the lower leaf index.
        let mut order: Vec<usize> = (0..leaves.len()).collect();
        order.sort_by(|&a, &b| {
            leaves[a]
                .resolved_ms
                .total_cmp(&leaves[b].resolved_ms)
                .then(a.cmp(&b))
        });
        let waited_on = order[self.keep - 1];
        for &i in &order[self.keep..] {
            leaves[i].dropped = true;
        }
        RequestTrace {
            request: k,
            parent_ms: leaves[waited_on].resolved_ms,
            leaves,
            waited_on,
            hedge_delay_ms: self.hedge_delay_ms,
        }
    }

    /// The fast path: simulates request `k`, hands the bin (on `bins`, [`shared_bins`]) of
    /// every leaf's resolved latency to `leaf_sink`, and returns the parent latency and work
    /// tally. `scratch` is reused across calls.
    #[inline]
    pub(crate) fn simulate(
        &self,
        k: u64,
        scratch: &mut Vec<f64>,
        bins: &LogBins,
        leaf_sink: impl FnMut(usize),
    ) -> RequestTally {
        // One loop per shape, chosen once per request: the per-leaf code then carries no
        // branch on the mitigation (a JIT compiling the wasm does not unswitch loops for us).
        match (self.hedge_delay_ms, self.keep < self.config.fanout as usize) {
            (None, false) => self.simulate_shape::<false, false>(k, scratch, bins, leaf_sink),
            (None, true) => self.simulate_shape::<false, true>(k, scratch, bins, leaf_sink),
            (Some(_), false) => self.simulate_shape::<true, false>(k, scratch, bins, leaf_sink),
            (Some(_), true) => self.simulate_shape::<true, true>(k, scratch, bins, leaf_sink),
        }
    }

    #[inline(always)]
    fn simulate_shape<const HEDGE: bool, const PARTIAL: bool>(
        &self,
        k: u64,
        scratch: &mut Vec<f64>,
        bins: &LogBins,
        mut leaf_sink: impl FnMut(usize),
    ) -> RequestTally {
        let key = RequestKey::new(self.config.seed, REQUEST_STREAM, k);
        let delay = self.hedge_delay_ms.unwrap_or(f64::INFINITY);
        let mut tally = RequestTally::default();
        scratch.clear();
        let mut parent: f64 = 0.0;
        for i in 0..self.config.fanout {
            let (resolved, bin) = if HEDGE {
                let draw = self.draw_leaf(key, i, delay, bins);
                let resolved = draw.resolved(delay);
                tally.primary_work_ms += draw.original;
                if draw.retry.is_some() {
                    tally.hedges += 1;
                    // The duplicate ran from the delay until it answered or the original won.
                    tally.backup_work_ms += resolved - delay;
                }
                (resolved, draw.resolved_bin(delay, bins))
            } else {
                self.sampler.sample_binned(key.sample(i, ORIGINAL), bins)
            };
            leaf_sink(bin);
            if PARTIAL {
                scratch.push(resolved);
            } else if resolved > parent {
                // A compare-and-select, not `f64::max`: wasm's f64.max must order NaN and −0,
                // which costs V8 several instructions per leaf; latencies are never NaN.
                parent = resolved;
            }
        }
        tally.parent_ms = if PARTIAL {
            let (_, kth, _) = scratch.select_nth_unstable_by(self.keep - 1, f64::total_cmp);
            *kth
        } else {
            parent
        };
        tally
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tail::profile::ProfileId;

    #[test]
    fn a_model_built_in_steps_is_the_model_built_at_once() {
        let cfg = TailConfig::new(
            100,
            ProfileId::GcPause.profile(),
            Mitigation::from_name("hedge-p95").unwrap(),
            9,
        )
        .unwrap();
        let mut b = TailModel::builder(cfg.clone());
        let mut steps = 0;
        while !b.step(1 << 18) {
            steps += 1;
        }
        assert_eq!(steps, 15);
        assert_eq!(b.progress(), 1.0);
        let stepped = b.finish();
        let direct = TailModel::new(cfg);
        assert_eq!(stepped.leaf_quantiles(), direct.leaf_quantiles());
        assert_eq!(stepped.hedge_delay_ms(), direct.hedge_delay_ms());
    }

    fn model(fanout: u32, fix: &str) -> TailModel {
        let cfg = TailConfig::new(
            fanout,
            ProfileId::Default.profile(),
            Mitigation::from_name(fix).unwrap(),
            7,
        )
        .unwrap();
        TailModel::with_calibration(cfg, 1 << 14)
    }

    #[test]
    fn fanout_is_validated() {
        let p = ProfileId::Default.profile();
        assert_eq!(
            TailConfig::new(0, p.clone(), Mitigation::None, 1)
                .unwrap_err()
                .param(),
            "fanout"
        );
        assert!(TailConfig::new(1025, p.clone(), Mitigation::None, 1).is_err());
        assert!(TailConfig::new(1, p, Mitigation::None, 1).is_ok());
        assert_eq!(Mitigation::hedge(f64::NAN).unwrap_err().param(), "delayQ");
    }

    #[test]
    fn reconfiguring_reuses_calibration_and_matches_a_fresh_model() {
        let base = model(100, "none");
        let cfg = TailConfig::new(
            8,
            ProfileId::Default.profile(),
            Mitigation::from_name("hedge-p95").unwrap(),
            7,
        )
        .unwrap();
        let re = base.with_config(cfg.clone());
        let fresh = TailModel::with_calibration(cfg, 1 << 14);
        assert_eq!(re.hedge_delay_ms(), fresh.hedge_delay_ms());
        assert_eq!(re.request_at(3), fresh.request_at(3));
        // Another seed re-measures.
        let other = TailConfig::new(8, ProfileId::Default.profile(), Mitigation::None, 8).unwrap();
        assert_ne!(
            base.with_config(other).leaf_quantiles(),
            base.leaf_quantiles()
        );
    }

    #[test]
    fn first_leaves_stay_put_when_fanout_changes() {
        let (m8, m200) = (model(8, "none"), model(200, "none"));
        for k in [0, 1, 400] {
            let (a, b) = (m8.request_at(k), m200.request_at(k));
            for i in 0..8 {
                assert_eq!(a.leaves[i].original_ms, b.leaves[i].original_ms);
            }
        }
    }

    #[test]
    fn parent_waits_for_the_slowest_leaf() {
        let m = model(100, "none");
        for k in 0..50 {
            let r = m.request_at(k);
            let max = r.leaves.iter().map(|l| l.resolved_ms).fold(0.0, f64::max);
            assert_eq!(r.parent_ms, max);
            assert_eq!(r.leaves[r.waited_on].resolved_ms, max);
            assert!(r.leaves.iter().all(|l| !l.dropped && l.hedge.is_none()));
        }
    }

    /// The fast path gives request `k`'s parent latency, and the bins of its leaves in order.
    fn assert_fast_path_matches(m: &TailModel, k: u64, r: &RequestTrace) {
        let bins = shared_bins();
        let mut got = Vec::new();
        let tally = m.simulate(k, &mut Vec::new(), bins, |b| got.push(b));
        assert_eq!(tally.parent_ms, r.parent_ms);
        let want: Vec<usize> = r
            .leaves
            .iter()
            .map(|l| bins.bin_of(l.resolved_ms))
            .collect();
        assert_eq!(got, want, "request {k}");
    }

    #[test]
    fn the_fast_path_bins_every_leaf_as_the_trace_does_in_every_shape_and_profile() {
        // Leaves binned from the body's cell, paused leaves binned from their value: both
        // must be `bin_of` of the traced latency, in every profile (tight has no pause).
        // Every loop shape, at odd and tiny fan-outs as well as wide ones.
        for profile in [ProfileId::Default, ProfileId::GcPause, ProfileId::Tight] {
            for (fanout, fix) in [(200, "none"), (1, "none"), (7, "hedge-p95"), (9, "drop-5")] {
                let cfg = TailConfig::new(
                    fanout,
                    profile.profile(),
                    Mitigation::from_name(fix).unwrap(),
                    3,
                )
                .unwrap();
                let m = TailModel::with_calibration(cfg, 1 << 12);
                for k in 0..300 {
                    assert_fast_path_matches(&m, k, &m.request_at(k));
                }
            }
        }
    }

    #[test]
    fn dropping_answers_at_the_kth_leaf_and_marks_the_rest() {
        let m = model(100, "drop-5");
        for k in 0..50 {
            let r = m.request_at(k);
            let mut sorted: Vec<f64> = r.leaves.iter().map(|l| l.resolved_ms).collect();
            sorted.sort_by(f64::total_cmp);
            assert_eq!(r.parent_ms, sorted[94]);
            assert_eq!(r.leaves.iter().filter(|l| l.dropped).count(), 5);
            assert!(
                r.leaves
                    .iter()
                    .filter(|l| l.dropped)
                    .all(|l| l.resolved_ms >= r.parent_ms)
            );
            assert_fast_path_matches(&m, k, &r);
        }
    }

    #[test]
    fn hedges_fire_past_the_delay_and_take_the_first_answer() {
        let m = model(100, "hedge-p95");
        let d = m.hedge_delay_ms().unwrap();
        let (mut fired, mut leaves) = (0, 0);
        for k in 0..200 {
            let r = m.request_at(k);
            for l in &r.leaves {
                leaves += 1;
                match l.hedge {
                    Some(h) => {
                        fired += 1;
                        assert!(l.original_ms > d);
                        assert_eq!(h.sent_at_ms, d);
                        assert_eq!(l.resolved_ms, l.original_ms.min(d + h.retry_ms));
                        assert_eq!(h.won, d + h.retry_ms < l.original_ms);
                    }
                    None => {
                        assert!(l.original_ms <= d);
                        assert_eq!(l.resolved_ms, l.original_ms);
                    }
                }
            }
            assert_fast_path_matches(&m, k, &r);
        }
        // About 5% of leaves fire (binomial sd over 20 000 leaves is 0.15%).
        let share = fired as f64 / leaves as f64;
        assert!((share - 0.05).abs() < 0.01, "{share}");
    }
}
