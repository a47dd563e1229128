//! Balancer signals (issue 23, item 2): the power of d choices when the balancer does not see
//! the true queue lengths.
//!
//! **The model.** `servers` FIFO servers (default 100) with exponential service of mean 1 (the
//! supermarket model's time unit, [`crate::lab::supermarket`]), except server 0, which is
//! `slow_factor` (k) times slower (k = 1: identical servers). Jobs arrive as a Poisson stream
//! at rate `λ · servers`, split uniformly among `clients` balancers (K). Each arrival samples
//! `d` distinct servers uniformly and joins the one whose signal is least, the first in draw
//! order on a tie:
//! - `fresh`: the true queue lengths (queued or in service): the supermarket model;
//! - `stale`: the queue lengths as they were at the last refresh, every `staleness` (T) for
//!   all servers at once (T = 0 is `fresh`, bit for bit; the engine records the view lazily, so
//!   a short T costs no more than a long one). Between refreshes every arrival sees the
//!   same lengths, so the arrivals of one period pile onto the servers that looked short: they
//!   *herd*;
//! - `inflight`: the client's own count of jobs it sent to the server and has not seen answered
//!   (with one client this is the queue length, so `fresh` bit for bit);
//! - `ewma`: the client's peak-EWMA cost of the server times (its in-flight count + 1), as
//!   Finagle's `PeakEwma` does. **The rule:** the client observes a value `x` at time `t` with
//!   `w = e^{−(t − t₀)/τ}` (`t₀` its last observation of this server): `cost ← x` if
//!   `x > cost`, else `cost ← cost·w + x·(1 − w)`. An answer of latency `L` (send to answer)
//!   observes `L`; reading the cost to choose observes 0 (so it decays between answers). The
//!   score is `cost·(inflight + 1)`, except that a server with requests in flight and no cost
//!   yet scores `(2⁶³ − 1) >> 16` (Finagle's penalty) plus its in-flight count, so that a
//!   cold start spreads its requests rather than piling them onto a server not yet heard
//!   from. Costs start at 0;
//! - `round-robin`: each client cycles through the servers (client c starts at `c·N/K`);
//! - `random`: the first sample (uniform random assignment, every server M/M/1 when identical).
//!
//! **Outputs** ([`BalancerResult`]): mean, median and p99 sojourn time with 95% batch-means
//! intervals, the share of arrivals the slow server received and the load that offers it,
//! whether that server's queue grew for the whole run (`unbounded`: then the times measure the
//! run's length, not a steady state), and the closed forms of the checks, mean and p99.
//!
//! **Checks** ([`theory`]): staleness 0 is `fresh` bit for bit (same engine, same draws);
//! staleness → ∞ approaches `random` (no refresh ever happens: every view reads 0, and the first
//! sample wins); fresh d = 2 on identical servers is near the supermarket's fixed point, in
//! mean and p99; random is M/M/1 per server, `1/(1 − λ)` and `ln 100/(1 − λ)` on identical
//! servers, a mixture with one slow server.
//!
//! Random stream: [`STREAM`] (id 30); [`SPARE_STREAM`] (id 31) is reserved for the model.
//! Files: `params` (parameters, signals, validation), `engine` (the event loop), [`theory`]
//! (the closed forms), `model` (the result's description and the registration).

mod engine;
mod model;
mod params;
pub mod theory;

pub use model::{
    CALL, MODEL, REPORT_LAMBDAS, REPORT_REQUESTS, REPORT_RUNS, REPORT_SLOW_FACTOR, report_arrivals,
    report_point,
};
pub use params::{
    ARRIVALS, BalancerParams, CHOICES, CLIENTS, LAMBDA, MAX_LAMBDA, MAX_SLOW_FACTOR, MAX_STALENESS,
    MIN_LAMBDA, MIN_STALENESS, SERVERS, SIGNAL_NAMES, SIGNALS_EXPECTED, SLOW_FACTOR, SPARE_STREAM,
    STALENESS, STREAM, Signal, TAU, TAU_RANGE,
};

use crate::error::ParamError;
use crate::sampling::batch::RunIntervals;

/// One run's outcome (times in mean service times).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BalancerResult {
    /// The parameters it ran with.
    pub params: BalancerParams,
    /// Jobs measured (those that arrived after the warm-up tenth).
    pub measured: u64,
    /// Mean sojourn time.
    pub mean: f64,
    /// Median sojourn time.
    pub p50: f64,
    /// 99th percentile of sojourn time.
    pub p99: f64,
    /// 95% batch-means intervals of the mean, median and p99; all `None` when the run lasted
    /// fewer than [`theory::BAR_RELAXATIONS`] relaxation times (so always when it has not
    /// `settled`): its batches would be too short to be independent, and the bars too narrow.
    pub intervals: RunIntervals,
    /// How many of its slowest queue's relaxation times the run lasted
    /// ([`theory::relaxation_time`]; its arrivals over `λ · servers` is its length in service
    /// times); `None` when a queue was offered a load of 1 or more.
    pub relaxation_times: Option<f64>,
    /// Whether the run lasted [`theory::SETTLED_RELAXATIONS`] relaxation times: if not, it
    /// still carries its start from empty (random's mean at λ = 0.9 reads 8.2 after 20,000
    /// arrivals on 100 servers, against 10), and its intervals are withheld, since they would
    /// bracket a biased number.
    pub settled: bool,
    /// Share of the measured arrivals sent to server 0 (the slow one when k > 1).
    pub slow_share: f64,
    /// The load that share offers server 0: `share · λ · servers · k`.
    pub slow_load: f64,
    /// Whether the queues grew for the whole run ([`theory::unbounded`]): the servers together
    /// cannot keep up, the slow server's share of arrivals did not respond to its queue and
    /// offered it `λ·k ≥ 1`, or over the run's second half it was measured to be sent clearly
    /// more than it serves.
    /// Then `mean` grows with `arrivals` (the run's length), `p50` and
    /// `p99` estimate nothing, and their intervals mean nothing.
    pub unbounded: bool,
    /// Random assignment's closed-form mean at these servers, λ and k; `None` when the slow
    /// server would be overloaded (`λ·k ≥ 1`).
    pub random_theory: Option<f64>,
    /// Random assignment's closed-form p99 ([`theory::random_p99`]); `None` as `random_theory`.
    pub random_theory_p99: Option<f64>,
    /// The supermarket fixed point at λ and d (identical servers, servers → ∞).
    pub fixed_point: Option<f64>,
    /// The p99 sojourn time at the supermarket fixed point ([`theory::fixed_point_p99`]).
    pub fixed_point_p99: Option<f64>,
}

/// Runs one configuration.
///
/// ```
/// use tail_lab_core::lab::balancer_signals::{BalancerParams, Signal, simulate};
///
/// let fresh = simulate(&BalancerParams { arrivals: 20_000, ..Default::default() }).unwrap();
/// let stale = BalancerParams { signal: Signal::Stale, staleness: 0.0, ..fresh.params };
/// // Staleness 0 is the fresh signal, bit for bit.
/// assert_eq!(simulate(&stale).unwrap().mean, fresh.mean);
/// let bad = BalancerParams { d: 101, ..fresh.params };
/// assert_eq!(simulate(&bad).unwrap_err().param(), "d");
/// ```
pub fn simulate(params: &BalancerParams) -> Result<BalancerResult, ParamError> {
    params.check()?;
    let m = engine::run(params);
    let (lambda, servers, k) = (params.lambda, params.servers, params.slow_factor);
    let slow_load = theory::slow_offered_load(m.slow_share, lambda, servers, k);
    let (late_load, late_se) = theory::late_load(&m.late, lambda, servers, k);
    let duration = params.arrivals as f64 / (lambda * f64::from(servers));
    let relaxation_times = theory::relaxation_time(lambda, k, slow_load).map(|t| duration / t);
    let settled = relaxation_times.is_some_and(|r| r >= theory::SETTLED_RELAXATIONS);
    Ok(BalancerResult {
        params: *params,
        measured: m.measured,
        mean: m.mean,
        p50: m.p50,
        p99: m.p99,
        intervals: if relaxation_times.is_some_and(|r| r >= theory::BAR_RELAXATIONS) {
            m.intervals
        } else {
            RunIntervals::NONE
        },
        relaxation_times,
        settled,
        slow_share: m.slow_share,
        slow_load,
        unbounded: theory::unbounded(
            fixed_share(params, m.refreshed),
            lambda,
            servers,
            k,
            late_load,
            late_se,
        ),
        random_theory: theory::random_mean(lambda, servers, k),
        random_theory_p99: theory::random_p99(lambda, servers, k),
        fixed_point: theory::fixed_point(lambda, params.d),
        fixed_point_p99: theory::fixed_point_p99(lambda, params.d),
    })
}

/// Whether a run's assignment ignored the queues: random, round robin, one sample, or a stale
/// view never refreshed during the arrivals (it reads 0 everywhere, and the first sample wins).
/// A view refreshed even a few times sees the slow server's backlog and steers away from it;
/// whether that is enough is the measured late load's question.
fn fixed_share(p: &BalancerParams, refreshed: bool) -> bool {
    p.d == 1
        || match p.signal {
            Signal::Random | Signal::RoundRobin => true,
            Signal::Stale => p.staleness > 0.0 && !refreshed,
            Signal::Fresh | Signal::Inflight | Signal::Ewma => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters_are_refused_by_name() {
        let ok = BalancerParams {
            arrivals: 1000,
            ..Default::default()
        };
        let cases: [(BalancerParams, &str); 9] = [
            (BalancerParams { servers: 1, ..ok }, "servers"),
            (BalancerParams { lambda: 1.0, ..ok }, "lambda"),
            (BalancerParams { d: 0, ..ok }, "d"),
            (
                BalancerParams {
                    staleness: -1.0,
                    ..ok
                },
                "staleness",
            ),
            (
                BalancerParams {
                    staleness: 1e-4,
                    ..ok
                },
                "staleness",
            ),
            (BalancerParams { clients: 0, ..ok }, "clients"),
            (
                BalancerParams {
                    slow_factor: 0.5,
                    ..ok
                },
                "slowFactor",
            ),
            (
                BalancerParams {
                    tau: f64::NAN,
                    ..ok
                },
                "tau",
            ),
            (BalancerParams { arrivals: 10, ..ok }, "arrivals"),
        ];
        for (p, name) in cases {
            assert_eq!(simulate(&p).unwrap_err().param(), name);
        }
        assert_eq!(Signal::from_name("jsq").unwrap_err().param(), "signal");
        for s in Signal::ALL {
            assert_eq!(Signal::from_name(s.name()).unwrap(), s);
        }
    }

    #[test]
    fn one_client_in_flight_is_fresh_bit_for_bit() {
        let fresh = BalancerParams {
            arrivals: 20_000,
            slow_factor: 3.0,
            ..Default::default()
        };
        let inflight = BalancerParams {
            signal: Signal::Inflight,
            ..fresh
        };
        let (a, b) = (simulate(&fresh).unwrap(), simulate(&inflight).unwrap());
        assert_eq!(
            (a.mean, a.p99, a.slow_share, a.intervals),
            (b.mean, b.p99, b.slow_share, b.intervals)
        );
    }

    #[test]
    fn the_slow_server_gets_its_share_under_random_and_round_robin() {
        for signal in [Signal::Random, Signal::RoundRobin] {
            let r = simulate(&BalancerParams {
                signal,
                lambda: 0.5,
                slow_factor: 1.5,
                arrivals: 100_000,
                ..Default::default()
            })
            .unwrap();
            // 90,000 measured arrivals at share 1/100: standard error √(0.01·0.99/9e4) ≈ 3.3e-4.
            assert!(
                (r.slow_share - 0.01).abs() < 0.0015,
                "{signal:?} {}",
                r.slow_share
            );
        }
    }
}
