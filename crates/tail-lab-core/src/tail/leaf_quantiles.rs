//! The empirical leaf distribution of a profile, measured once and memoized per run.
//!
//! A lognormal plus an occasional additive lognormal pause has no closed-form quantile, so the
//! lab measures it: [`LeafQuantiles::measure`] draws addressed samples from the calibration
//! stream (never the stream the run itself uses) into a histogram on the shared log bins, and
//! reads quantiles back by interpolating inside a bin. Binning instead of sorting keeps the
//! measurement O(draws) and 7 KB, which buys depth: the default 2^22 draws leave about 160 draws
//! beyond the parent p99 at fan-out 256 (leaf level `0.99^(1/256) = 1 − 3.9e-5`), where 2^18
//! sorted draws would leave ten. It is still an estimate, and `tests/it/closed_forms.rs` checks it
//! against the numerically exact CDF.
//!
//! If leaves are independent, n of them all answer within `t` with probability `F(t)^n`, so the
//! parent's `q`-quantile is the leaf's `q^(1/n)`-quantile: [`LeafQuantiles::parent_quantile`].

use crate::error::{ParamError, check_quantile_level};
use crate::sampling::address::{SampleStream, Stream};
use crate::sampling::histogram::Histogram;
use crate::sampling::histogram::shared_bins;
use crate::tail::profile::LeafSampler;
use crate::theory::check_fanout;

/// The random stream that measures a profile's empirical leaf quantiles (hedge thresholds, the
/// fan-out strip): id 2, never a draw the requests see.
pub const CALIBRATION_STREAM: Stream = Stream::new(2);

/// Calibration draws used unless a caller asks for another depth.
pub const DEFAULT_CALIBRATION_DRAWS: usize = 1 << 22;

/// Calibration draws one step of a stepped measurement may take: up to a whole default
/// calibration.
pub const STEP_DRAWS: crate::error::CountRange = crate::count_range!(1, 4194304);
const _: () = assert!(STEP_DRAWS.hi == DEFAULT_CALIBRATION_DRAWS as u64);

/// The measured leaf distribution of one profile.
#[derive(Debug, Clone, PartialEq)]
pub struct LeafQuantiles {
    histogram: Histogram,
}

/// A measurement in progress: the same draws as [`LeafQuantiles::measure`], taken in steps, so
/// a page can spread the calibration over several tasks instead of one long one.
#[derive(Debug, Clone)]
pub struct Calibration {
    seed: u64,
    next: u64,
    draws: u64,
    histogram: Histogram,
}

impl Calibration {
    /// A measurement of `draws` (≥ 1) calibration draws under `seed`.
    pub fn new(seed: u64, draws: usize) -> Self {
        Calibration {
            seed,
            next: 0,
            draws: draws.max(1) as u64,
            histogram: Histogram::new(),
        }
    }

    /// Takes up to `count` more draws; true once all are taken.
    pub fn step(&mut self, sampler: &LeafSampler, count: u64) -> bool {
        let bins = shared_bins();
        let end = self.next.saturating_add(count).min(self.draws);
        for j in self.next..end {
            let t = sampler.sample(SampleStream::at(self.seed, CALIBRATION_STREAM, j, 0, 0));
            self.histogram.record(bins, t);
        }
        self.next = end;
        self.done()
    }

    /// True once every draw is taken.
    pub fn done(&self) -> bool {
        self.next >= self.draws
    }

    /// The fraction (0..=1) of draws taken.
    pub fn progress(&self) -> f64 {
        self.next as f64 / self.draws as f64
    }

    /// The table, taking whatever draws are left first.
    pub fn finish(mut self, sampler: &LeafSampler) -> LeafQuantiles {
        self.step(sampler, u64::MAX);
        LeafQuantiles {
            histogram: self.histogram,
        }
    }
}

impl LeafQuantiles {
    /// Draws `draws` (≥ 1) leaf latencies from the calibration stream of `seed`.
    pub fn measure(sampler: &LeafSampler, seed: u64, draws: usize) -> Self {
        Calibration::new(seed, draws).finish(sampler)
    }

    /// Builds the table from arbitrary draws (ms).
    pub fn from_draws(draws: impl IntoIterator<Item = f64>) -> Self {
        let bins = shared_bins();
        let mut histogram = Histogram::new();
        draws.into_iter().for_each(|t| histogram.record(bins, t));
        LeafQuantiles { histogram }
    }

    /// Number of draws behind the table.
    pub fn draws(&self) -> u64 {
        self.histogram.total() as u64
    }

    /// The histogram of the calibration draws.
    pub fn histogram(&self) -> &Histogram {
        &self.histogram
    }

    /// The leaf `q`-quantile in ms, for a level `q` in 0..=1.
    pub fn quantile(&self, q: f64) -> Result<f64, ParamError> {
        Ok(self.quantile_at(check_quantile_level("q", q)?))
    }

    /// [`LeafQuantiles::quantile`] at a level the caller knows is in 0..=1.
    pub(crate) fn quantile_at(&self, q: f64) -> f64 {
        self.histogram.percentile(shared_bins(), q)
    }

    /// The empirical `F(t)`: fraction of draws at or below `t` ms.
    pub fn cdf(&self, t_ms: f64) -> f64 {
        1.0 - self.histogram.survival(shared_bins(), t_ms)
    }

    /// The parent's `q`-quantile (ms; `q` in 0..=1) at fan-out `fanout` (1..=1024): the leaf's
    /// `q^(1/n)`-quantile.
    pub fn parent_quantile(&self, q: f64, fanout: u32) -> Result<f64, ParamError> {
        check_quantile_level("q", q)?;
        check_fanout("fanout", fanout)?;
        Ok(self.parent_quantile_at(q, fanout))
    }

    /// [`LeafQuantiles::parent_quantile`] with arguments the caller knows are valid.
    fn parent_quantile_at(&self, q: f64, fanout: u32) -> f64 {
        self.quantile_at(libm::pow(q, 1.0 / f64::from(fanout)))
    }
}

impl LeafQuantiles {
    /// The parent's `q`-quantile (ms; `q` in 0..=1) at every fan-out `1..=max_fanout`
    /// (`max_fanout` in 1..=1024), index `n − 1`.
    pub fn parent_curve(&self, q: f64, max_fanout: u32) -> Result<Vec<f64>, ParamError> {
        check_quantile_level("q", q)?;
        check_fanout("maxFanout", max_fanout)?;
        Ok((1..=max_fanout)
            .map(|n| self.parent_quantile_at(q, n))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tail::profile::ProfileId;

    #[test]
    fn quantiles_of_known_draws() {
        // Log-uniform draws between 1 and 1024 ms: the q-quantile is 2^(10q).
        let n = 100_000;
        let t = LeafQuantiles::from_draws(
            (0..n).map(|i| libm::exp2(10.0 * (i as f64 + 0.5) / n as f64)),
        );
        assert_eq!(t.draws(), n as u64);
        for q in [0.1, 0.5, 0.95, 0.999] {
            assert!((t.quantile(q).unwrap() / libm::exp2(10.0 * q) - 1.0).abs() < 2e-3);
        }
        assert!((t.cdf(32.0) - 0.5).abs() < 1e-4);
        assert_eq!(t.parent_quantile(0.5, 1), t.quantile(0.5));
        // q^(1/n) grows with n, so the parent quantile never falls as fan-out grows.
        assert!(t.parent_quantile(0.5, 10).unwrap() >= t.parent_quantile(0.5, 2).unwrap());
        assert_eq!(t.quantile(f64::NAN).unwrap_err().param(), "q");
        assert!(t.quantile(1.5).is_err());
        assert_eq!(t.parent_quantile(0.5, 0).unwrap_err().param(), "fanout");
        assert_eq!(t.parent_curve(0.5, 1025).unwrap_err().param(), "maxFanout");
        assert_eq!(
            t.parent_curve(0.5, 3).unwrap()[2],
            t.parent_quantile(0.5, 3).unwrap()
        );
    }

    #[test]
    fn measuring_is_deterministic_and_seed_dependent() {
        let s = LeafSampler::new(ProfileId::Default.profile());
        let a = LeafQuantiles::measure(&s, 1, 4096);
        // Taken in uneven steps, the same draws give the same table, bit for bit.
        let mut c = Calibration::new(1, 4096);
        assert!(!c.step(&s, 1000) && !c.step(&s, 3000) && c.step(&s, 500));
        assert_eq!(c.progress(), 1.0);
        assert_eq!(c.finish(&s), a);
        assert_eq!(a, LeafQuantiles::measure(&s, 1, 4096));
        assert_ne!(a, LeafQuantiles::measure(&s, 2, 4096));
    }
}
