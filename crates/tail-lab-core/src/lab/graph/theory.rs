//! The request graph's closed forms: the stage laws, their numerical convolution with a stated
//! error bound, and the exact special cases the tests check it against.
//!
//! **A stage.** A single stage's time has the service's CDF `F`. A parallel stage of `n`
//! children that waits for `k` of them is done by `t` when at least `k` have answered, so
//! `P(T ≤ t) = P(Bin(n, F(t)) ≥ k) = 1 − Σ_{i<k} C(n,i) F(t)^i (1 − F(t))^{n−i}`, the binomial
//! order-statistic law ([`super::Stage::cdf`], summed in log space from its small side).
//!
//! **Stages in series** add their times, so their CDFs convolve. [`GraphTheory`] does it on a
//! geometric grid `t_i = t_0 · r^i` (`r = 2^(1/128)`, 128 points an octave, from well under the
//! fastest stage's 10⁻⁶-quantile to past the sum of every stage's 1 − 10⁻¹⁰-quantile). Adding
//! a stage `Y` to the sum `X` so far, `P(X + Y ≤ t) = ∫ P(X ≤ t − s) dG_Y(s)`, with `G_Y`
//! exact at the grid points and `Y`'s mass taken cell by cell, `(t_{m−1}, t_m]`:
//! - **a rigorous bracket.** Inside a cell, `P(X ≤ t − s)` lies between its values at the
//!   cell's two ends, and those lie between the grid neighbours of `X`'s own bracket (a CDF is
//!   monotone). So `lower ≤ P(X + Y ≤ t) ≤ upper` holds exactly, whatever the grid, and half
//!   their gap is the **stated error bound** ([`GraphTheory::cdf_error`]; 0 for one stage).
//! - **the estimate**, the midpoint rule: `X`'s estimate, interpolated linearly in `t`, at
//!   each cell's midpoint, kept inside the bracket. Its error is second order in the step, far
//!   under the bracket: against the hypoexponential law in closed form (three exponential
//!   stages, 5, 10 and 20 ms) it is within 2·10⁻⁵ everywhere while the bracket is a few 10⁻³
//!   wide (tests check both).
//!
//! The graph's percentiles are the estimate's inverse (log-linear between grid points), its
//! miss share at a deadline `D` is `1 − P(T ≤ D)`. For a one-stage graph no convolution
//! happens: its CDF, percentiles and completeness are the stage's own, exact.
//!
//! **Completeness** at a deadline `D` is `Σ_j E[min(A_j, k_j)] / Σ_j k_j` over the counted
//! stages ([`super::Graph::counted`]), `A_j` the children of stage `j` answered by `D`. Given
//! the stage's start `s`, `E[min(A_j, k_j)]` is [`super::Stage::expected_answers`]`(D − s)`
//! (`n·F(D − s)` when it waits for all); the start is the sum of the stages before it, so this
//! is integrated against that sum's estimated law, cell by cell. For a one-stage graph it is
//! exact: `n·F(D)/n = F(D)` when the stage waits for all of its `n` children.

use super::stages::{Graph, Stage};
use crate::theory::invert_survival;

/// Grid points an octave.
pub const POINTS_PER_OCTAVE: f64 = 96.0;

/// The largest grid the convolution uses: wider ranges take fewer points an octave.
const MAX_POINTS: usize = 6000;

/// The stage quantile levels the grid spans, low and high.
const LOW_LEVEL: f64 = 1e-4;
const HIGH_SURVIVAL: f64 = 1e-10;

/// A CDF on the grid: its rigorous bracket and its estimate.
#[derive(Debug, Clone)]
struct OnGrid {
    lower: Vec<f64>,
    upper: Vec<f64>,
    mid: Vec<f64>,
}

/// The law of a request graph's completion time, and what a deadline does to it.
#[derive(Debug, Clone)]
pub struct GraphTheory {
    stages: Vec<Stage>,
    counted: Vec<bool>,
    needed: f64,
    /// Grid points (ms), ascending.
    t: Vec<f64>,
    /// The law of the sum of the first `j + 1` stages, for each `j`.
    prefix: Vec<OnGrid>,
    /// `expected_answers` of each quorum stage (k < n) at the grid points, interpolated
    /// linearly between them; `None` where it is cheap enough to evaluate exactly.
    answers: Vec<Option<Vec<f64>>>,
}

/// Linear interpolation of `v` (on the ascending grid `t`) at `u`: 0 at and below 0, linear
/// from 0 to `v[0]` below the first point, `v`'s last value past the end.
fn interp(t: &[f64], v: &[f64], u: f64) -> f64 {
    if u <= 0.0 {
        return 0.0;
    }
    if u <= t[0] {
        return v[0] * u / t[0];
    }
    let n = t.len();
    if u >= t[n - 1] {
        return v[n - 1];
    }
    let i = t.partition_point(|&x| x <= u); // t[i-1] ≤ u < t[i]
    let f = (u - t[i - 1]) / (t[i] - t[i - 1]);
    v[i - 1] + f * (v[i] - v[i - 1])
}

impl GraphTheory {
    /// The theory of `graph`.
    pub fn new(graph: &Graph) -> Self {
        let stages = graph.stages().to_vec();
        let lo = stages
            .iter()
            .map(|s| invert_survival(|t| s.survival(t), 1.0 - LOW_LEVEL))
            .fold(f64::INFINITY, f64::min)
            / 2.0;
        let hi = 1.5
            * stages
                .iter()
                .map(|s| invert_survival(|t| s.survival(t), HIGH_SURVIVAL))
                .sum::<f64>();
        let octaves = libm::log2(hi / lo).max(1.0);
        let per_octave = POINTS_PER_OCTAVE.min(MAX_POINTS as f64 / octaves);
        let n = (octaves * per_octave).ceil() as usize + 1;
        let ratio = libm::exp2(1.0 / per_octave);
        let t: Vec<f64> = (0..n).map(|i| lo * libm::pow(ratio, i as f64)).collect();
        let first: Vec<f64> = t.iter().map(|&x| stages[0].cdf(x)).collect();
        let mut prefix = vec![OnGrid {
            lower: first.clone(),
            upper: first.clone(),
            mid: first,
        }];
        for stage in &stages[1..] {
            let next = convolve(&t, prefix.last().expect("one stage at least"), stage);
            prefix.push(next);
        }
        let answers = stages
            .iter()
            .map(|s| {
                (s.k() < s.width()).then(|| t.iter().map(|&u| s.expected_answers(u)).collect())
            })
            .collect();
        GraphTheory {
            counted: graph.counted(),
            needed: graph.needed() as f64,
            stages,
            t,
            prefix,
            answers,
        }
    }

    /// True when the graph has one stage: every number is then exact, not convolved.
    pub fn exact(&self) -> bool {
        self.stages.len() == 1
    }

    /// The grid's points (ms).
    pub fn grid(&self) -> &[f64] {
        &self.t
    }

    /// The stated error bound of [`GraphTheory::cdf`]: half the widest gap between the
    /// convolution's rigorous lower and upper CDFs over the grid (0 for one stage).
    pub fn cdf_error(&self) -> f64 {
        let last = self.prefix.last().expect("one stage at least");
        last.lower
            .iter()
            .zip(&last.upper)
            .map(|(l, u)| (u - l) / 2.0)
            .fold(0.0, f64::max)
    }

    /// The rigorous bracket `(lower, upper)` of `P(T ≤ t)` at grid point `i`.
    pub fn bracket_at(&self, i: usize) -> (f64, f64) {
        let last = self.prefix.last().expect("one stage at least");
        (last.lower[i], last.upper[i])
    }

    /// `P(T ≤ t)`: exact for one stage, the convolution's estimate otherwise.
    pub fn cdf(&self, t_ms: f64) -> f64 {
        if self.exact() {
            return self.stages[0].cdf(t_ms);
        }
        interp(&self.t, &self.prefix.last().expect("stage").mid, t_ms)
    }

    /// `P(T > t)`, on its small side for one stage.
    pub fn survival(&self, t_ms: f64) -> f64 {
        if self.exact() {
            return self.stages[0].survival(t_ms);
        }
        1.0 - self.cdf(t_ms)
    }

    /// The `q`-quantile (ms) of the completion time, `q` in (0, 1): the exact inverse for one
    /// stage; the estimate's, log-linear between grid points, otherwise.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.exact() {
            let s = &self.stages[0];
            return invert_survival(|t| s.survival(t), 1.0 - q);
        }
        let mid = &self.prefix.last().expect("stage").mid;
        let i = mid.partition_point(|&c| c < q);
        if i == 0 {
            return self.t[0];
        }
        if i >= mid.len() {
            return self.t[mid.len() - 1];
        }
        let (c0, c1) = (mid[i - 1], mid[i]);
        let f = if c1 > c0 { (q - c0) / (c1 - c0) } else { 0.0 };
        self.t[i - 1] * libm::pow(self.t[i] / self.t[i - 1], f)
    }

    /// The share of requests that miss a deadline `D` ms: `P(T > D)`.
    pub fn miss(&self, deadline_ms: f64) -> f64 {
        self.survival(deadline_ms)
    }

    /// Expected answers of stage `j` by `u` ms after it started.
    fn answers(&self, j: usize, u: f64) -> f64 {
        match &self.answers[j] {
            Some(v) => interp(&self.t, v, u),
            None => self.stages[j].expected_answers(u),
        }
    }

    /// Mean completeness (fraction 0..1) at a deadline `D` ms: the counted answers that have
    /// arrived by `D`, over those a complete request counts (module doc). Exact for one stage.
    pub fn completeness(&self, deadline_ms: f64) -> f64 {
        let mut sum = 0.0;
        for (j, stage) in self.stages.iter().enumerate() {
            if !self.counted[j] {
                continue;
            }
            if j == 0 {
                sum += if self.exact() {
                    stage.expected_answers(deadline_ms)
                } else {
                    self.answers(0, deadline_ms)
                };
                continue;
            }
            // The stage starts when the stages before it are done: integrate over that law.
            let start = &self.prefix[j - 1].mid;
            let mut prev_t = 0.0;
            let mut prev_c = 0.0;
            for (i, &ti) in self.t.iter().enumerate() {
                let c_mid = 0.5 * (prev_t + ti);
                if c_mid >= deadline_ms {
                    break;
                }
                let mass = start[i] - prev_c;
                if mass > 0.0 {
                    sum += mass * self.answers(j, deadline_ms - c_mid);
                }
                prev_t = ti;
                prev_c = start[i];
            }
        }
        (sum / self.needed).clamp(0.0, 1.0)
    }
}

/// The law of `X + Y` on the grid, `X`'s given there and `Y` the stage `stage` (module doc).
fn convolve(t: &[f64], x: &OnGrid, stage: &Stage) -> OnGrid {
    let n = t.len();
    // Y's mass in cell m, (t_{m−1}, t_m] with t_{−1} = 0.
    let g: Vec<f64> = t.iter().map(|&u| stage.cdf(u)).collect();
    let mass: Vec<f64> = (0..n)
        .map(|m| {
            if m == 0 {
                g[0]
            } else {
                (g[m] - g[m - 1]).max(0.0)
            }
        })
        .collect();
    let (mut lower, mut upper, mut mid) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        let ti = t[i];
        let (mut lo_sum, mut up_sum, mut mid_sum) = (0.0, 0.0, 0.0);
        // floor pointers (largest grid index with t ≤ u) walk down as m grows.
        let mut fl = i; // for u = t_i − t_m (lower bound)
        let mut ce = i; // for u = t_i − t_{m−1} (upper bound: smallest index with t ≥ u)
        let mut md = i; // for u = t_i − midpoint (estimate)
        for m in 0..=i {
            let w = mass[m];
            let left = if m == 0 { 0.0 } else { t[m - 1] };
            // Lower: X ≤ t_i − t_m, read at the grid point at or below it.
            let u_lo = ti - t[m];
            while fl > 0 && t[fl] > u_lo {
                fl -= 1;
            }
            let xl = if u_lo >= t[0] { x.lower[fl] } else { 0.0 };
            // Upper: X ≤ t_i − t_{m−1}, read at the grid point at or above it.
            let u_up = ti - left;
            while ce > 0 && t[ce - 1] >= u_up {
                ce -= 1;
            }
            let xu = if u_up > 0.0 { x.upper[ce] } else { 0.0 };
            // Estimate: X's estimate at t_i − the cell's midpoint.
            let u_md = ti - 0.5 * (left + t[m]);
            while md > 0 && t[md] > u_md {
                md -= 1;
            }
            let xm = if u_md <= 0.0 {
                0.0
            } else if u_md < t[0] {
                x.mid[0] * u_md / t[0]
            } else if md + 1 < n {
                let f = (u_md - t[md]) / (t[md + 1] - t[md]);
                x.mid[md] + f * (x.mid[md + 1] - x.mid[md])
            } else {
                x.mid[md]
            };
            lo_sum += w * xl;
            up_sum += w * xu;
            mid_sum += w * xm;
        }
        // Mass of Y past t_i leaves X + Y above t_i: nothing added. Rounding keeps in [0, 1].
        let (l, u) = (lo_sum.clamp(0.0, 1.0), up_sum.clamp(0.0, 1.0));
        lower[i] = l;
        upper[i] = u;
        mid[i] = mid_sum.clamp(l, u);
    }
    OnGrid { lower, upper, mid }
}

/// `P(T > t)` of a sum of independent exponential stages with distinct means `means_ms`, the
/// hypoexponential law: `Σ_i Π_{j≠i} λ_j/(λ_j − λ_i) · e^{−λ_i t}`, `λ = 1/mean`.
pub fn hypoexponential_survival(means_ms: &[f64], t_ms: f64) -> f64 {
    if t_ms <= 0.0 {
        return 1.0;
    }
    let rates: Vec<f64> = means_ms.iter().map(|m| 1.0 / m).collect();
    rates
        .iter()
        .enumerate()
        .map(|(i, &li)| {
            let w: f64 = rates
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, &lj)| lj / (lj - li))
                .product();
            w * libm::exp(-li * t_ms)
        })
        .sum()
}

/// Source 003's appendix, exactly: the probability that at least one of `n` independent leaves
/// is slow (each with probability `p`), summed over every one of the `2^n` slow/fast
/// assignments (`n` ≤ 20) with its probability `p^slow (1 − p)^fast`.
pub fn any_slow_by_enumeration(p: f64, n: u32) -> f64 {
    assert!(n <= 20, "enumeration is for small n");
    compensated_sum((1u32..(1 << n)).map(|mask| {
        let slow = mask.count_ones() as i32;
        libm::pow(p, f64::from(slow)) * libm::pow(1.0 - p, f64::from(n as i32 - slow))
    }))
}

/// Neumaier's compensated sum: the rounding of thousands of terms does not add up.
fn compensated_sum(terms: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut carry) = (0.0f64, 0.0f64);
    for x in terms {
        let t = sum + x;
        carry += if sum.abs() >= x.abs() {
            (sum - t) + x
        } else {
            (x - t) + sum
        };
        sum = t;
    }
    sum + carry
}

/// The same sum grouped by the number of slow leaves, as the enumeration's `C(n, i)`
/// assignments with `i` slow: `Σ_{i≥1} C(n, i) p^i (1 − p)^{n−i}`, for any `n`.
pub fn any_slow_by_grouping(p: f64, n: u32) -> f64 {
    let mut choose = 1.0f64;
    compensated_sum((1..=n).map(|i| {
        choose = choose * f64::from(n - i + 1) / f64::from(i);
        choose * libm::pow(p, f64::from(i)) * libm::pow(1.0 - p, f64::from(n - i))
    }))
}

/// The closed form the two sums equal: `1 − (1 − p)^n`, as `−expm1(n · log1p(−p))`.
pub fn any_slow(p: f64, n: u32) -> f64 {
    -libm::expm1(f64::from(n) * libm::log1p(-p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::graph::stages::StageService;

    fn chain(means: &[f64]) -> Graph {
        let stages = means
            .iter()
            .map(|&m| Stage::single(StageService::exponential(m).unwrap()))
            .collect();
        Graph::new("custom", stages).unwrap()
    }

    #[test]
    fn one_exponential_stage_is_exact() {
        let th = GraphTheory::new(&chain(&[10.0]));
        assert!(th.exact());
        assert_eq!(th.cdf_error(), 0.0);
        assert!((th.quantile(0.5) / (10.0 * core::f64::consts::LN_2) - 1.0).abs() < 1e-12);
        assert!((th.completeness(7.0) + libm::expm1(-0.7)).abs() < 1e-15);
    }

    #[test]
    fn the_bracket_holds_the_hypoexponential_law() {
        let means = [5.0, 10.0, 20.0];
        let th = GraphTheory::new(&chain(&means));
        for (i, &t) in th.grid().iter().enumerate() {
            let exact = 1.0 - hypoexponential_survival(&means, t);
            let (lo, hi) = th.bracket_at(i);
            assert!(
                lo <= exact + 1e-12 && exact <= hi + 1e-12,
                "t={t}: {lo} ≤ {exact} ≤ {hi}"
            );
        }
    }
}
