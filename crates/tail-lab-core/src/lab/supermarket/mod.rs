//! The power of d choices: Mitzenmacher's supermarket model (IEEE TPDS 2001).
//!
//! `servers` FIFO servers (default 100) with exponential service at rate 1; jobs arrive as a
//! Poisson stream at rate `λ · servers`. Each arrival samples `d` distinct servers uniformly and
//! joins the shortest queue, ties broken at random (`d = 1` is random assignment, where every
//! server is an M/M/1 queue).
//!
//! **Mitzenmacher's fixed point.** As `servers → ∞` the share of servers holding at least `i`
//! jobs tends to `sᵢ = λ^((dⁱ − 1)/(d − 1))` ([`fixed_point_share_of`]; `λ^i` for `d = 1`): with
//! one choice it falls geometrically in `i`, with two or more doubly exponentially. By Little's
//! law the mean time in system follows from it, `E[T] = (1/λ) Σ_{i≥1} sᵢ =
//! Σ_{i≥1} λ^((dⁱ − d)/(d − 1))` ([`fixed_point_mean_time`]; `1/(1 − λ)` for `d = 1`). A run
//! reports both sides: its mean time in system, and the time-averaged share of its servers
//! holding at least `i` jobs for `i` = 1..=[`SHARE_LEVELS`].
//!
//! The model is a continuous-time Markov chain, so it needs no event heap: from any state the
//! next event is an arrival with probability `λN / (λN + B)` and otherwise a departure from a
//! uniformly random busy server (`B` busy servers), after an exponential time at the total
//! rate. Each server keeps the arrival times of its jobs in FIFO order, so every job's time in
//! system is measured exactly.
//!
//! The shares cost O(1) an event: the run keeps, for each level `i`, how many servers hold at
//! least `i` jobs and the sum of the times at which that count moved (signed), which is all the
//! count's time integral needs; an arrival or a departure touches one level, with one add.
//!
//! Warm-up: the system starts empty; jobs that arrive among the first tenth of the arrivals are
//! not measured, and the shares are averaged over the time from the first measured arrival to
//! the last arrival. Randomness is one seeded SplitMix64 stream (the chain is sequential by
//! nature).

use crate::api::{
    Call, Kind, OptionSet, OptionSpec, OptionValues, Prepared, SEED_OPTION, Work, length_words,
};
use crate::describe::{Describe, Field, Unit, Value, interval_fields};
use crate::error::{CountRange, Ends, NumberRange, ParamError};
use crate::lab::precision::{self, LengthChoice, Planned, Reached};
use crate::model::{Model, RunOutput, each_described};
use crate::sampling::address::Stream;
use crate::sampling::batch::{BAR_RELAXATIONS, RunIntervals};

mod chain;
pub mod trace;

/// The random stream of the supermarket model (id 8).
pub const STREAM: Stream = Stream::new(8);

// The bounds of a run, each one literal for the constant and its error text.
macro_rules! min_lambda {
    () => {
        0.001
    };
}
macro_rules! max_lambda {
    () => {
        100
    };
}

/// Servers a run may have.
pub const SERVERS: CountRange = crate::count_range!(1, 100000);
/// Arrivals a run may simulate.
pub const ARRIVALS: CountRange = crate::count_range!(1000, 1000000000);
/// The lowest arrival rate per server: below it the clock runs to ~1/λ per arrival and time
/// differences lose precision.
pub const MIN_LAMBDA: f64 = min_lambda!();
/// The highest arrival rate per server (λ ≥ 1 is answered "unstable", without a run).
#[allow(
    clippy::unnecessary_cast,
    reason = "the literal is written as an integer so that its error text reads as one"
)]
pub const MAX_LAMBDA: f64 = max_lambda!() as f64;
const LAMBDA_EXPECTED: &str = concat!("a rate in ", min_lambda!(), "..=", max_lambda!());
/// The arrival rates accepted per server, [`MIN_LAMBDA`]..=[`MAX_LAMBDA`].
pub const LAMBDA: NumberRange =
    NumberRange::new(MIN_LAMBDA, MAX_LAMBDA, Ends::Closed, LAMBDA_EXPECTED);
/// Choices per arrival: at least one, at most every server (the upper bound is the run's
/// `servers`; [`SERVERS`]' top is the most any run allows).
pub const CHOICES: CountRange = CountRange {
    lo: 1,
    hi: SERVERS.hi,
    expected: "an integer in 1..=servers",
};

/// The named parameters of a supermarket run, for [`SupermarketConfig::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SupermarketParams {
    /// Servers, in [`SERVERS`].
    pub servers: u32,
    /// Arrival rate per server (λ, in units of the service rate), [`MIN_LAMBDA`]..=[`MAX_LAMBDA`].
    pub lambda: f64,
    /// Servers sampled per arrival, 1..=`servers`.
    pub d: u32,
    /// Arrivals simulated, in [`ARRIVALS`]; the first tenth are warm-up.
    pub arrivals: u64,
    /// The seed of the chain's stream.
    pub seed: u64,
}

impl Default for SupermarketParams {
    /// The page's defaults: 100 servers at λ = 0.9, best of two, 10^6 arrivals, seed 1.
    fn default() -> Self {
        SupermarketParams {
            servers: DEFAULT_SERVERS,
            lambda: 0.9,
            d: 2,
            arrivals: 1_000_000,
            seed: 1,
        }
    }
}

/// The levels `i` = 1..=`SHARE_LEVELS` whose share a run reports
/// ([`SupermarketResult::share_at_least`]). Eight reach past the page's table (six) and past
/// where two or three choices leave any server (at λ = 0.9, `s₆` is 4·10⁻⁷ for two, 10⁻¹⁷ for
/// three), while random assignment's `λ^i` is still large there.
pub const SHARE_LEVELS: usize = 8;

/// One validated supermarket run.
///
/// ```
/// use tail_lab_core::lab::supermarket::{SupermarketConfig, SupermarketParams};
///
/// let params = SupermarketParams { lambda: 0.9, d: 2, arrivals: 200_000, ..Default::default() };
/// let r = SupermarketConfig::new(params).unwrap().run();
/// // Best of two at λ = 0.9: near the fixed point's 2.61 mean service times (random: 10).
/// let (mean, theory) = (r.mean_time.unwrap(), r.theory.unwrap());
/// assert!((mean / theory - 1.0).abs() < 0.1, "{mean} vs {theory}");
/// // Out-of-range parameters are refused by name.
/// let bad = SupermarketParams { d: 101, ..params };
/// assert_eq!(SupermarketConfig::new(bad).unwrap_err().param(), "d");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SupermarketConfig {
    servers: u32,
    lambda: f64,
    choices: u32,
    arrivals: u64,
    seed: u64,
}

/// The outcome of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SupermarketResult {
    /// Arrival rate per server (λ, in units of the service rate).
    pub lambda: f64,
    /// Servers sampled per arrival.
    pub d: u32,
    /// False when λ ≥ 1: no finite mean exists and no run is made.
    pub stable: bool,
    /// Mean time in system (units of mean service time), after warm-up.
    pub mean_time: Option<f64>,
    /// 99th percentile of time in system, after warm-up.
    pub p99: Option<f64>,
    /// The fixed-point prediction; `None` when unstable.
    pub theory: Option<f64>,
    /// Jobs measured.
    pub measured: u64,
    /// The time-averaged share (0..=1) of servers holding at least `i` jobs (queued or in
    /// service) for `i` = 1..=[`SHARE_LEVELS`] (index `i − 1`), over the measured window: the
    /// simulated side of [`fixed_point_share_of`]. `None` when λ ≥ 1 (no run).
    pub share_at_least: Option<[f64; SHARE_LEVELS]>,
    /// 95% batch-means intervals (units of mean service time) of the mean time in system, its
    /// median and its p99, from 5 batches of consecutive departures; `None` when λ ≥ 1, or when
    /// the run lasted fewer than [`BAR_RELAXATIONS`] relaxation times
    /// ([`SupermarketConfig::relaxation_times`]): its batches would be correlated and its bars
    /// too narrow (random assignment at λ = 0.95 on 100 servers, 2,500,000 arrivals, 16.9 of
    /// them: its mean's bars held the truth in 177 of 200 runs).
    pub intervals: Option<RunIntervals>,
    /// How the run's length was chosen when it was planned ([`SupermarketConfig::run_by`]);
    /// `None` for a caller's fixed length.
    pub planned: Option<Planned>,
}

/// [`fixed_point_mean_time`] for arguments from outside: `lambda` must be a finite rate > 0
/// and `d` in [`FIXED_POINT_D`]; `None` still means λ ≥ 1.
pub fn fixed_point(lambda: f64, d: u32) -> Result<Option<f64>, ParamError> {
    check_fixed_point_rate(lambda)?;
    FIXED_POINT_D.check("d", u64::from(d))?;
    Ok(fixed_point_mean_time(lambda, d))
}

/// The levels `i` [`fixed_point_share`] accepts.
pub const FIXED_POINT_LEVEL: CountRange = crate::count_range!(1, 1000000);

/// [`fixed_point_share_of`] for arguments from outside: `lambda` a finite rate > 0, `d` in
/// [`FIXED_POINT_D`], `i` in [`FIXED_POINT_LEVEL`]; `None` when λ ≥ 1.
///
/// ```
/// use tail_lab_core::lab::supermarket::fixed_point_share;
///
/// // At λ = 0.9 a third of a percent of servers hold 4 or more jobs with two choices
/// // (0.9^15), against 66% (0.9^4) with one.
/// let two = fixed_point_share(0.9, 2, 4).unwrap().unwrap();
/// assert!((two - (0..15).fold(1.0, |p, _| p * 0.9)).abs() < 1e-15);
/// assert!((fixed_point_share(0.9, 1, 4).unwrap().unwrap() - 0.6561).abs() < 1e-12);
/// assert_eq!(fixed_point_share(0.9, 2, 0).unwrap_err().param(), "i");
/// ```
pub fn fixed_point_share(lambda: f64, d: u32, i: u32) -> Result<Option<f64>, ParamError> {
    check_fixed_point_rate(lambda)?;
    FIXED_POINT_D.check("d", u64::from(d))?;
    FIXED_POINT_LEVEL.check("i", u64::from(i))?;
    Ok(fixed_point_share_of(lambda, d, i))
}

/// Mitzenmacher's fixed point: the share of servers holding at least `i` jobs as servers → ∞,
/// `sᵢ = λ^((dⁱ − 1)/(d − 1))`, and `λ^i` for `d = 1` (every server M/M/1). `s₀ = 1`, and
/// `s₁ = λ` for every `d` (the busy share is the load). `None` when λ ≥ 1 (or λ ≤ 0, NaN or
/// d = 0: [`fixed_point_share`] refuses those). Where `dⁱ` passes f64's range the exponent is
/// ∞ and the share 0.
pub fn fixed_point_share_of(lambda: f64, d: u32, i: u32) -> Option<f64> {
    if !(lambda.is_finite() && lambda > 0.0 && lambda < 1.0) || d == 0 {
        return None;
    }
    let exponent = if d == 1 {
        f64::from(i)
    } else {
        let d = f64::from(d);
        (libm::pow(d, f64::from(i)) - 1.0) / (d - 1.0)
    };
    Some(libm::pow(lambda, exponent))
}

fn check_fixed_point_rate(lambda: f64) -> Result<(), ParamError> {
    if lambda.is_finite() && lambda > 0.0 {
        Ok(())
    } else {
        Err(ParamError::OutOfRange {
            param: "lambda",
            got: lambda,
            expected: "a rate > 0",
        })
    }
}

/// The `d` [`fixed_point`] accepts: up to the most servers a run may have.
pub const FIXED_POINT_D: CountRange = crate::count_range!(1, 100000);
const _: () = assert!(FIXED_POINT_D.hi == SERVERS.hi);

/// `Σ_{i≥1} λ^((d^i − d)/(d − 1))`, the N → ∞ mean time in system with d choices; `1/(1 − λ)`
/// for `d = 1`. `None` when λ ≥ 1 (or λ ≤ 0, NaN or d = 0: [`fixed_point`] refuses those).
pub fn fixed_point_mean_time(lambda: f64, d: u32) -> Option<f64> {
    if !(lambda.is_finite() && lambda > 0.0 && lambda < 1.0) || d == 0 {
        return None;
    }
    if d == 1 {
        return Some(1.0 / (1.0 - lambda));
    }
    let d = f64::from(d);
    let mut sum = 0.0;
    for i in 1..64 {
        let exponent = (libm::pow(d, f64::from(i)) - d) / (d - 1.0);
        let term = libm::pow(lambda, exponent);
        sum += term;
        if term < 1e-17 {
            break;
        }
    }
    Some(sum)
}

impl SupermarketConfig {
    /// Validates `params`, each bound named in the error ([`SERVERS`], λ in
    /// [`MIN_LAMBDA`]..=[`MAX_LAMBDA`], `d` in 1..=servers, [`ARRIVALS`]).
    pub fn new(params: SupermarketParams) -> Result<Self, ParamError> {
        let SupermarketParams {
            servers,
            lambda,
            d,
            arrivals,
            seed,
        } = params;
        SERVERS.check("servers", u64::from(servers))?;
        LAMBDA.check("lambda", lambda)?;
        CountRange {
            hi: u64::from(servers),
            ..CHOICES
        }
        .check("d", u64::from(d))?;
        ARRIVALS.check("arrivals", arrivals)?;
        Ok(SupermarketConfig {
            servers,
            lambda,
            choices: d,
            arrivals,
            seed,
        })
    }

    /// Servers above which a choice costs a cache miss: the queues no longer fit in cache.
    pub const CACHE_SERVERS: u32 = 16_384;

    /// What a run costs, in work units of about 10 ns of wasm in Chromium on a 2-core machine
    /// (see BENCHMARKS.md), counted per event rather than per arrival: 8 units an arrival and
    /// its departure (two exponential clocks, the queue and busy-list updates), and 3 more for
    /// each random draw of a server, or 8 above [`Self::CACHE_SERVERS`] servers, where every
    /// queue it looks at is a cache miss. Up to 8 choices are drawn by rejection, which takes
    /// `Σ_{i<d} n/(n − i)` draws for `d` distinct of `n` servers (21.7 for 8 of 8); more are
    /// drawn by Floyd's method, one draw each. The weights were measured on the first engine
    /// (idle: 90 ns an arrival at d = 1 on one server, 165 ns at d = 1 and 325 ns at d = 3 on
    /// 100,000 servers, 450 ns at d = 8 on 8 servers). The flat-ring engine (`chain.rs`) costs
    /// less, so they are now an upper bound, about twice the cost below
    /// [`Self::CACHE_SERVERS`]: in node 20 (wasm, the least of several runs) an arrival takes
    /// 54 ns at d = 1 on one server, 56 ns at d = 2 and 61 ns at d = 3 on 100 servers, 260 ns
    /// at d = 8 on 8 servers (about 5.5 units an arrival and 1 a draw), and 105–150 ns at
    /// d = 1 to 3 on 100,000 servers.
    pub fn work_units(&self) -> f64 {
        let per_draw = if self.servers > Self::CACHE_SERVERS {
            8.0
        } else {
            3.0
        };
        let n = f64::from(self.servers);
        let draws: f64 = if self.choices <= 8 {
            (0..self.choices).map(|i| n / (n - f64::from(i))).sum()
        } else {
            f64::from(self.choices)
        };
        self.arrivals as f64 * (8.0 + per_draw * draws)
    }

    /// Simulates the chain (its event loop is in `chain.rs`).
    pub fn run(&self) -> SupermarketResult {
        let mut result = self.run_ungated();
        self.withhold_short_intervals(&mut result);
        result
    }

    /// Drops `result`'s intervals when this run lasted fewer than [`BAR_RELAXATIONS`] relaxation
    /// times (what [`SupermarketResult::intervals`] says).
    pub(super) fn withhold_short_intervals(&self, result: &mut SupermarketResult) {
        if self.relaxation_times() < BAR_RELAXATIONS {
            result.intervals = None;
        }
    }

    /// [`Self::run`] with its intervals whatever the run's length: what a pilot plans from
    /// (its noise, read over its own batches, however short it is for bars).
    fn run_ungated(&self) -> SupermarketResult {
        if self.lambda < 1.0 {
            return self.simulate();
        }
        SupermarketResult {
            lambda: self.lambda,
            d: self.choices,
            stable: false,
            mean_time: None,
            p99: None,
            theory: fixed_point_mean_time(self.lambda, self.choices),
            measured: 0,
            share_at_least: None,
            intervals: None,
            planned: None,
        }
    }

    /// How many relaxation times of random assignment's queues the run lasts: its arrivals over
    /// `λ · servers` service times, over `1/(1 − √λ)²`, an M/M/1 queue's (exact for d = 1; the
    /// queues of d ≥ 2 choices are shorter and relax faster, so for them it is a bound).
    pub fn relaxation_times(&self) -> f64 {
        let relaxation = 1.0 / ((1.0 - self.lambda.sqrt()) * (1.0 - self.lambda.sqrt()));
        self.arrivals as f64 / (self.lambda * f64::from(self.servers)) / relaxation
    }

    /// Runs for the length `choice` says (the balance's row of
    /// [`crate::lab::precision::RUN_LENGTHS`]; [`LengthChoice::Fixed`] is
    /// [`SupermarketConfig::run`]).
    pub fn run_by(&self, choice: LengthChoice) -> SupermarketResult {
        let rule = precision::run_length(MODEL.key).expect("the balance has a run-length rule");
        let mut ran = self.arrivals;
        let mut result = precision::run_by_choice(
            rule,
            choice,
            (self.seed, self.arrivals),
            |seed, arrivals| {
                ran = arrivals;
                SupermarketConfig {
                    seed,
                    arrivals,
                    ..*self
                }
                .run_ungated()
            },
            |r| {
                Reached::of(
                    r.mean_time.unwrap_or(0.0),
                    r.p99.unwrap_or(0.0),
                    r.intervals.as_ref(),
                )
            },
            |r, planned| r.planned = Some(planned),
        );
        // Bars only for a run long enough for them, whichever length was run.
        SupermarketConfig {
            arrivals: ran,
            ..*self
        }
        .withhold_short_intervals(&mut result);
        result
    }
}

/// For each level `i` = 1..=[`SHARE_LEVELS`]: how many servers hold at least `i` jobs now, and
/// what the time integral of that count needs, kept in O(1) an event: a count that moves by
/// `δⱼ` at times `tⱼ` integrates over the window `[open, close]` to
/// `c(close)·close − c(open)·open − Σⱼ δⱼ tⱼ`, so a change only adds `δ·t` to its level's
/// sum (one add, no multiply, no other level touched). Each array has one slot more, which
/// every queue longer than [`SHARE_LEVELS`] updates and nothing reads: no branch on the length,
/// which with one choice at λ = 0.9 is past the last level half the time and would mispredict.
#[derive(Debug, Default)]
struct LevelShares {
    count: [i64; SHARE_LEVELS + 1],
    /// `Σ δⱼ tⱼ` over the level's changes since the window opened.
    moved: [f64; SHARE_LEVELS + 1],
    /// The counts when the window opened.
    at_open: [i64; SHARE_LEVELS + 1],
    opened_at: f64,
}

impl LevelShares {
    /// A queue grew to `len` jobs at `now`: one more server holds at least `len`.
    #[inline]
    fn rise(&mut self, len: u32, now: f64) {
        let k = (len.wrapping_sub(1) as usize).min(SHARE_LEVELS);
        self.count[k] = self.count[k].wrapping_add(1);
        self.moved[k] += now;
    }

    /// A queue of `len` jobs loses one at `now`: one fewer server holds at least `len`.
    #[inline]
    fn fall(&mut self, len: u32, now: f64) {
        let k = (len.wrapping_sub(1) as usize).min(SHARE_LEVELS);
        self.count[k] = self.count[k].wrapping_sub(1);
        self.moved[k] -= now;
    }

    /// Starts the measured window at `now`: what came before is forgotten.
    fn open(&mut self, now: f64) {
        self.moved = [0.0; SHARE_LEVELS + 1];
        self.at_open = self.count;
        self.opened_at = now;
    }

    /// Ends the window at `now`: each level's time-averaged share of `servers`.
    fn close(&self, now: f64, servers: usize) -> [f64; SHARE_LEVELS] {
        let span = (now - self.opened_at) * servers as f64;
        std::array::from_fn(|k| {
            let area = self.count[k] as f64 * now
                - self.at_open[k] as f64 * self.opened_at
                - self.moved[k];
            if span > 0.0 {
                (area / span).clamp(0.0, 1.0)
            } else {
                0.0
            }
        })
    }
}

/// The standard sweep: λ in {0.5, 0.7, 0.8, 0.9, 0.95}, d in {1, 2, 3}, 100 servers.
pub fn sweep(arrivals: u64, seed: u64) -> Result<Vec<SupermarketResult>, ParamError> {
    sweep_with_progress(arrivals, seed, &mut || {})
}

// The sweep's size is one literal, so that the constant and its error text agree.
macro_rules! sweep_points {
    () => {
        15
    };
}

/// Points in the standard sweep: five arrival rates × d in {1, 2, 3}.
pub const SWEEP_POINTS: usize = sweep_points!();
const SWEEP_LAMBDAS: [f64; 5] = [0.5, 0.7, 0.8, 0.9, 0.95];
const _: () = assert!(SWEEP_POINTS == SWEEP_LAMBDAS.len() * 3);
const SWEEP_INDEX: CountRange = CountRange {
    lo: 0,
    hi: SWEEP_POINTS as u64 - 1,
    expected: concat!("a sweep point in 0..", sweep_points!()),
};

/// Point `index` (0..[`SWEEP_POINTS`], λ-major) of the standard sweep, on its own: the same
/// result as in [`sweep`], so the points can run in parallel.
pub fn sweep_point(
    index: usize,
    arrivals: u64,
    seed: u64,
) -> Result<SupermarketResult, ParamError> {
    SWEEP_INDEX.check("index", index as u64)?;
    let (lambda, d) = (SWEEP_LAMBDAS[index / 3], index as u32 % 3 + 1);
    Ok(SupermarketConfig::new(SupermarketParams {
        servers: DEFAULT_SERVERS,
        lambda,
        d,
        arrivals,
        seed,
    })?
    .run())
}

/// [`sweep`], calling `step` after each of its 15 runs.
pub fn sweep_with_progress(
    arrivals: u64,
    seed: u64,
    step: &mut dyn FnMut(),
) -> Result<Vec<SupermarketResult>, ParamError> {
    super::sweep_points(SWEEP_POINTS, step, |i| sweep_point(i, arrivals, seed))
}

/// Servers a run has unless told otherwise (the report's sweep too).
pub const DEFAULT_SERVERS: u32 = 100;

/// The names of d = 1, 2, 3: `"random"`, `"two"` and `"three"`.
pub const POLICIES: [&str; 3] = ["random", "two", "three"];
/// The policy names in an error's words.
pub const POLICY_NAMES: &str = "\"random\", \"two\", \"three\"";

/// The d a policy name stands for (`"two"` is 2), or a [`ParamError::UnknownName`].
pub fn policy_choices(name: &str) -> Result<u32, ParamError> {
    (1..)
        .zip(POLICIES)
        .find(|(_, p)| *p == name)
        .map(|(d, _)| d)
        .ok_or_else(|| ParamError::UnknownName {
            param: "policy",
            got: name.to_string(),
            expected: POLICY_NAMES,
        })
}

/// The choices per arrival when a caller may give a policy name, a `d`, both or neither: the
/// one given, both when they agree ([`ParamError::Conflict`] when not), or `default`.
pub fn choices(policy: Option<&str>, d: Option<u32>, default: u32) -> Result<u32, ParamError> {
    let from_policy = policy.map(policy_choices).transpose()?;
    match (from_policy, d) {
        (Some(p), Some(d)) if p != d => Err(ParamError::Conflict {
            param: "policy",
            reason: format!(
                "{:?} means d = {p}, but d is {d}: give one of them",
                POLICIES[p as usize - 1]
            ),
        }),
        (p, d) => Ok(p.or(d).unwrap_or(default)),
    }
}

impl Describe for SupermarketResult {
    const TYPE_NAME: &'static str = "BalanceResult";
    const DOC: &'static str = "The power of d choices on one run: times in mean service \
        times, null when λ ≥ 1.";

    fn describe(&self) -> Vec<Field> {
        let times = |key, doc, v: Option<f64>| {
            Field::new(key, Unit::ServiceTimes, doc, Value::MaybeNumber(v))
        };
        vec![
            Field::new(
                "lambda",
                Unit::Rate,
                "Arrival rate per server, in units of the service rate.",
                Value::Number(self.lambda),
            ),
            Field::count("d", "Servers sampled per arrival.", u64::from(self.d)),
            Field::flag(
                "stable",
                "False when λ ≥ 1: no finite mean, no run.",
                self.stable,
            ),
            times(
                "mean_time",
                "Mean time in system after warm-up.",
                self.mean_time,
            ),
            times(
                "p99",
                "99th percentile of time in system after warm-up.",
                self.p99,
            ),
            times(
                "theory",
                "Mitzenmacher's fixed point (1/(1 − λ) for d = 1), the limit of many servers.",
                self.theory,
            ),
            Field::new(
                "share_at_least",
                Unit::Fraction,
                "Time-averaged share of servers holding at least i jobs, for i = 1..=8 (index \
                 i − 1): the simulated side of the fixed point sᵢ. Empty when λ ≥ 1.",
                Value::Series(self.share_at_least.map_or_else(Vec::new, |s| s.to_vec())),
            ),
        ]
        .into_iter()
        .chain(interval_fields(self.intervals, Unit::ServiceTimes))
        .chain([precision::precision_field(
            Reached::of(
                self.mean_time.unwrap_or(0.0),
                self.p99.unwrap_or(0.0),
                self.intervals.as_ref(),
            ),
            self.planned.as_ref(),
        )])
        .collect()
    }
}

/// Supermarket arrivals per requested report request (the chain is cheap per event).
pub const ARRIVALS_PER_REPORT_REQUEST: u64 = 5;

fn run(index: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    let arrivals = (requests * ARRIVALS_PER_REPORT_REQUEST).max(1000);
    Ok(Box::new(sweep_point(index, arrivals, seed)?))
}

/// The power of d choices in the report and the API (`simulateBalance`).
pub const MODEL: Model = Model {
    key: "balance",
    title: "Power of d choices, 100 servers",
    note: "seed: λ = 0.9, random 10.0, best of two 2.63 vs the fixed point's 2.61",
    call: Some("simulateBalance"),
    api: Some(&CALL),
    closed_forms: &["fixedPointMeanTime", "fixedPointShare"],
    result_type: <SupermarketResult as Describe>::TYPE_NAME,
    result_doc: <SupermarketResult as Describe>::DOC,
    streams: &[STREAM],
    sweep: true,
    runs: SWEEP_POINTS,
    run,
    entries: each_described::<SupermarketResult>,
    example: || sweep_point(0, 1000, 1).expect("valid").describe(),
};

/// `policy`: the choices per arrival by name ([`choices`]); none unless told.
pub const POLICY_OPTION: OptionSpec = OptionSpec {
    name: "policy",
    doc: "\"random\" (d = 1), \"two\" (d = 2) or \"three\" (d = 3).",
    unit: Unit::None,
    kind: Kind::Name {
        names: &POLICIES,
        expected: POLICY_NAMES,
        default: None,
    },
};

/// `d`: the choices per arrival by number ([`choices`]); 2 unless `policy` says.
pub const CHOICES_OPTION: OptionSpec = OptionSpec {
    name: "d",
    doc: "Servers sampled per arrival, at most `servers`; 2 unless `policy` says.",
    unit: Unit::Count,
    kind: Kind::Count {
        range: CHOICES,
        default: None,
    },
};

/// `simulateBalance`: the supermarket model at one point.
pub const CALL: Call = Call {
    name: "simulateBalance",
    doc: "The supermarket model: each arrival joins the shortest of `d` sampled queues.",
    options_type: "BalanceOptions",
    options_doc: "Options of `simulateBalance`. `policy` and `d` name the same thing; give either \
                  (both, only when they agree).",
    options: &[
        OptionSpec::number(
            "lambda",
            "Arrival rate per server in units of the service rate.",
            Unit::Rate,
            LAMBDA,
            0.9,
        ),
        POLICY_OPTION,
        CHOICES_OPTION,
        OptionSpec::count(
            "servers",
            "Servers.",
            Unit::Count,
            SERVERS,
            DEFAULT_SERVERS as u64,
        ),
        OptionSpec {
            name: "arrivals",
            doc: "Arrivals simulated.",
            unit: Unit::Count,
            kind: Kind::RunLength {
                range: ARRIVALS,
                default: 1_000_000,
                rule: &precision::BALANCE_RUN,
            },
        },
        SEED_OPTION,
    ],
    exclusive: &[],
    result_type: <SupermarketResult as Describe>::TYPE_NAME,
    more: &[OptionSet {
        type_name: "SupermarketTraceOptions",
        doc: "Options of `traceSupermarket`: a small system's window, to watch its queues. \
              `policy` and `d` name the same thing; give either (both, only when they agree).",
        options: trace::TRACE_OPTIONS,
    }],
    prepare: |o: &OptionValues| {
        let defaults = SupermarketParams::default();
        let d = choices(
            o.name("policy"),
            o.given_count("d").map(|d| d as u32),
            defaults.d,
        )?;
        let (arrivals, choice) = o.length("arrivals");
        let config = SupermarketConfig::new(SupermarketParams {
            servers: o.count("servers") as u32,
            lambda: o.number("lambda").expect("lambda has a default"),
            d,
            arrivals,
            seed: o.seed("seed"),
        })?;
        let work = Work {
            units: config.work_units(),
            counted_as: format!(
                "{} × (8 + 3 a server drawn, or 8 above 16384 servers)",
                length_words("arrivals", choice, arrivals)
            ),
        };
        Ok(Prepared::new(work, move || {
            Ok(config.run_by(choice).describe())
        }))
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    fn params(servers: u32, lambda: f64, d: u32, arrivals: u64, seed: u64) -> SupermarketParams {
        SupermarketParams {
            servers,
            lambda,
            d,
            arrivals,
            seed,
        }
    }

    #[test]
    fn policy_names_and_d_agree_or_are_refused() {
        assert_eq!(choices(Some("three"), None, 2), Ok(3));
        assert_eq!(choices(None, Some(5), 2), Ok(5));
        assert_eq!(choices(Some("two"), Some(2), 1), Ok(2));
        assert_eq!(choices(None, None, 2), Ok(2));
        let e = choices(Some("two"), Some(3), 2).unwrap_err();
        assert_eq!(
            e.to_string(),
            "policy \"two\" means d = 2, but d is 3: give one of them"
        );
        let e = choices(Some("all"), None, 2).unwrap_err();
        assert_eq!(
            e.to_string(),
            "policy must be one of \"random\", \"two\", \"three\" (got \"all\")"
        );
        assert_eq!(fixed_point(0.0, 2).unwrap_err().param(), "lambda");
        assert_eq!(fixed_point(0.5, 0).unwrap_err().param(), "d");
        assert_eq!(fixed_point(1.5, 2), Ok(None));
    }

    #[test]
    fn fixed_point_values() {
        assert!((fixed_point_mean_time(0.9, 1).unwrap() - 10.0).abs() < 1e-12);
        // Seed 000: "a predicted 2.61" at λ = 0.9, d = 2.
        assert!((fixed_point_mean_time(0.9, 2).unwrap() - 2.61).abs() < 0.01);
        assert!(fixed_point_mean_time(0.9, 3).unwrap() < fixed_point_mean_time(0.9, 2).unwrap());
        assert_eq!(fixed_point_mean_time(1.0, 2), None);
        // As λ → 0 every d gives one service time.
        assert!((fixed_point_mean_time(1e-6, 2).unwrap() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn fixed_point_shares() {
        // One choice: geometric; two: 0.9, 0.9^3, 0.9^7, 0.9^15; the busy share is λ for all d.
        for i in 1..=6 {
            let one = fixed_point_share_of(0.9, 1, i).unwrap();
            let power = |k: u32| (0..k).fold(1.0, |p, _| p * 0.9);
            assert!((one - power(i)).abs() < 1e-15);
            let two = fixed_point_share_of(0.9, 2, i).unwrap();
            assert!((two - power((1 << i) - 1)).abs() < 1e-15, "{i}: {two}");
        }
        for d in [1, 2, 3, 10, 100_000] {
            assert!((fixed_point_share_of(0.7, d, 1).unwrap() - 0.7).abs() < 1e-15);
        }
        // Little's law: (1/λ) Σ sᵢ is the mean time in system.
        for d in 1..=4 {
            for lambda in [0.1, 0.5, 0.9, 0.99] {
                let sum: f64 = (1..20_000)
                    .map(|i| fixed_point_share_of(lambda, d, i).unwrap())
                    .sum();
                let mean = fixed_point_mean_time(lambda, d).unwrap();
                assert!(
                    (sum / lambda / mean - 1.0).abs() < 1e-9,
                    "d {d} λ {lambda}: {} vs {mean}",
                    sum / lambda
                );
            }
        }
        // Deep levels underflow to 0, never NaN; validation names the argument.
        assert_eq!(fixed_point_share(0.9, 100_000, 1_000_000), Ok(Some(0.0)));
        assert_eq!(fixed_point_share(0.9, 2, 0).unwrap_err().param(), "i");
        assert_eq!(
            fixed_point_share(0.9, 2, 1_000_001).unwrap_err().param(),
            "i"
        );
        assert_eq!(fixed_point_share(0.9, 0, 3).unwrap_err().param(), "d");
        assert_eq!(
            fixed_point_share(f64::NAN, 2, 3).unwrap_err().param(),
            "lambda"
        );
        assert_eq!(fixed_point_share(-1.0, 2, 3).unwrap_err().param(), "lambda");
        assert_eq!(fixed_point_share(1.0, 2, 3), Ok(None));
    }

    #[test]
    fn shares_are_measured_and_absent_without_a_run() {
        let r = SupermarketConfig::new(params(100, 0.5, 2, 20_000, 1))
            .unwrap()
            .run();
        let s = r.share_at_least.unwrap();
        assert!(s.windows(2).all(|w| w[0] >= w[1]), "{s:?}");
        assert!(s.iter().all(|x| (0.0..=1.0).contains(x)), "{s:?}");
        let overloaded = SupermarketConfig::new(params(100, 1.5, 2, 20_000, 1))
            .unwrap()
            .run();
        assert_eq!(overloaded.share_at_least, None);
    }

    #[test]
    fn large_d_samples_in_o_d_and_joins_a_shortest_queue() {
        // d = 5,000 of 10,000 servers at λ = 0.5: an idle server is almost always among the
        // sampled, so time in system is one exponential service, mean 1. About 1,800 jobs are
        // measured: standard error 1/√1800 ≈ 0.024, allowed 4.42 of it. (Sampling by a
        // partial Fisher–Yates would cost 10,000 steps an arrival; Floyd's costs 5,000.)
        let r = SupermarketConfig::new(params(10_000, 0.5, 5_000, 2_000, 3))
            .unwrap()
            .run();
        let m = r.mean_time.unwrap();
        assert!((m - 1.0).abs() < 4.42 * 0.024, "{m}");
    }

    #[test]
    fn bad_parameters_are_rejected_by_name() {
        assert_eq!(
            SupermarketConfig::new(params(100, 0.0, 2, 10_000, 1))
                .unwrap_err()
                .param(),
            "lambda"
        );
        assert_eq!(
            SupermarketConfig::new(params(100, f64::NAN, 2, 10_000, 1))
                .unwrap_err()
                .param(),
            "lambda"
        );
        assert_eq!(
            SupermarketConfig::new(params(100, 0.9, 0, 10_000, 1))
                .unwrap_err()
                .param(),
            "d"
        );
        assert_eq!(
            SupermarketConfig::new(params(100, 0.9, 101, 10_000, 1))
                .unwrap_err()
                .param(),
            "d"
        );
        assert_eq!(
            SupermarketConfig::new(params(0, 0.9, 1, 10_000, 1))
                .unwrap_err()
                .param(),
            "servers"
        );
    }

    #[test]
    fn overload_is_reported_as_unstable() {
        let r = SupermarketConfig::new(params(100, 1.2, 2, 10_000, 1))
            .unwrap()
            .run();
        assert!(!r.stable && r.mean_time.is_none() && r.theory.is_none());
    }
}
