//! A request graph's stages, their services, their limits, and the named presets.

use crate::error::{CountRange, Ends, NumberRange, ParamError};
use crate::lab::service::ServiceModel;

/// Stages one graph may have.
pub const STAGES: CountRange = crate::count_range!(1, 8);

/// Children one parallel stage may have.
pub const WIDTH: CountRange = crate::count_range!(1, 1000);

/// The smallest and largest mean (ms) of an exponential stage: its median (`ln 2 ·` mean) stays
/// above the shared histogram's floor and its p99.99 (`9.2 ·` mean) under the service models'
/// ceiling, as [`ServiceModel::new`] asks of every service.
pub const EXPONENTIAL_MEAN_MS: (f64, f64) = (0.2, 10_000.0);

/// The means of an exponential stage accepted (ms), [`EXPONENTIAL_MEAN_MS`].
pub const EXPONENTIAL_MEAN: NumberRange = NumberRange::new(
    EXPONENTIAL_MEAN_MS.0,
    EXPONENTIAL_MEAN_MS.1,
    Ends::Closed,
    "a mean in ms in 0.2..=10000",
);

/// The answers a parallel stage may wait for, as far as a stage's own `k` can say: at most
/// its `width` (checked with the width: [`Stage::parallel`]).
pub const K: CountRange = CountRange {
    lo: 1,
    hi: WIDTH.hi,
    expected: "an integer in 1..=width",
};

/// A stage's kinds, as the API names them.
pub const STAGE_KINDS: [&str; 2] = ["single", "parallel"];

/// What one call of a stage's child takes.
#[derive(Debug, Clone, PartialEq)]
pub enum StageService {
    /// Any service model the Lab accepts (its own, a reader's numbers or data).
    Service(ServiceModel),
    /// Exponential with this mean (ms): the hypoexponential check's stages.
    Exponential(f64),
}

impl StageService {
    /// An exponential service with mean `mean_ms` (0.2..=10000 ms).
    pub fn exponential(mean_ms: f64) -> Result<Self, ParamError> {
        EXPONENTIAL_MEAN.check("exponentialMs", mean_ms)?;
        Ok(StageService::Exponential(mean_ms))
    }

    /// `P(service > t)`, `t` in ms.
    pub fn survival(&self, t_ms: f64) -> f64 {
        match self {
            StageService::Service(m) => m.survival(t_ms),
            StageService::Exponential(mean) => {
                if t_ms <= 0.0 {
                    1.0
                } else {
                    libm::exp(-t_ms / mean)
                }
            }
        }
    }

    /// `P(service ≤ t)`, `t` in ms (for the exponential `−expm1(−t/mean)`, exact near 0).
    pub fn cdf(&self, t_ms: f64) -> f64 {
        match self {
            StageService::Service(m) => 1.0 - m.survival(t_ms),
            StageService::Exponential(mean) => {
                if t_ms <= 0.0 {
                    0.0
                } else {
                    -libm::expm1(-t_ms / mean)
                }
            }
        }
    }

    /// Mean service time (ms).
    pub fn mean_ms(&self) -> f64 {
        match self {
            StageService::Service(m) => m.mean_ms(),
            StageService::Exponential(mean) => *mean,
        }
    }
}

/// How a stage calls its children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageKind {
    /// One call.
    Single,
    /// `width` calls at once; the stage is done when `k` of them have answered (`k = width`:
    /// all of them; `k < width`: a quorum, or partial results).
    Parallel {
        /// Children called (1..=1000).
        width: u32,
        /// Answers the stage waits for (1..=width).
        k: u32,
    },
}

/// One stage: how it calls, and what each call takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    /// Single or parallel.
    pub kind: StageKind,
    /// Every child's service.
    pub service: StageService,
}

impl Stage {
    /// A single call.
    pub fn single(service: StageService) -> Self {
        Stage {
            kind: StageKind::Single,
            service,
        }
    }

    /// A parallel stage of `width` children that waits for `k` of them.
    pub fn parallel(width: u32, k: u32, service: StageService) -> Result<Self, ParamError> {
        WIDTH.check("width", u64::from(width))?;
        if !K.contains(u64::from(k)) || k > width {
            return Err(ParamError::NotAccepted {
                param: "k",
                got: k.to_string(),
                expected: format!("{} ({width})", K.expected),
            });
        }
        Ok(Stage {
            kind: StageKind::Parallel { width, k },
            service,
        })
    }

    /// Children called: 1 for a single stage.
    pub fn width(&self) -> u32 {
        match self.kind {
            StageKind::Single => 1,
            StageKind::Parallel { width, .. } => width,
        }
    }

    /// Answers the stage waits for: 1 for a single stage.
    pub fn k(&self) -> u32 {
        match self.kind {
            StageKind::Single => 1,
            StageKind::Parallel { k, .. } => k,
        }
    }

    /// True for a parallel stage.
    pub fn is_parallel(&self) -> bool {
        matches!(self.kind, StageKind::Parallel { .. })
    }

    /// `P(stage time ≤ t)`: the service's `F(t)` for a single stage; for a parallel stage the
    /// binomial order-statistic law `P(Bin(n, F(t)) ≥ k)`, summed in log space from whichever
    /// side is the small one, so both tails keep their digits.
    pub fn cdf(&self, t_ms: f64) -> f64 {
        let (n, k) = (self.width(), self.k());
        let f = self.service.cdf(t_ms);
        if n == 1 {
            return f;
        }
        let s = self.service.survival(t_ms);
        // P(T ≤ t) = P(answered ≥ k) = 1 − P(unanswered ≥ n − k + 1).
        let done = crate::theory::binomial_at_least(k, n, f);
        if done < 0.5 {
            done
        } else {
            1.0 - crate::theory::binomial_at_least(n - k + 1, n, s)
        }
    }

    /// `P(stage time > t)`, the complement of [`Stage::cdf`], computed on its own small side.
    pub fn survival(&self, t_ms: f64) -> f64 {
        let (n, k) = (self.width(), self.k());
        if n == 1 {
            return self.service.survival(t_ms);
        }
        let out = crate::theory::binomial_at_least(n - k + 1, n, self.service.survival(t_ms));
        if out < 0.5 {
            out
        } else {
            1.0 - crate::theory::binomial_at_least(k, n, self.service.cdf(t_ms))
        }
    }

    /// The expected answers the stage counts toward completeness by `u` ms after it started,
    /// `E[min(Bin(n, F(u)), k)]`: `n·F(u)` when it waits for all, the capped binomial mean
    /// otherwise (a quorum's answers past the k-th are not needed).
    pub fn expected_answers(&self, u_ms: f64) -> f64 {
        let (n, k) = (self.width(), self.k());
        let f = self.service.cdf(u_ms);
        if k == n {
            return f64::from(n) * f;
        }
        // E[min(X, k)] = k − Σ_{i<k} (k − i)·P(X = i), the pmf in log space.
        if f <= 0.0 {
            return 0.0;
        }
        if f >= 1.0 {
            return f64::from(k);
        }
        let (lf, ls) = (libm::log(f), libm::log1p(-f));
        let ln_n1 = libm::lgamma(f64::from(n) + 1.0);
        let mut short = 0.0;
        for i in 0..k {
            let ln_choose =
                ln_n1 - libm::lgamma(f64::from(i) + 1.0) - libm::lgamma(f64::from(n - i) + 1.0);
            let pmf = libm::exp(ln_choose + f64::from(i) * lf + f64::from(n - i) * ls);
            short += f64::from(k - i) * pmf;
        }
        (f64::from(k) - short).max(0.0)
    }
}

/// The presets' names, in the page's order.
pub const PRESETS: [&str; 4] = ["fanout", "search", "quorum", "chain"];

/// The presets' names in an error's words.
pub const PRESETS_EXPECTED: &str = "fanout, search, quorum, chain";

/// A graph's name in a result: one of the presets, or `custom` for stages given one by one.
pub const GRAPH_NAMES: [&str; 5] = ["fanout", "search", "quorum", "chain", "custom"];

/// The means (ms) of the `chain` preset's three exponential stages: distinct, so the
/// hypoexponential law has its closed form.
pub const CHAIN_MEANS_MS: [f64; 3] = [5.0, 10.0, 20.0];

/// The stages of preset `name`, every Lab-model stage on `service`:
/// - `fanout`: one parallel stage of 100 leaves, waiting for all;
/// - `search`: auth (single) → 10 shards (parallel, all) → rank (single);
/// - `quorum`: a 3-of-5 write (parallel, width 5, k 3);
/// - `chain`: three single stages, exponential with means [`CHAIN_MEANS_MS`].
pub fn preset(name: &str, service: &ServiceModel) -> Result<Vec<Stage>, ParamError> {
    let lab = || StageService::Service(service.clone());
    Ok(match name {
        "fanout" => vec![Stage::parallel(100, 100, lab())?],
        "search" => vec![
            Stage::single(lab()),
            Stage::parallel(10, 10, lab())?,
            Stage::single(lab()),
        ],
        "quorum" => vec![Stage::parallel(5, 3, lab())?],
        "chain" => CHAIN_MEANS_MS
            .iter()
            .map(|&m| StageService::exponential(m).map(Stage::single))
            .collect::<Result<_, _>>()?,
        other => {
            return Err(ParamError::UnknownName {
                param: "preset",
                got: other.into(),
                expected: PRESETS_EXPECTED,
            });
        }
    })
}

/// A validated request graph: 1..=8 stages run one after another.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    name: &'static str,
    stages: Vec<Stage>,
}

impl Graph {
    /// The graph of `stages` (1..=8 of them), named `name` (one of [`GRAPH_NAMES`]).
    pub fn new(name: &str, stages: Vec<Stage>) -> Result<Self, ParamError> {
        STAGES.check("stages", stages.len() as u64)?;
        let name = GRAPH_NAMES
            .iter()
            .copied()
            .find(|n| *n == name)
            .ok_or_else(|| ParamError::UnknownName {
                param: "preset",
                got: name.into(),
                expected: "fanout, search, quorum, chain, custom",
            })?;
        Ok(Graph { name, stages })
    }

    /// Preset `name` with every Lab-model stage on `service`.
    pub fn preset(name: &str, service: &ServiceModel) -> Result<Self, ParamError> {
        Graph::new(name, preset(name, service)?)
    }

    /// Its name: a preset's, or `custom`.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its stages, in order.
    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    /// Children one request calls, over every stage.
    pub fn children(&self) -> u64 {
        self.stages.iter().map(|s| u64::from(s.width())).sum()
    }

    /// The stages that count toward completeness: the parallel ones, or every stage when the
    /// graph has none (then each single call is one child).
    pub fn counted(&self) -> Vec<bool> {
        let any = self.stages.iter().any(Stage::is_parallel);
        self.stages
            .iter()
            .map(|s| !any || s.is_parallel())
            .collect()
    }

    /// The answers a complete request has counted: `Σ k` over the counted stages.
    pub fn needed(&self) -> u64 {
        self.stages
            .iter()
            .zip(self.counted())
            .filter(|(_, c)| *c)
            .map(|(s, _)| u64::from(s.k()))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_name_themselves() {
        let lab = StageService::Service(ServiceModel::default());
        assert_eq!(
            Stage::parallel(1001, 1, lab.clone()).unwrap_err().param(),
            "width"
        );
        assert_eq!(Stage::parallel(5, 6, lab.clone()).unwrap_err().param(), "k");
        assert_eq!(Stage::parallel(5, 0, lab.clone()).unwrap_err().param(), "k");
        assert_eq!(
            StageService::exponential(0.1).unwrap_err().param(),
            "exponentialMs"
        );
        let nine = vec![Stage::single(lab.clone()); 9];
        assert_eq!(Graph::new("custom", nine).unwrap_err().param(), "stages");
        assert_eq!(Graph::new("custom", vec![]).unwrap_err().param(), "stages");
        let e = preset("star", &ServiceModel::default()).unwrap_err();
        assert_eq!(e.param(), "preset");
    }

    #[test]
    fn stage_cdf_and_survival_add_to_one() {
        let m = ServiceModel::default();
        for (n, k) in [(1, 1), (5, 3), (100, 100), (1000, 1), (1000, 990)] {
            let s = Stage::parallel(n, k, StageService::Service(m.clone())).unwrap();
            for t in [0.5, 5.0, 10.0, 30.0, 500.0, 1500.0, 4000.0] {
                let (c, v) = (s.cdf(t), s.survival(t));
                assert!((c + v - 1.0).abs() < 1e-12, "n={n} k={k} t={t}: {c} + {v}");
            }
        }
    }

    #[test]
    fn expected_answers_is_the_capped_binomial_mean() {
        let s = Stage::parallel(5, 3, StageService::exponential(10.0).unwrap()).unwrap();
        let f = s.service.cdf(7.0);
        // Direct: Σ_i min(i, 3)·C(5, i) f^i (1 − f)^(5 − i).
        let choose = [1.0, 5.0, 10.0, 10.0, 5.0, 1.0];
        let want: f64 = (0..=5)
            .map(|i| {
                f64::from(i.min(3))
                    * choose[i as usize]
                    * libm::pow(f, f64::from(i))
                    * libm::pow(1.0 - f, f64::from(5 - i))
            })
            .sum();
        assert!((s.expected_answers(7.0) - want).abs() < 1e-14);
        let all = Stage::parallel(5, 5, StageService::exponential(10.0).unwrap()).unwrap();
        assert!((all.expected_answers(7.0) - 5.0 * f).abs() < 1e-14);
    }
}
