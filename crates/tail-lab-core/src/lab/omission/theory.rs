//! The open loop's latency law in closed form, for stalls with random (exponential) gaps.
//!
//! A send on schedule sees the server at a moment independent of it. Started in equilibrium
//! the stall process is stationary, so the server is then stalled with probability
//! `π = stall/every`, and, a stall's length being fixed, with a uniform share `R ~ U(0, stall)`
//! of it left. The gaps are exponential with mean `gap = every − stall`, so while the request's
//! `s` ms of work run, stalls start as a Poisson process in the server's running time: `N ~
//! Poisson(s/gap)` of them interrupt it, each adding `stall`. Hence
//!
//! `P(T > t) = Σₙ P(N = n) · [(1 − π)·1{s + n·stall > t} + π·P(R > t − s − n·stall)]`,
//!
//! averaged over the work `s` (exact for a fixed work; for a service model, the mean over
//! [`QUANTILE_POINTS`] midpoint quantiles, whose error is at most 1/[`QUANTILE_POINTS`] per
//! term).

use super::{OmissionParams, Work};

/// Quantile levels a service model's work is averaged over.
pub const QUANTILE_POINTS: usize = 2048;

/// The open loop's latency law at one setting.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenLoop {
    /// The stalled share π = stall / every.
    pub stalled: f64,
    stall_ms: f64,
    gap_ms: f64,
    /// The work's values, equally likely.
    work_ms: Vec<f64>,
}

impl OpenLoop {
    /// The law for `p` (its gaps taken as random).
    pub fn new(p: &OmissionParams) -> Self {
        let work_ms = match &p.work {
            Work::Constant(ms) => vec![*ms],
            Work::Model(m) => (0..QUANTILE_POINTS)
                .map(|i| m.quantile((i as f64 + 0.5) / QUANTILE_POINTS as f64))
                .collect(),
        };
        OpenLoop {
            stalled: p.stall_ms / p.every_ms,
            stall_ms: p.stall_ms,
            gap_ms: p.every_ms - p.stall_ms,
            work_ms,
        }
    }

    /// `P(T > t)` for one work `s` (ms).
    fn survival_given(&self, s: f64, t: f64) -> f64 {
        if self.stall_ms == 0.0 {
            return f64::from(u8::from(s > t));
        }
        let l = self.stall_ms;
        let mean = s / self.gap_ms;
        // Poisson terms from n = 0 until the tail left is below 1e-17: past the mean it is at
        // most pₙ·r/(1 − r) with r = mean/(n + 1). The mean is at most MAX_INTERRUPTIONS
        // (checked with the parameters), so e^{−mean} does not underflow.
        let mut pn = libm::exp(-mean);
        let mut total = 0.0;
        let mut n = 0.0;
        loop {
            let base = s + n * l;
            let residual = ((t - base) / l).clamp(0.0, 1.0);
            let running = f64::from(u8::from(base > t));
            total += pn * ((1.0 - self.stalled) * running + self.stalled * (1.0 - residual));
            let r = mean / (n + 1.0);
            if r < 0.5 && pn * r / (1.0 - r) < 1e-17 {
                break;
            }
            n += 1.0;
            pn *= r;
        }
        total
    }

    /// `P(T > t)`: the share of open-loop latencies above `t` ms.
    pub fn survival(&self, t_ms: f64) -> f64 {
        let sum: f64 = self
            .work_ms
            .iter()
            .map(|&s| self.survival_given(s, t_ms))
            .sum();
        sum / self.work_ms.len() as f64
    }

    /// The share at or under 1 ms.
    pub fn frac_le_1ms(&self) -> f64 {
        1.0 - self.survival(1.0)
    }

    /// The `q`-quantile (ms): the least `t` with `P(T > t) ≤ 1 − q`, by bisection to a relative
    /// 1e-12.
    pub fn quantile(&self, q: f64) -> f64 {
        let target = 1.0 - q;
        let mut hi = self.work_ms.iter().copied().fold(0.0, f64::max) + self.stall_ms;
        while self.survival(hi) > target {
            hi *= 2.0;
        }
        let mut lo = 0.0;
        while hi - lo > 1e-12 * hi {
            let mid = 0.5 * (lo + hi);
            if self.survival(mid) > target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::omission::Gaps;

    fn law(stall: f64, every: f64, work: f64) -> OpenLoop {
        OpenLoop::new(&OmissionParams {
            stall_ms: stall,
            every_ms: every,
            gaps: Gaps::Random,
            work: Work::Constant(work),
            ..OmissionParams::section_default()
        })
    }

    #[test]
    fn the_pieces_add_up() {
        // 1 ms of work, 100 ms stalls every 1000 ms: π = 0.1, gap 900 ms.
        let l = law(100.0, 1000.0, 1.0);
        let clean = 0.9 * libm::exp(-1.0 / 900.0);
        assert!((l.frac_le_1ms() - clean).abs() < 1e-15);
        // Just above 1 ms: only the stalled sends and the interrupted ones are later.
        let s = l.survival(1.0 + 1e-9);
        assert!((s - (1.0 - clean)).abs() < 1e-9, "{s}");
        // Half a stall past the work: half the stalled sends, and every interrupted one.
        let interrupted = 1.0 - libm::exp(-1.0 / 900.0);
        let want = 0.1 * (1.0 - libm::exp(-1.0 / 900.0))
            + 0.1 * libm::exp(-1.0 / 900.0) * 0.5
            + 0.9 * interrupted;
        assert!(
            (l.survival(51.0) - want).abs() < 1e-6,
            "{} vs {want}",
            l.survival(51.0)
        );
        // S(t) = 0.05 where e^{-1/900}·0.1·(1 − (t − 1)/100) + (1 − e^{-1/900}) = 0.05.
        let e = libm::exp(-1.0 / 900.0);
        let t95 = 1.0 + 100.0 * (1.0 - (0.05 - (1.0 - e)) / (0.1 * e));
        assert!(
            (l.quantile(0.95) - t95).abs() < 1e-9,
            "{} vs {t95}",
            l.quantile(0.95)
        );
    }

    #[test]
    fn no_stalls_is_the_work() {
        let l = law(0.0, 1000.0, 2.0);
        assert_eq!(l.survival(1.99), 1.0);
        assert_eq!(l.survival(2.0), 0.0);
    }
}
