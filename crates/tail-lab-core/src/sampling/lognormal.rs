//! The lognormal distribution in milliseconds, parameterised the way people describe latency:
//! a median (ms) and the spread `sigma` of its logarithm.

use crate::error::{Ends, NumberRange, ParamError};
use crate::sampling::inverse_cdf::InverseCdfTable;
use crate::sampling::normal;

macro_rules! max_sigma {
    () => {
        5
    };
}

/// The widest log-spread accepted.
#[allow(
    clippy::unnecessary_cast,
    reason = "the literal is written as an integer so that its error text reads as one"
)]
pub const MAX_SIGMA: f64 = max_sigma!() as f64;
const SIGMA_EXPECTED: &str = concat!("a number in (0, ", max_sigma!(), "]");

/// The medians accepted (ms): 1 ns to about 11.6 days.
pub const MEDIAN_MS: NumberRange = NumberRange::new(
    1e-6,
    1e9,
    Ends::Closed,
    "a number of milliseconds in 1e-6..=1e9",
);

/// The log-spreads accepted: above 0, at most [`MAX_SIGMA`].
pub const SIGMA: NumberRange = NumberRange::new(0.0, MAX_SIGMA, Ends::AboveLow, SIGMA_EXPECTED);

/// A lognormal latency: `median_ms · exp(sigma · Z)` with `Z` standard normal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogNormalMs {
    median_ms: f64,
    sigma: f64,
}

impl LogNormalMs {
    /// A lognormal with median `median_ms` (ms, 1e-6..=1e9) and log-spread `sigma` (in (0, 5]).
    pub fn new(median_ms: f64, sigma: f64) -> Result<Self, ParamError> {
        // A floor of 1 ns: below it a mean underflows toward the subnormals, and ratios
        // over it (extra work per unit of work) overflow.
        MEDIAN_MS.check("median_ms", median_ms)?;
        SIGMA.check("sigma", sigma)?;
        Ok(LogNormalMs { median_ms, sigma })
    }

    /// The median in ms.
    pub fn median_ms(&self) -> f64 {
        self.median_ms
    }

    /// The standard deviation of `ln(latency)`.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// The `mu` of `ln(latency)` (natural log of the median in ms).
    pub fn mu(&self) -> f64 {
        libm::log(self.median_ms)
    }

    /// Mean in ms: `median · exp(sigma²/2)`.
    pub fn mean_ms(&self) -> f64 {
        self.median_ms * libm::exp(0.5 * self.sigma * self.sigma)
    }

    /// Second moment in ms²: `E[X²] = exp(2μ + 2σ²) = median² · exp(2σ²)`.
    pub fn second_moment_ms2(&self) -> f64 {
        self.median_ms * self.median_ms * libm::exp(2.0 * self.sigma * self.sigma)
    }

    /// `P(X ≤ t)` for `t` in ms.
    pub fn cdf(&self, t_ms: f64) -> f64 {
        if t_ms <= 0.0 {
            0.0
        } else {
            normal::cdf(libm::log(t_ms / self.median_ms) / self.sigma)
        }
    }

    /// `P(X > t)` for `t` in ms, accurate deep in the upper tail.
    pub fn survival(&self, t_ms: f64) -> f64 {
        if t_ms <= 0.0 {
            1.0
        } else {
            normal::upper_tail(libm::log(t_ms / self.median_ms) / self.sigma)
        }
    }

    /// The density at `t` ms (per ms).
    pub fn density(&self, t_ms: f64) -> f64 {
        if t_ms <= 0.0 {
            0.0
        } else {
            let z = libm::log(t_ms / self.median_ms) / self.sigma;
            normal::density(z) / (t_ms * self.sigma)
        }
    }

    /// The `p`-quantile in ms, `p` in (0, 1).
    pub fn quantile(&self, p: f64) -> f64 {
        self.median_ms * libm::exp(self.sigma * normal::quantile(p))
    }

    /// The tail-accurate sampling table of this distribution.
    pub fn table(&self) -> InverseCdfTable {
        let (m, s) = (self.median_ms, self.sigma);
        InverseCdfTable::from_tail_quantiles(
            |v| m * libm::exp(-s * normal::upper_quantile(v)),
            |v| m * libm::exp(s * normal::upper_quantile(v)),
        )
    }

    /// The same distribution as `rand_distr` defines it: the reference the table is tested
    /// against (and the naive sampler the benchmarks compare with).
    pub fn reference(&self) -> rand_distr::LogNormal<f64> {
        rand_distr::LogNormal::new(self.mu(), self.sigma).expect("validated in new()")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::address::SampleStream;

    #[test]
    fn rejects_bad_parameters_by_name() {
        assert_eq!(LogNormalMs::new(0.0, 0.5).unwrap_err().param(), "median_ms");
        assert_eq!(
            LogNormalMs::new(f64::NAN, 0.5).unwrap_err().param(),
            "median_ms"
        );
        assert_eq!(LogNormalMs::new(4.0, 0.0).unwrap_err().param(), "sigma");
        assert_eq!(
            LogNormalMs::new(4.0, f64::INFINITY).unwrap_err().param(),
            "sigma"
        );
        assert!(LogNormalMs::new(4.0, 5.0).is_ok());
    }

    #[test]
    fn table_quantiles_match_the_closed_form() {
        // Each draw's value against the exact quantile at the uniform it encodes.
        let d = LogNormalMs::new(4.0, 0.43).unwrap();
        let t = d.table();
        let mut s = SampleStream::from_state(7);
        let mut worst: f64 = 0.0;
        for _ in 0..200_000 {
            let bits = s.next_bits();
            let (upper, v) = InverseCdfTable::tail_of(bits);
            if v < 1e-14 {
                continue;
            }
            let z = normal::upper_quantile(v);
            let exact = 4.0 * libm::exp(if upper { 0.43 * z } else { -0.43 * z });
            worst = worst.max(((t.sample(bits) - exact) / exact).abs());
        }
        assert!(worst < 1e-5, "worst relative error {worst:e}");
    }

    #[test]
    fn cdf_and_quantile_agree() {
        let d = LogNormalMs::new(7.7, 0.5).unwrap();
        for p in [1e-6, 0.01, 0.5, 0.95, 0.999_9] {
            assert!((d.cdf(d.quantile(p)) - p).abs() < 1e-12 * p.max(1e-3));
        }
        assert!((d.survival(d.quantile(0.999)) - 1e-3).abs() < 1e-12);
        assert!((d.mean_ms() - 7.7 * libm::exp(0.125)).abs() < 1e-12);
        // E[X²] = exp(2μ + 2σ²): for median 7.7 and σ 0.5, 7.7² · e^0.5.
        let want = libm::exp(2.0 * libm::log(7.7) + 2.0 * 0.25);
        assert!((d.second_moment_ms2() / want - 1.0).abs() < 1e-14);
    }
}
