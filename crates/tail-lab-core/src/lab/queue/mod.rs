//! The single queue: M/M/c, the textbook reference every other queueing model departs from.
//!
//! `servers` (c) identical servers share one first-come-first-served queue. Requests arrive as
//! a Poisson stream at rate `λ = c·ρ` for a per-server utilisation `load` (ρ), and each needs
//! an exponential service of mean 1. **The time unit is the mean service time**: every time in
//! a [`QueueResult`] (mean, p99 and their closed forms) is in mean service times, as in the
//! supermarket model, so a reader multiplies by their own service time (a mean of 1 ms gives
//! milliseconds). The p99 comes from a histogram on the shared bins read in that unit: their
//! first edge is 2^-4 = 0.0625 and they resolve 2% steps, so every sojourn percentile from the
//! median (≥ ln 2 ≈ 0.69, a service alone) up is measured to within a bin.
//!
//! A request waits with probability Erlang C, `C(c, cρ)`, and its sojourn has a closed form
//! ([`theory`]): each run reports its measurement beside the exact value.
//!
//! Warm-up: the queue starts empty; the first tenth of the requests (by arrival) are simulated
//! but not measured, as in the supermarket and loaded models. Randomness is addressed per
//! request on [`STREAM`] (the gap before it and its service time), so two runs at the same
//! seed and load see the same arrivals and the same work whatever the number of servers.
//!
//! Built on [`crate::des`] (`engine`).

mod engine;
mod model;
pub mod theory;

pub use model::{CALL, MODEL};

use crate::error::{ParamError, check_count, check_range};
use crate::lab::precision::{self, LengthChoice, Planned, Reached};
use crate::sampling::address::Stream;
use crate::sampling::batch::{BatchHistogram, RunIntervals};
use crate::sampling::histogram::shared_bins;

/// The random stream of the single queue (id 10).
pub const STREAM: Stream = Stream::new(10);

// The bounds live in these macros so that each constant and its error text are one literal.
macro_rules! max_servers {
    () => {
        64
    };
}
macro_rules! min_load {
    () => {
        0.01
    };
}
macro_rules! max_load {
    () => {
        0.99
    };
}
macro_rules! min_requests {
    () => {
        1000
    };
}
macro_rules! max_requests {
    () => {
        10000000
    };
}

/// Most servers a queue may have.
pub const MAX_SERVERS: u32 = max_servers!();
/// Lowest per-server utilisation accepted.
pub const MIN_LOAD: f64 = min_load!();
/// Highest per-server utilisation accepted: at 0.99 an M/M/1 queue's mean sojourn is 100 and
/// its relaxation time some 40,000 services, already a long run's worth.
pub const MAX_LOAD: f64 = max_load!();
/// Fewest requests in a run.
pub const MIN_REQUESTS: u64 = min_requests!();
/// Most requests in a run.
pub const MAX_REQUESTS: u64 = max_requests!();

/// The words of the servers bound.
pub const SERVERS_EXPECTED: &str = concat!("an integer in 1..=", max_servers!());
/// The words of the load bound.
pub const LOAD_EXPECTED: &str = concat!(
    "a per-server utilisation in ",
    min_load!(),
    "..=",
    max_load!()
);
/// The words of the requests bound.
pub const REQUESTS_EXPECTED: &str =
    concat!("an integer in ", min_requests!(), "..=", max_requests!());

/// The named parameters of a single-queue run, for [`QueueConfig::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueueParams {
    /// Servers sharing the queue, c in 1..=[`MAX_SERVERS`].
    pub servers: u32,
    /// Per-server utilisation ρ = λ/(cμ), in [`MIN_LOAD`]..=[`MAX_LOAD`].
    pub load: f64,
    /// Requests simulated, [`MIN_REQUESTS`]..=[`MAX_REQUESTS`]; the first tenth are warm-up.
    pub requests: u64,
    /// The seed of every draw.
    pub seed: u64,
}

/// One validated single-queue run.
///
/// ```
/// use tail_lab_core::lab::queue::{QueueConfig, QueueParams};
///
/// let config = QueueConfig::new(QueueParams {
///     servers: 4,
///     load: 0.8,
///     requests: 100_000,
///     seed: 1,
/// })
/// .unwrap();
/// let r = config.run();
/// // Times are in mean service times. Four servers at 80% make a request wait about 60% of
/// // the time (Erlang C), a bit under a service and a half in all on average.
/// assert!((r.wait_probability - r.theory_wait_probability).abs() < 0.05);
/// assert!((r.mean / r.theory_mean - 1.0).abs() < 0.1);
/// assert!(r.p99 > r.mean);
/// // Out-of-range parameters are refused by name.
/// let bad = QueueParams { load: 1.0, ..QueueParams { servers: 1, load: 0.5, requests: 1000, seed: 0 } };
/// assert_eq!(QueueConfig::new(bad).unwrap_err().param(), "load");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueueConfig {
    servers: u32,
    load: f64,
    requests: u64,
    seed: u64,
}

/// The outcome of a run. Times are in mean service times.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueResult {
    /// Servers (c).
    pub servers: u32,
    /// Per-server utilisation (ρ).
    pub load: f64,
    /// Requests simulated (warm-up included).
    pub requests: u64,
    /// Mean sojourn (waiting plus service) of the measured requests.
    pub mean: f64,
    /// 99th percentile of the sojourn, from the shared histogram.
    pub p99: f64,
    /// Share (0..=1) of the measured requests that found every server busy and waited.
    pub wait_probability: f64,
    /// The exact mean sojourn, `1 + C/(c(1 − ρ))` ([`theory::mean_sojourn`]).
    pub theory_mean: f64,
    /// The exact sojourn p99 ([`theory::sojourn_quantile`]).
    pub theory_p99: f64,
    /// Erlang C, the exact probability of waiting ([`theory::erlang_c`]).
    pub theory_wait_probability: f64,
    /// 95% batch-means intervals (mean service times) of the mean sojourn, its median and its
    /// p99, from 5 batches of consecutive departures; `None` if a batch is empty.
    pub intervals: Option<RunIntervals>,
    /// How the run's length was chosen when it was planned ([`QueueConfig::run_by`]); `None`
    /// for a caller's fixed length.
    pub planned: Option<Planned>,
}

/// One batch of a run cut into consecutive pieces by arrival ([`QueueConfig::run_batched`]):
/// batch means for an error bar from a single run. Times in mean service times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueueBatch {
    /// Requests measured in the batch.
    pub requests: u64,
    /// Mean sojourn over the batch.
    pub mean: f64,
    /// The batch's sojourn p99 (from its own histogram).
    pub p99: f64,
    /// Share of the batch's requests that waited.
    pub wait_probability: f64,
}

impl QueueConfig {
    /// Validates `params` (each bound is named in the error: servers 1..=64, load
    /// 0.01..=0.99, requests 1000..=10^7).
    pub fn new(params: QueueParams) -> Result<Self, ParamError> {
        let QueueParams {
            servers,
            load,
            requests,
            seed,
        } = params;
        check_count(
            "servers",
            u64::from(servers),
            1,
            u64::from(MAX_SERVERS),
            SERVERS_EXPECTED,
        )?;
        check_range("load", load, MIN_LOAD, MAX_LOAD, LOAD_EXPECTED)?;
        check_count(
            "requests",
            requests,
            MIN_REQUESTS,
            MAX_REQUESTS,
            REQUESTS_EXPECTED,
        )?;
        Ok(QueueConfig {
            servers,
            load,
            requests,
            seed,
        })
    }

    /// The parameters this run was made from.
    pub fn params(&self) -> QueueParams {
        QueueParams {
            servers: self.servers,
            load: self.load,
            requests: self.requests,
            seed: self.seed,
        }
    }

    /// What a run costs, in work units of about 10 ns of wasm in Chromium on a 2-core machine
    /// (see BENCHMARKS.md), scaled from the loaded model's 60 units a request by native time:
    /// a no-backup loaded run takes about 230 ns a request natively, a queue about 110 ns at
    /// c = 1, 145 ns at c = 4 and 245 ns at c = 64 (two events a request, each a heap push
    /// and pop, two addressed draws with a logarithm each, a histogram record, and a scan for
    /// an idle server at each arrival, which grows with c). So 28 units a request plus 0.55
    /// a server.
    pub fn work_units(&self) -> f64 {
        self.requests as f64 * (28.0 + 0.55 * f64::from(self.servers))
    }

    /// Runs for the length `choice` says (the queue's row of
    /// [`crate::lab::precision::RUN_LENGTHS`]; [`LengthChoice::Fixed`] is [`QueueConfig::run`]).
    pub fn run_by(&self, choice: LengthChoice) -> QueueResult {
        let rule = precision::run_length(MODEL.key).expect("the queue has a run-length rule");
        precision::run_by_choice(
            rule,
            choice,
            (self.seed, self.requests),
            |seed, requests| {
                QueueConfig {
                    seed,
                    requests,
                    ..*self
                }
                .run()
            },
            |r| Reached::of(r.mean, r.p99, r.intervals.as_ref()),
            |r, planned| r.planned = Some(planned),
        )
    }

    /// Simulates the run.
    pub fn run(&self) -> QueueResult {
        let (all, _, by_departure) = engine::simulate(self, 0);
        self.result(&all, &by_departure)
    }

    /// Simulates the run as [`QueueConfig::run`] does (the same result, to the bit), and also
    /// returns the measured requests cut into `batches` (2..=100) consecutive batches by
    /// arrival, for batch-means error bars.
    pub fn run_batched(&self, batches: u32) -> Result<(QueueResult, Vec<QueueBatch>), ParamError> {
        check_count(
            "batches",
            u64::from(batches),
            2,
            100,
            "an integer in 2..=100",
        )?;
        let (all, parts, by_departure) = engine::simulate(self, batches);
        Ok((
            self.result(&all, &by_departure),
            parts.iter().map(engine::Tally::batch).collect(),
        ))
    }

    fn result(&self, all: &engine::Tally, by_departure: &BatchHistogram) -> QueueResult {
        QueueResult {
            intervals: Some(by_departure.intervals(shared_bins(), &by_departure.merged())),
            planned: None,
            servers: self.servers,
            load: self.load,
            requests: self.requests,
            mean: all.mean(),
            p99: all.p99(),
            wait_probability: all.wait_probability(),
            theory_mean: theory::mean_sojourn(self.servers, self.load),
            theory_p99: theory::sojourn_quantile(self.servers, self.load, 0.99),
            theory_wait_probability: theory::erlang_c(self.servers, self.load),
        }
    }
}

/// The loads of the standard sweep: 0.1..=0.9 in steps of 0.1.
pub const SWEEP_LOADS: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
/// The server counts of the standard sweep: one server (M/M/1) and four.
pub const SWEEP_SERVERS: [u32; 2] = [1, 4];
// The sweep's size is one literal, so that the constant and its error text agree.
macro_rules! sweep_points {
    () => {
        18
    };
}

/// Points in the standard sweep: [`SWEEP_LOADS`] × [`SWEEP_SERVERS`].
pub const SWEEP_POINTS: usize = sweep_points!();
const _: () = assert!(SWEEP_POINTS == SWEEP_LOADS.len() * SWEEP_SERVERS.len());

/// Point `index` (0..[`SWEEP_POINTS`], load-major: load `index / 2`, servers `index % 2`) of
/// the standard sweep, on its own: the same result as in [`sweep`], so the points can run in
/// parallel.
pub fn sweep_point(index: usize, requests: u64, seed: u64) -> Result<QueueResult, ParamError> {
    check_count(
        "index",
        index as u64,
        0,
        SWEEP_POINTS as u64 - 1,
        concat!("a sweep point in 0..", sweep_points!()),
    )?;
    let config = QueueConfig::new(QueueParams {
        servers: SWEEP_SERVERS[index % SWEEP_SERVERS.len()],
        load: SWEEP_LOADS[index / SWEEP_SERVERS.len()],
        requests,
        seed,
    })?;
    Ok(config.run())
}

/// The standard sweep: [`SWEEP_LOADS`] × [`SWEEP_SERVERS`], in [`sweep_point`]'s order.
pub fn sweep(requests: u64, seed: u64) -> Result<Vec<QueueResult>, ParamError> {
    sweep_with_progress(requests, seed, &mut || {})
}

/// [`sweep`], calling `step` after each of its 18 runs.
pub fn sweep_with_progress(
    requests: u64,
    seed: u64,
    step: &mut dyn FnMut(),
) -> Result<Vec<QueueResult>, ParamError> {
    super::sweep_points(SWEEP_POINTS, step, |i| sweep_point(i, requests, seed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(servers: u32, load: f64, requests: u64) -> QueueParams {
        QueueParams {
            servers,
            load,
            requests,
            seed: 1,
        }
    }

    #[test]
    fn bad_parameters_are_rejected_by_name_with_their_bounds() {
        let cases = [
            (params(0, 0.5, 10_000), "servers"),
            (params(65, 0.5, 10_000), "servers"),
            (params(1, 0.0, 10_000), "load"),
            (params(1, 0.005, 10_000), "load"),
            (params(1, 1.0, 10_000), "load"),
            (params(1, f64::NAN, 10_000), "load"),
            (params(1, 0.5, 999), "requests"),
            (params(1, 0.5, 10_000_001), "requests"),
        ];
        for (p, name) in cases {
            assert_eq!(QueueConfig::new(p).unwrap_err().param(), name, "{p:?}");
        }
        // The messages state the constants' values.
        assert_eq!(
            LOAD_EXPECTED,
            format!("a per-server utilisation in {MIN_LOAD}..={MAX_LOAD}")
        );
        assert_eq!(SERVERS_EXPECTED, format!("an integer in 1..={MAX_SERVERS}"));
        assert_eq!(
            REQUESTS_EXPECTED,
            format!("an integer in {MIN_REQUESTS}..={MAX_REQUESTS}")
        );
        let e = QueueConfig::new(params(1, 1.0, 10_000)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "load must be a per-server utilisation in 0.01..=0.99 (got 1)"
        );
        for p in [params(1, 0.01, 1000), params(64, 0.99, 1000)] {
            assert_eq!(QueueConfig::new(p).unwrap().params(), p);
        }
    }

    #[test]
    fn batches_split_the_run_without_changing_it() {
        let config = QueueConfig::new(params(3, 0.7, 20_000)).unwrap();
        let (whole, batches) = config.run_batched(10).unwrap();
        assert_eq!(whole, config.run());
        assert_eq!(batches.len(), 10);
        assert_eq!(batches.iter().map(|b| b.requests).sum::<u64>(), 18_000);
        let mean = batches.iter().map(|b| b.mean).sum::<f64>() / 10.0;
        assert!((mean - whole.mean).abs() < 1e-9 * whole.mean);
        assert_eq!(config.run_batched(1).unwrap_err().param(), "batches");
    }

    #[test]
    fn the_sweep_is_its_points_in_order() {
        let all = sweep(2_000, 3).unwrap();
        assert_eq!(all.len(), SWEEP_POINTS);
        for (i, r) in all.iter().enumerate() {
            assert_eq!(*r, sweep_point(i, 2_000, 3).unwrap());
            assert_eq!(
                (r.load, r.servers),
                (SWEEP_LOADS[i / 2], SWEEP_SERVERS[i % 2])
            );
        }
        assert_eq!(sweep_point(18, 2_000, 3).unwrap_err().param(), "index");
    }

    #[test]
    fn one_server_at_low_load_is_almost_never_kept_waiting() {
        let r = QueueConfig::new(params(1, 0.01, 100_000)).unwrap().run();
        assert!(r.wait_probability < 0.02, "{}", r.wait_probability);
        assert!((r.theory_wait_probability - 0.01).abs() < 1e-15);
    }
}
