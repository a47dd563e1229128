//! The power of d choices: Mitzenmacher's supermarket model (IEEE TPDS 2001).
//!
//! `servers` FIFO servers (default 100) with exponential service at rate 1; jobs arrive as a
//! Poisson stream at rate `λ · servers`. Each arrival samples `d` distinct servers uniformly and
//! joins the shortest queue, ties broken at random (`d = 1` is random assignment, where every
//! server is an M/M/1 queue). As `servers → ∞` the mean time in system tends to the fixed point
//! `Σ_{i≥1} λ^((d^i − d)/(d − 1))` ([`fixed_point_mean_time`]; `1/(1 − λ)` for `d = 1`).
//!
//! The model is a continuous-time Markov chain, so it needs no event heap: from any state the
//! next event is an arrival with probability `λN / (λN + B)` and otherwise a departure from a
//! uniformly random busy server (`B` busy servers), after an exponential time at the total
//! rate. Each server keeps the arrival times of its jobs in FIFO order, so every job's time in
//! system is measured exactly.
//!
//! Warm-up: the system starts empty; jobs that arrive among the first tenth of the arrivals are
//! not measured. Randomness is one seeded SplitMix64 stream (the chain is sequential by nature).

use crate::describe::{Describe, Field, Unit, Value};
use crate::error::{ParamError, check_count, check_range};
use crate::model::{Model, RunOutput, each_described};
use crate::sampling::address::{SampleStream, Stream};
use crate::sampling::histogram::Histogram;
use crate::sampling::histogram::shared_bins;
use std::collections::VecDeque;

/// The random stream of the supermarket model (id 8).
pub const STREAM: Stream = Stream::new(8);

/// One supermarket run.
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
}

/// `Σ_{i≥1} λ^((d^i − d)/(d − 1))`, the N → ∞ mean time in system with d choices; `1/(1 − λ)`
/// for `d = 1`. `None` when λ ≥ 1.
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
    /// `servers` (1..=100000) servers, arrival rate `lambda` (0.001..=100) per server, `d` (1..=servers)
    /// choices, `arrivals` (1000..=10^9) arrivals.
    pub fn new(
        servers: u32,
        lambda: f64,
        d: u32,
        arrivals: u64,
        seed: u64,
    ) -> Result<Self, ParamError> {
        check_count(
            "servers",
            u64::from(servers),
            1,
            100_000,
            "an integer in 1..=100000",
        )?;
        // Below 0.001 the clock runs to ~1/λ per arrival and time differences lose precision.
        check_range("lambda", lambda, 1e-3, 100.0, "a rate in 0.001..=100")?;
        if d == 0 || d > servers {
            return Err(ParamError::OutOfRange {
                param: "d",
                got: f64::from(d),
                expected: "an integer in 1..=servers",
            });
        }
        check_count(
            "arrivals",
            arrivals,
            1000,
            1_000_000_000,
            "an integer in 1000..=1000000000",
        )?;
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
    /// (see BENCHMARKS.md), measured per event rather than per arrival. An arrival and its
    /// departure cost 8 units (two exponential clocks, the queue and busy-list updates). Each
    /// random draw of a server costs 3 more, or 8 above [`Self::CACHE_SERVERS`] servers, where
    /// every queue it looks at is a cache miss. Up to 8 choices are drawn by rejection, which
    /// takes `Σ_{i<d} n/(n − i)` draws for `d` distinct of `n` servers (21.7 for 8 of 8);
    /// more are drawn by Floyd's method, one draw each. Measured idle: 90 ns an arrival at
    /// d = 1 on one server, 165 ns at d = 1 and 325 ns at d = 3 on 100,000 servers; 450 ns at
    /// d = 8 on 8 servers.
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

    /// Simulates the chain.
    pub fn run(&self) -> SupermarketResult {
        let theory = fixed_point_mean_time(self.lambda, self.choices);
        let mut result = SupermarketResult {
            lambda: self.lambda,
            d: self.choices,
            stable: self.lambda < 1.0,
            mean_time: None,
            p99: None,
            theory,
            measured: 0,
        };
        if !result.stable {
            return result;
        }
        let n = self.servers as usize;
        let mut rng = SampleStream::at(self.seed, STREAM, 0, 0, 0);
        let mut queues: Vec<VecDeque<(f64, bool)>> = vec![VecDeque::new(); n];
        // Busy servers, with each server's position in the list for O(1) removal.
        let mut busy: Vec<u32> = Vec::with_capacity(n);
        let mut position: Vec<u32> = vec![u32::MAX; n];
        let arrival_rate = self.lambda * n as f64;
        let warmup = self.arrivals / 10;
        let measured_target = self.arrivals - warmup;
        let (mut now, mut arrived, mut measured) = (0.0f64, 0u64, 0u64);
        let mut sum = 0.0;
        let mut histogram = Histogram::new();
        let below = |bits: u64, m: usize| ((u128::from(bits) * m as u128) >> 64) as usize;
        let mut picks = [0usize; 8];
        // Floyd's sampling for large d: a mark per server (cleared after each arrival through
        // the list of the marked), so membership is one load and no hashing is involved.
        let mut marked = vec![
            false;
            if self.choices as usize > picks.len() {
                n
            } else {
                0
            }
        ];
        let mut marked_list: Vec<usize> = Vec::with_capacity(self.choices as usize);
        while measured < measured_target {
            let total_rate = arrival_rate + busy.len() as f64;
            now += -libm::log(rng.next_open_unit()) / total_rate;
            let arrival = rng.next_unit() * total_rate < arrival_rate;
            if arrival && arrived < self.arrivals {
                // Sample d distinct servers; the first shortest in random sample order is a
                // uniformly random tie-break.
                let d = self.choices as usize;
                let mut best = usize::MAX;
                if d <= picks.len() {
                    let mut chosen = 0;
                    while chosen < d {
                        let s = below(rng.next_bits(), n);
                        if picks[..chosen].contains(&s) {
                            continue;
                        }
                        picks[chosen] = s;
                        chosen += 1;
                        if best == usize::MAX || queues[s].len() < queues[best].len() {
                            best = s;
                        }
                    }
                } else {
                    // Large d: Floyd's sampling of d distinct servers in O(d) (not O(servers)),
                    // then the shortest, ties broken uniformly by reservoir sampling.
                    let mut ties = 0u64;
                    for j in n - d..n {
                        let t = below(rng.next_bits(), j + 1);
                        let s = if marked[t] { j } else { t };
                        marked[s] = true;
                        marked_list.push(s);
                        let shorter = best == usize::MAX || queues[s].len() < queues[best].len();
                        if shorter {
                            best = s;
                            ties = 1;
                        } else if queues[s].len() == queues[best].len() {
                            ties += 1;
                            if below(rng.next_bits(), ties as usize) == 0 {
                                best = s;
                            }
                        }
                    }
                    for s in marked_list.drain(..) {
                        marked[s] = false;
                    }
                }
                let counted = arrived >= warmup;
                queues[best].push_back((now, counted));
                if queues[best].len() == 1 {
                    position[best] = busy.len() as u32;
                    busy.push(best as u32);
                }
                arrived += 1;
            } else if !busy.is_empty() && !arrival {
                let s = busy[below(rng.next_bits(), busy.len())] as usize;
                let (arrived_at, counted) = queues[s].pop_front().expect("busy server has a job");
                if counted {
                    let t = now - arrived_at;
                    sum += t;
                    histogram.record(shared_bins(), t);
                    measured += 1;
                }
                if queues[s].is_empty() {
                    let p = position[s] as usize;
                    let last = *busy.last().expect("non-empty");
                    busy.swap_remove(p);
                    if p < busy.len() {
                        position[last as usize] = p as u32;
                    }
                    position[s] = u32::MAX;
                }
            } else if arrived >= self.arrivals && busy.is_empty() {
                break;
            }
        }
        result.measured = measured;
        result.mean_time = Some(sum / measured.max(1) as f64);
        result.p99 = Some(histogram.percentile(shared_bins(), 0.99));
        result
    }
}

/// The standard sweep: λ in {0.5, 0.7, 0.8, 0.9, 0.95}, d in {1, 2, 3}, 100 servers.
pub fn sweep(arrivals: u64, seed: u64) -> Result<Vec<SupermarketResult>, ParamError> {
    sweep_with_progress(arrivals, seed, &mut || {})
}

/// Points in the standard sweep: five arrival rates × d in {1, 2, 3}.
pub const SWEEP_POINTS: usize = SWEEP_LAMBDAS.len() * 3;
const SWEEP_LAMBDAS: [f64; 5] = [0.5, 0.7, 0.8, 0.9, 0.95];

/// Point `index` (0..[`SWEEP_POINTS`], λ-major) of the standard sweep, on its own: the same
/// result as in [`sweep`], so the points can run in parallel.
pub fn sweep_point(
    index: usize,
    arrivals: u64,
    seed: u64,
) -> Result<SupermarketResult, ParamError> {
    check_count(
        "index",
        index as u64,
        0,
        SWEEP_POINTS as u64 - 1,
        "a sweep point in 0..15",
    )?;
    let (lambda, d) = (SWEEP_LAMBDAS[index / 3], index as u32 % 3 + 1);
    Ok(SupermarketConfig::new(DEFAULT_SERVERS, lambda, d, arrivals, seed)?.run())
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
        ]
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
    closed_forms: &["fixedPointMeanTime"],
    result_type: <SupermarketResult as Describe>::TYPE_NAME,
    result_doc: <SupermarketResult as Describe>::DOC,
    streams: &[STREAM],
    sweep: true,
    runs: SWEEP_POINTS,
    run,
    entries: each_described::<SupermarketResult>,
    example: || sweep_point(0, 1000, 1).expect("valid").describe(),
};

#[cfg(test)]
mod tests {
    use super::*;

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
    fn large_d_samples_in_o_d_and_joins_a_shortest_queue() {
        // d = 5,000 of 10,000 servers at λ = 0.5: an idle server is almost always among the
        // sampled, so time in system is one exponential service, mean 1. About 1,800 jobs are
        // measured: standard error 1/√1800 ≈ 0.024, allowed 4.42 of it. (Sampling by a
        // partial Fisher–Yates would cost 10,000 steps an arrival; Floyd's costs 5,000.)
        let r = SupermarketConfig::new(10_000, 0.5, 5_000, 2_000, 3)
            .unwrap()
            .run();
        let m = r.mean_time.unwrap();
        assert!((m - 1.0).abs() < 4.42 * 0.024, "{m}");
    }

    #[test]
    fn bad_parameters_are_rejected_by_name() {
        assert_eq!(
            SupermarketConfig::new(100, 0.0, 2, 10_000, 1)
                .unwrap_err()
                .param(),
            "lambda"
        );
        assert_eq!(
            SupermarketConfig::new(100, f64::NAN, 2, 10_000, 1)
                .unwrap_err()
                .param(),
            "lambda"
        );
        assert_eq!(
            SupermarketConfig::new(100, 0.9, 0, 10_000, 1)
                .unwrap_err()
                .param(),
            "d"
        );
        assert_eq!(
            SupermarketConfig::new(100, 0.9, 101, 10_000, 1)
                .unwrap_err()
                .param(),
            "d"
        );
        assert_eq!(
            SupermarketConfig::new(0, 0.9, 1, 10_000, 1)
                .unwrap_err()
                .param(),
            "servers"
        );
    }

    #[test]
    fn overload_is_reported_as_unstable() {
        let r = SupermarketConfig::new(100, 1.2, 2, 10_000, 1)
            .unwrap()
            .run();
        assert!(!r.stable && r.mean_time.is_none() && r.theory.is_none());
    }
}
