//! Correlated stragglers: a shared slow episode that hits many of a request's leaves at once,
//! while every leaf keeps its own latency law exactly (issue 21, item 2; seeds 002 and 003).
//!
//! **The model (a common shock).** A request fans out to `n` leaves, each with the service
//! model `F`. The request has one shared draw `X₀ = Q(U₀)`, its *episode* (a GC wave, a noisy
//! switch). Each leaf, independently with probability `c`, takes the shared draw; otherwise it
//! takes its own, `Q(Uᵢ)`. So every leaf's own law is exactly `F` at every `c`: `c = 0` is
//! independence, `c = 1` is one draw for all. A hedge's backup, sent at the delay `d`, takes its
//! primary's very time with probability `c_r` (it lands in the same episode and is slow as
//! well), else an independent draw.
//!
//! **What it settles.** Source 002 says correlated stragglers are strictly worse than
//! `F(t)^n`; source 003 that independence is a reference case, not a bound. With equal
//! marginals and positive dependence, `P(all n ≤ t) ≥ F(t)^n`: the *raw* parent tail improves,
//! since fewer requests meet a slow leaf. What gets worse is the fixes: dropping the slowest
//! leaves cannot drop many leaves that are slow together, and a backup sent into the same
//! episode does not escape it. The result holds, for the chosen setting and at `c = 0`, the
//! parent's percentiles and slow share with no fix, with the slowest leaves dropped and with a
//! hedge, each beside its closed form ([`theory`]); the hedge's gain as `c_r` rises; and the
//! leaf's own percentiles, which do not move with `c`.
//!
//! **Random streams.** The service draws come from [`STREAM`] (id 14), addressed by (request,
//! leaf, attempt): leaf `i`'s own time is attempt 0 of leaf `i`, its backup's independent time
//! attempt 1, and the episode's shared time attempt 0 of the leaf [`SHARED_LEAF`]. The coins
//! come from [`COIN_STREAM`] (id 15), one sub-stream a leaf: first the bits of its
//! Bernoulli(`c`), then those of its backup's Bernoulli(`c_r`). The same bits decide at every
//! `c` and `c_r`, so the independent run and the `c_r` sweep see the very same leaves.

mod call;
mod model;
mod sim;
pub mod theory;

pub use call::{CALL, OPTIONS, params};
pub use model::MODEL;
pub use sim::{closed_form, request_leaves, simulate};

use crate::error::{CountRange, Ends, LEVEL, NumberRange, PROBABILITY, ParamError};
use crate::lab::hedge_idle::DELAY_MS;
use crate::lab::hedge_idle::Percentiles;
use crate::lab::service::ServiceModel;
use crate::sampling::address::Stream;

/// The random stream of the leaves' service times (id 14).
pub const STREAM: Stream = Stream::new(14);
/// The random stream of the leaves' coins: who takes the episode, whose backup does (id 15).
pub const COIN_STREAM: Stream = Stream::new(15);
/// The leaf index the episode's shared draw is addressed at (no leaf has it: `n ≤ 1000`).
pub const SHARED_LEAF: u32 = u32::MAX;

/// The fan-outs the model accepts.
pub const FANOUT: CountRange = crate::count_range!(1, 1000);
/// Requests one run may simulate.
pub const REQUESTS: CountRange = crate::count_range!(1, 1000000000);
/// Requests one call of a binding may simulate (the work bound applies too).
pub const REQUESTS_PER_CALL: CountRange = crate::count_range!(1, 10000000);
/// The largest share of the leaves the parent may drop.
pub const MAX_DROP: f64 = 0.5;
/// The shares of leaves a partial-results parent may drop.
pub const DROP: NumberRange = NumberRange::new(
    0.0,
    MAX_DROP,
    Ends::Closed,
    "a share of the leaves in 0..=0.5",
);
/// The slow levels accepted: a leaf is slow above its `(1 − p)`-quantile.
pub const SLOW_LEVEL: NumberRange =
    NumberRange::new(0.0, 1.0, Ends::Open, "a slow level in (0, 1)");
/// The replica correlations the hedge's gain is simulated at (the closed form is drawn at
/// [`THEORY_CR_POINTS`] more).
pub const SIM_CR: [f64; 6] = [0.0, 0.05, 0.25, 0.5, 0.75, 1.0];
/// Points of the closed-form gain curve over `c_r` in 0..=1, at `(j / 40)²`: dense near 0, where
/// the gain falls fastest (a backup in the episode one time in a hundred already costs most of it).
pub const THEORY_CR_POINTS: usize = 41;

/// When the hedge fires.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Delay {
    /// At the service model's exact `q`-quantile, `q` in (0, 1).
    Quantile(f64),
    /// At a fixed delay (ms, 0..=10^9).
    Ms(f64),
}

/// The named parameters of a run, for [`simulate`].
#[derive(Debug, Clone, PartialEq)]
pub struct CorrelatedParams {
    /// Each leaf's service model (any the Lab accepts).
    pub model: ServiceModel,
    /// Leaves per request, 1..=1000.
    pub n: u32,
    /// Leaf correlation, 0..=1: the chance that a leaf takes the request's shared draw.
    pub c: f64,
    /// Replica correlation, 0..=1: the chance that a backup takes its primary's own draw.
    pub cr: f64,
    /// The share of leaves the partial-results parent drops, 0..=0.5: it answers once
    /// `⌈(1 − drop)·n⌉` leaves have.
    pub drop: f64,
    /// The hedge's delay.
    pub delay: Delay,
    /// The slow level `p`, in (0, 1): a leaf is slow above its `(1 − p)`-quantile.
    pub p: f64,
    /// Requests simulated, 1..=10^9.
    pub requests: u64,
    /// The seed.
    pub seed: u64,
}

impl CorrelatedParams {
    /// The run's work in the bindings' units (about 10 ns of wasm each): four per leaf (its
    /// coins, its own draw, perhaps its backup, the two runs' bookkeeping and sweep).
    pub fn work_units(&self) -> f64 {
        4.0 * self.requests as f64 * f64::from(self.n)
    }
}

/// Leaves dropped by a parent that drops the share `drop` of `n`: `n − ⌈(1 − drop)·n⌉`, that
/// is `⌊drop·n⌋` (written so that `0.01 × 100` drops exactly one).
pub fn dropped_leaves(drop: f64, n: u32) -> u32 {
    let x = drop * f64::from(n);
    // A product that should be whole (0.07 × 100 = 7.000000000000001) is read as whole.
    (libm::floor(x + 1e-9) as u32).min(n.saturating_sub(1))
}

/// A validated run: the parameters checked, the delay and the slow threshold resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub(crate) params: CorrelatedParams,
    /// Leaves the partial-results parent drops.
    pub dropped: u32,
    /// The hedge delay (ms).
    pub delay_ms: f64,
    /// The slow threshold `t_p` (ms): the leaf's `(1 − p)`-quantile.
    pub slow_ms: f64,
}

impl CorrelatedParams {
    /// Checks every parameter (errors name it and its range) and resolves the delay and the
    /// slow threshold.
    pub fn check(self) -> Result<Checked, ParamError> {
        FANOUT.check("n", u64::from(self.n))?;
        PROBABILITY.check("c", self.c)?;
        PROBABILITY.check("cr", self.cr)?;
        DROP.check("drop", self.drop)?;
        SLOW_LEVEL.check("p", self.p)?;
        REQUESTS.check("requests", self.requests)?;
        let delay_ms = match self.delay {
            Delay::Quantile(q) => {
                LEVEL.check("delayQ", q)?;
                self.model.quantile(q)
            }
            Delay::Ms(ms) => DELAY_MS.check("delayMs", ms)?,
        };
        Ok(Checked {
            dropped: dropped_leaves(self.drop, self.n),
            delay_ms,
            slow_ms: self.model.quantile(1.0 - self.p),
            params: self,
        })
    }
}

impl Checked {
    /// The parameters.
    pub fn params(&self) -> &CorrelatedParams {
        &self.params
    }

    /// The three fixes at leaf correlation `c`, in the result's order: none, drop, hedge.
    pub fn settings(&self, c: f64) -> [theory::Setting; 3] {
        let n = self.params.n;
        [
            theory::Fix::None,
            theory::Fix::Drop {
                dropped: self.dropped,
            },
            theory::Fix::Hedge {
                delay_ms: self.delay_ms,
                cr: self.params.cr,
            },
        ]
        .map(|fix| theory::Setting { n, c, fix })
    }
}

/// One parent, one fix: simulated beside the closed form.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// Simulated percentiles (ms), from the shared histogram bins.
    pub sim: Percentiles,
    /// Simulated share (0..=1) of parents later than the slow threshold `t_p`.
    pub slow_share: f64,
    /// Closed-form median (ms).
    pub theory_p50: f64,
    /// Closed-form p99 (ms).
    pub theory_p99: f64,
    /// Closed-form p99.9 (ms).
    pub theory_p999: f64,
    /// Closed-form share of parents later than `t_p`.
    pub theory_slow_share: f64,
}

/// The hedge's gain, the parent's p99 without the hedge over with it (a ratio), as the
/// replica correlation rises.
#[derive(Debug, Clone, PartialEq)]
pub struct GainSweep {
    /// The replica correlations simulated ([`SIM_CR`]).
    pub cr: Vec<f64>,
    /// The simulated gains there.
    pub sim_gain: Vec<f64>,
    /// The closed form's replica correlations ([`THEORY_CR_POINTS`] of them, `(j / 40)²`).
    pub theory_cr: Vec<f64>,
    /// The closed-form gains there.
    pub theory_gain: Vec<f64>,
}

/// The parent's survival `P(T > t)`, simulated and in closed form, for each fix at the chosen
/// `c` and at `c = 0`, in the order none, drop, hedge.
#[derive(Debug, Clone, PartialEq)]
pub struct Curves {
    /// Abscissae (ms): every fifth shared bin edge.
    pub t_ms: Vec<f64>,
    /// Simulated, at the chosen `c` (exact at the bin edges).
    pub sim: [Vec<f64>; 3],
    /// Simulated, at `c = 0`.
    pub sim_independent: [Vec<f64>; 3],
    /// Closed form, at the chosen `c`.
    pub theory: [Vec<f64>; 3],
    /// Closed form, at `c = 0`.
    pub theory_independent: [Vec<f64>; 3],
    /// The leaf's own survival `S(t)`, the same at every `c`.
    pub leaf: Vec<f64>,
}

/// A run's result.
#[derive(Debug, Clone, PartialEq)]
pub struct CorrelatedResult {
    /// Leaves per request.
    pub n: u32,
    /// Leaf correlation.
    pub c: f64,
    /// Replica correlation.
    pub cr: f64,
    /// The share of leaves the partial-results parent drops.
    pub drop: f64,
    /// Leaves it drops.
    pub dropped: u32,
    /// The hedge delay (ms).
    pub delay_ms: f64,
    /// The slow level `p`.
    pub p: f64,
    /// The slow threshold `t_p` (ms).
    pub slow_ms: f64,
    /// Requests simulated.
    pub requests: u64,
    /// Every leaf's own percentiles at the chosen `c` (ms).
    pub leaf: Percentiles,
    /// The leaf's closed-form median (ms).
    pub theory_leaf_p50: f64,
    /// The leaf's closed-form p99 (ms).
    pub theory_leaf_p99: f64,
    /// The leaf's closed-form p99.9 (ms).
    pub theory_leaf_p999: f64,
    /// Share of leaves later than `t_p`, simulated at the chosen `c` (it is `p` at every `c`).
    pub leaf_slow_share: f64,
    /// None, drop, hedge at the chosen `c`.
    pub correlated: [Outcome; 3],
    /// None, drop, hedge at `c = 0`.
    pub independent: [Outcome; 3],
    /// The hedge's gain against the replica correlation, at the chosen `c`.
    pub gain: GainSweep,
    /// The survival curves.
    pub curves: Curves,
}
