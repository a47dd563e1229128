//! A distribution through a few points of a CDF (percentiles, histogram buckets): monotone,
//! through every point exactly, and lognormal between them.
//!
//! Between two points the fit is a straight line on lognormal probability paper: `ln t` linear
//! in the normal score `z = Φ⁻¹(level)`. Two percentiles of a lognormal are fitted by that very
//! lognormal, and any rising points give a rising curve. The curve is laid down as knots of an
//! [`EmpiricalDistribution`] (many per stretch, so its linear pieces follow the curve), which is
//! then the model: draws, `F(t)` and the closed forms all read those knots.
//!
//! Past the points:
//! - a histogram's bound (a bucket that holds nothing below it, level 0, or everything,
//!   level 1) ends the fit there, with a constant density from the nearest point to the
//!   bound, as Prometheus's `histogram_quantile` assumes inside a bucket;
//! - with no bound, the line through the last two points carries on for two more decades of
//!   tail probability (past p99.9 to p99.999; below the first point to a hundredth of its
//!   level), and the rest of the probability sits at the last time reached (the fit says
//!   nothing beyond what the data could support).

use super::parse::CdfPoint;
use crate::error::ParamError;
use crate::sampling::empirical::EmpiricalDistribution;
use crate::sampling::normal;

/// Knots a fit lays down in all: each stretch between points gets an equal share, from 2 to 256.
const KNOT_BUDGET: usize = 16_384;

/// How far past the outermost point an unbounded fit goes, as a factor on the tail
/// probability: two decades.
const EXTRAPOLATION: f64 = 100.0;

fn refused(expected: &'static str, got: f64) -> ParamError {
    ParamError::OutOfRange {
        param: "points",
        got,
        expected,
    }
}

/// The fit through `points` (levels rising, in 0..=1; times in ms, positive, never falling).
pub fn fit_points(points: &[CdfPoint]) -> Result<EmpiricalDistribution, ParamError> {
    for w in points.windows(2) {
        if w[1].level.partial_cmp(&w[0].level) != Some(std::cmp::Ordering::Greater)
            || w[1].ms < w[0].ms
        {
            return Err(refused(
                "points whose levels rise and whose times never fall",
                w[1].level,
            ));
        }
    }
    if let Some(p) = points
        .iter()
        .find(|p| !(p.ms.is_finite() && p.ms > 0.0 && (0.0..=1.0).contains(&p.level)))
    {
        return Err(refused(
            "points at levels in 0..=1 and positive, finite times (ms)",
            p.ms,
        ));
    }
    let lower = points.first().filter(|p| p.level == 0.0).copied();
    let upper = points.last().filter(|p| p.level == 1.0).copied();
    let inner: Vec<CdfPoint> = points
        .iter()
        .filter(|p| p.level > 0.0 && p.level < 1.0)
        .copied()
        .collect();
    let enough = match (lower, upper) {
        (Some(_), Some(_)) => true,
        _ => inner.len() >= 2,
    };
    if !enough {
        return Err(refused(
            "at least two percentiles (say p50 and p99), or a histogram with its bounds",
            inner.len() as f64,
        ));
    }
    let stretches = inner.len().saturating_sub(1) + 2;
    let per = (KNOT_BUDGET / stretches).clamp(2, 256);
    let z = |level: f64| normal::quantile(level);
    // The lognormal-paper line through (za, ln ta) and (zb, ln tb), at level u.
    let on_line = |a: CdfPoint, b: CdfPoint, u: f64| {
        let (za, zb) = (z(a.level), z(b.level));
        let slope = (libm::log(b.ms) - libm::log(a.ms)) / (zb - za);
        a.ms * libm::exp(slope * (z(u) - za))
    };
    let mut knots = Knots::default();
    // Knots between levels a and b on the line through p and q (exclusive of a, inclusive of
    // b), equally spaced in z; a point's own level gets the point's own time.
    let stretch = |knots: &mut Knots, a: f64, b: f64, p: CdfPoint, q: CdfPoint| {
        let (za, zb) = (z(a), z(b));
        for i in 1..=per {
            let zi = za + (zb - za) * i as f64 / per as f64;
            let u = if i == per { b } else { normal::cdf(zi) };
            let t = if i == per && b == q.level {
                q.ms
            } else if i == per && b == p.level {
                p.ms
            } else {
                on_line(p, q, u)
            };
            knots.push(u, t);
        }
    };
    // The bottom.
    let first = inner.first().copied();
    match (lower, first) {
        (Some(lo), Some(f)) => {
            knots.push(0.0, lo.ms);
            knots.push(f.level, f.ms);
        }
        (Some(lo), None) => knots.push(0.0, lo.ms),
        (None, Some(f)) => {
            let second = inner[1];
            let from = f.level / EXTRAPOLATION;
            let start = on_line(f, second, from);
            knots.push(0.0, start);
            knots.push(from, start);
            stretch(&mut knots, from, f.level, f, second);
        }
        (None, None) => unreachable!("checked above: bounds or two inner points"),
    }
    for w in inner.windows(2) {
        stretch(&mut knots, w[0].level, w[1].level, w[0], w[1]);
    }
    // The top.
    let last = inner.last().copied();
    match (upper, last) {
        (Some(hi), _) => knots.push(1.0, hi.ms),
        (None, Some(l)) => {
            let before = inner[inner.len() - 2];
            let to = 1.0 - (1.0 - l.level) / EXTRAPOLATION;
            stretch(&mut knots, l.level, to, before, l);
            let end = *knots.ms.last().expect("knots were laid");
            knots.push(1.0, end);
        }
        (None, None) => unreachable!("checked above"),
    }
    EmpiricalDistribution::from_knots(knots.levels, knots.ms)
}

/// Knots as they are laid down.
#[derive(Default)]
struct Knots {
    levels: Vec<f64>,
    ms: Vec<f64>,
}

impl Knots {
    fn push(&mut self, level: f64, t: f64) {
        // Rounding in exp can break a flat stretch's tie by an ulp: never let time fall.
        let t = self.ms.last().map_or(t, |&last| t.max(last));
        self.levels.push(level);
        self.ms.push(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::lognormal::LogNormalMs;

    fn point(level: f64, ms: f64) -> CdfPoint {
        CdfPoint { level, ms }
    }

    #[test]
    fn goes_through_every_point_exactly() {
        let pts = [
            point(0.5, 4.0),
            point(0.9, 8.0),
            point(0.99, 30.0),
            point(0.999, 120.0),
        ];
        let d = fit_points(&pts).unwrap();
        for p in pts {
            assert_eq!(d.quantile(p.level), p.ms, "{p:?}");
            assert!((d.cdf(p.ms) - p.level).abs() < 1e-12, "{p:?}");
        }
        // Two decades past p99.9, then nothing further.
        let top = d.range_ms().1;
        assert_eq!(d.quantile(0.99999), top);
        assert!(d.quantile(0.9999) < top && d.quantile(0.9999) > 120.0);
    }

    #[test]
    fn two_percentiles_of_a_lognormal_give_that_lognormal() {
        let ln = LogNormalMs::new(10.0, 0.8).unwrap();
        let d =
            fit_points(&[point(0.5, ln.quantile(0.5)), point(0.99, ln.quantile(0.99))]).unwrap();
        // At every knot the fit is the lognormal exactly (ln t is linear in z on both); between
        // knots the quantile is a chord in u of the convex Q(u) = m·exp(σ·Φ⁻¹(u)). With 256
        // knots a stretch, Δz = 2.33/256 between them, the chord's relative error is of order
        // (σΔz)²/8 plus the bend of Φ⁻¹ over the step; with 32 knots it measured 1.0e-3 (at
        // q = 0.9, σ = 0.8), and it shrinks as the square of the spacing: 64 times less here.
        for q in [0.6, 0.75, 0.9, 0.95, 0.995, 0.999, 0.9999] {
            let rel = d.quantile(q) / ln.quantile(q) - 1.0;
            assert!(rel.abs() < 1e-3 / 64.0 * 1.5, "q {q}: {rel}");
        }
        for i in 1..32 {
            let u = d.levels()[i];
            let rel = d.quantile(u) / ln.quantile(u) - 1.0;
            assert!(rel.abs() < 1e-12, "knot {i} at {u}: {rel}");
        }
    }

    #[test]
    fn histogram_bounds_end_the_fit() {
        // Prometheus-like: nothing at or below 5 ms, all at or below 100 ms.
        let pts = [
            point(0.0, 5.0),
            point(0.4, 10.0),
            point(0.9, 25.0),
            point(1.0, 100.0),
        ];
        let d = fit_points(&pts).unwrap();
        assert_eq!(d.range_ms(), (5.0, 100.0));
        for p in pts {
            assert!((d.cdf(p.ms) - p.level).abs() < 1e-12, "{p:?}");
        }
        // Constant density in the outer buckets: half-way through the top one is level 0.95.
        assert!((d.cdf(62.5) - 0.95).abs() < 1e-12);
        // Only the bounds: a uniform law.
        let u = fit_points(&[point(0.0, 1.0), point(1.0, 3.0)]).unwrap();
        assert!((u.mean_ms() - 2.0).abs() < 1e-12);
    }

    #[test]
    fn too_little_or_disordered_is_refused() {
        assert!(fit_points(&[point(0.5, 4.0)]).is_err());
        assert!(fit_points(&[point(0.5, 4.0), point(0.9, 3.0)]).is_err());
        assert!(fit_points(&[point(0.9, 4.0), point(0.5, 5.0)]).is_err());
        assert_eq!(
            fit_points(&[point(0.5, 4.0), point(0.6, 4.0)])
                .unwrap_err()
                .param(),
            "knots.ms"
        );
    }
}
