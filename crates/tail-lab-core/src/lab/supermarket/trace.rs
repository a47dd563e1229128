//! A trace of the supermarket chain's own events, for an animation of its queues
//! ([`trace`]): every arrival's sampled servers and choice, every departure, and each server's
//! queue length after each event, in plain vectors.
//!
//! It is recorded through the chain's observer hook (`chain::Recorder`) on the run
//! [`SupermarketConfig::run`] makes with `warmup + arrivals` arrivals, so what it shows is that
//! run, event for event (its [`SupermarketTrace::summary`] is that run's result, bit for bit).
//! The window opens at the first arrival after `warmup` ones and closes at the run's last
//! arrival.

use super::chain::Recorder;
use super::{
    CHOICES_OPTION, MIN_LAMBDA, POLICY_OPTION, SupermarketConfig, SupermarketResult, choices,
};
use crate::api::{OptionSpec, OptionValues, SEED_OPTION};
use crate::describe::Unit;
use crate::error::{CountRange, Ends, NumberRange, ParamError};

/// Servers a trace may have: a few, to be drawn one bar each.
pub const TRACE_SERVERS: CountRange = crate::count_range!(1, 32);
/// Arrivals a trace records.
pub const TRACE_ARRIVALS: CountRange = crate::count_range!(1, 50000);
/// Arrivals run before the window opens.
pub const TRACE_WARMUP: CountRange = crate::count_range!(0, 20000);
/// The arrival rates a trace accepts per server: [`MIN_LAMBDA`]..<1, a stable system.
pub const TRACE_LAMBDA: NumberRange = NumberRange::new(
    MIN_LAMBDA,
    1.0,
    Ends::BelowHigh,
    "a rate in 0.001..<1 (a stable system)",
);

/// The parameters of a trace ([`trace`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SupermarketTraceParams {
    /// Servers, in [`TRACE_SERVERS`].
    pub servers: u32,
    /// Arrival rate per server, [`MIN_LAMBDA`]..<1 (a stable system).
    pub lambda: f64,
    /// Servers sampled per arrival, 1..=`servers`.
    pub d: u32,
    /// Arrivals recorded, in [`TRACE_ARRIVALS`].
    pub arrivals: u64,
    /// Arrivals run (from empty) before the first one recorded, in [`TRACE_WARMUP`].
    pub warmup: u64,
    /// The seed of the chain's stream.
    pub seed: u64,
}

impl SupermarketTraceParams {
    /// Ten servers at λ = 0.9, best of two, 200 arrivals after 1,000, seed 1.
    pub const DEFAULT: SupermarketTraceParams = SupermarketTraceParams {
        servers: 10,
        lambda: 0.9,
        d: 2,
        arrivals: 200,
        warmup: 1000,
        seed: 1,
    };
}

impl Default for SupermarketTraceParams {
    /// [`SupermarketTraceParams::DEFAULT`].
    fn default() -> Self {
        SupermarketTraceParams::DEFAULT
    }
}

const DEFAULTS: SupermarketTraceParams = SupermarketTraceParams::DEFAULT;

/// The options of a trace (`traceSupermarket`): a small system's window, ten servers at
/// λ = 0.9 unless told.
pub const TRACE_OPTIONS: &[OptionSpec] = &[
    OptionSpec::number(
        "lambda",
        "Arrival rate per server in units of the service rate.",
        Unit::Rate,
        TRACE_LAMBDA,
        DEFAULTS.lambda,
    ),
    POLICY_OPTION,
    CHOICES_OPTION,
    OptionSpec::count(
        "servers",
        "Servers.",
        Unit::Count,
        TRACE_SERVERS,
        DEFAULTS.servers as u64,
    ),
    OptionSpec::count(
        "arrivals",
        "Arrivals recorded.",
        Unit::Count,
        TRACE_ARRIVALS,
        DEFAULTS.arrivals,
    ),
    OptionSpec::count(
        "warmup",
        "Arrivals run (from empty) before the first one recorded.",
        Unit::Count,
        TRACE_WARMUP,
        DEFAULTS.warmup,
    ),
    SEED_OPTION,
];

/// A trace's parameters from `o` (read against [`TRACE_OPTIONS`]): `policy` or `d` (both,
/// when they agree), best of two unless told.
pub fn trace_params(o: &OptionValues) -> Result<SupermarketTraceParams, ParamError> {
    Ok(SupermarketTraceParams {
        servers: o.count("servers") as u32,
        lambda: o.number("lambda").expect("lambda has a default"),
        d: choices(
            o.name("policy"),
            o.given_count("d").map(|d| d as u32),
            DEFAULTS.d,
        )?,
        arrivals: o.count("arrivals"),
        warmup: o.count("warmup"),
        seed: o.seed("seed"),
    })
}

/// The events of a trace window, in order. Event `i` happened at `times[i]`; it was an
/// arrival that joined `server[i]` when `arrival[i]` is 1, a departure from it when 0; after
/// it, server `s` held `lengths[i · servers + s]` jobs (queued or in service). The `j`-th
/// arrival of the window sampled `sampled[j · d .. (j + 1) · d]`, in draw order; it joined the
/// first shortest of them.
#[derive(Debug, Clone, PartialEq)]
pub struct SupermarketTrace {
    /// Servers.
    pub servers: u32,
    /// Servers sampled per arrival.
    pub d: u32,
    /// Each event's time (units of mean service time, from the run's start).
    pub times: Vec<f64>,
    /// The server each event changed.
    pub server: Vec<u32>,
    /// 1 for an arrival, 0 for a departure.
    pub arrival: Vec<u8>,
    /// `d` sampled servers an arrival.
    pub sampled: Vec<u32>,
    /// `servers` queue lengths an event, after it.
    pub lengths: Vec<u32>,
    /// The traced run's result: the same as an untraced run of `warmup + arrivals` arrivals.
    pub summary: SupermarketResult,
}

impl SupermarketTrace {
    /// Events recorded.
    pub fn events(&self) -> usize {
        self.times.len()
    }

    /// The queue lengths after event `i`.
    pub fn lengths_after(&self, i: usize) -> &[u32] {
        let n = self.servers as usize;
        &self.lengths[i * n..(i + 1) * n]
    }
}

/// Records the window's events (the observer the chain is run with).
struct TraceRecorder {
    warmup: u64,
    limit: u64,
    seen: u64,
    recorded: u64,
    pending: Vec<u32>,
    now_lengths: Vec<u32>,
    times: Vec<f64>,
    server: Vec<u32>,
    arrival: Vec<u8>,
    sampled: Vec<u32>,
    lengths: Vec<u32>,
}

impl TraceRecorder {
    fn record(&mut self, now: f64, server: u32, arrival: bool) {
        self.times.push(now);
        self.server.push(server);
        self.arrival.push(u8::from(arrival));
        self.lengths.extend_from_slice(&self.now_lengths);
    }
}

impl Recorder for TraceRecorder {
    fn sampled(&mut self, server: u32) {
        self.pending.push(server);
    }

    fn arrived(&mut self, now: f64, server: u32, len: u32) {
        self.now_lengths[server as usize] = len;
        if self.seen >= self.warmup && self.recorded < self.limit {
            self.record(now, server, true);
            self.sampled.extend_from_slice(&self.pending);
            self.recorded += 1;
        }
        self.seen += 1;
        self.pending.clear();
    }

    fn departed(&mut self, now: f64, server: u32, len: u32) {
        self.now_lengths[server as usize] = len;
        if self.recorded > 0 && self.recorded < self.limit {
            self.record(now, server, false);
        }
    }
}

/// Runs the chain of `params` and records its window ([`SupermarketTrace`]). Each argument is
/// checked by name: `servers` in [`TRACE_SERVERS`], `lambda` in [`MIN_LAMBDA`]..<1, `d` in
/// 1..=servers, `arrivals` in [`TRACE_ARRIVALS`], `warmup` in [`TRACE_WARMUP`]. The vectors are
/// bounded: a window holds fewer than `2 · (warmup + arrivals)` events (a departure needs an
/// arrival), so at most 140,000 events of 32 lengths each.
///
/// ```
/// use tail_lab_core::lab::supermarket::trace::{SupermarketTraceParams, trace};
///
/// let t = trace(SupermarketTraceParams { arrivals: 50, ..Default::default() }).unwrap();
/// assert_eq!(t.arrival.iter().filter(|&&a| a == 1).count(), 50);
/// assert_eq!(t.sampled.len(), 100);
/// assert_eq!(trace(SupermarketTraceParams { lambda: 1.0, ..Default::default() }).unwrap_err().param(), "lambda");
/// ```
pub fn trace(params: SupermarketTraceParams) -> Result<SupermarketTrace, ParamError> {
    let SupermarketTraceParams {
        servers,
        lambda,
        d,
        arrivals,
        warmup,
        seed,
    } = params;
    TRACE_SERVERS.check("servers", u64::from(servers))?;
    TRACE_LAMBDA.check("lambda", lambda)?;
    CountRange {
        lo: 1,
        hi: u64::from(servers),
        expected: "an integer in 1..=servers",
    }
    .check("d", u64::from(d))?;
    TRACE_ARRIVALS.check("arrivals", arrivals)?;
    TRACE_WARMUP.check("warmup", warmup)?;
    let config = SupermarketConfig {
        servers,
        lambda,
        choices: d,
        arrivals: warmup + arrivals,
        seed,
    };
    let n = servers as usize;
    let recorder = TraceRecorder {
        warmup,
        limit: arrivals,
        seen: 0,
        recorded: 0,
        pending: Vec::with_capacity(d as usize),
        now_lengths: vec![0; n],
        times: Vec::with_capacity(2 * arrivals as usize),
        server: Vec::with_capacity(2 * arrivals as usize),
        arrival: Vec::with_capacity(2 * arrivals as usize),
        sampled: Vec::with_capacity(arrivals as usize * d as usize),
        lengths: Vec::with_capacity(2 * arrivals as usize * n),
    };
    let (mut summary, r) = config.simulate_with(recorder);
    // The run's own summary, bars withheld as `run` withholds them.
    config.withhold_short_intervals(&mut summary);
    Ok(SupermarketTrace {
        servers,
        d,
        times: r.times,
        server: r.server,
        arrival: r.arrival,
        sampled: r.sampled,
        lengths: r.lengths,
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::supermarket::SupermarketParams;

    #[test]
    fn the_declared_options_make_the_default_trace_and_refuse_by_name() {
        use crate::api::OptionValue;
        let read = |given| trace_params(&OptionValues::complete(TRACE_OPTIONS, given));
        assert_eq!(read(vec![]), Ok(SupermarketTraceParams::DEFAULT));
        assert_eq!(
            read(vec![("policy", OptionValue::Name("three"))])
                .unwrap()
                .d,
            3
        );
        let e = read(vec![
            ("policy", OptionValue::Name("two")),
            ("d", OptionValue::Count(3)),
        ])
        .unwrap_err();
        assert_eq!(e.param(), "policy");
        let e = TRACE_OPTIONS[0].kind.number("lambda", 1.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "lambda must be a rate in 0.001..<1 (a stable system) (got 1)"
        );
    }

    /// The time-averaged share of servers holding at least `k` jobs over the window, from the
    /// lengths after each event (each holds until the next event).
    fn share_at_least(t: &SupermarketTrace, k: u32) -> f64 {
        let mut area = 0.0;
        for i in 0..t.events() - 1 {
            let held = t.lengths_after(i).iter().filter(|&&l| l >= k).count();
            area += (t.times[i + 1] - t.times[i]) * held as f64;
        }
        area / ((t.times[t.events() - 1] - t.times[0]) * f64::from(t.servers))
    }

    /// With one choice every server is an M/M/1 queue at load λ, so the time-averaged share
    /// holding at least `k` jobs is `λ^k`. The tolerance comes from the window's length: the
    /// indicator of "at least k" at one M/M/1 server relaxes in about `τ = 1/(1 − √λ)²` time
    /// units, so over a window of `T` time units on `n` independent servers the average's
    /// standard deviation is at most `√(2 p(1 − p) τ / (n T))`; the test allows five of them.
    #[test]
    fn one_choice_gives_m_m_1_queue_lengths() {
        let lambda = 0.5;
        for seed in [1, 2, 3] {
            let t = trace(SupermarketTraceParams {
                servers: 10,
                lambda,
                d: 1,
                arrivals: 50_000,
                warmup: 2_000,
                seed,
            })
            .unwrap();
            let span = t.times[t.events() - 1] - t.times[0];
            let tau = 1.0 / libm::pow(1.0 - f64::sqrt(lambda), 2.0);
            for k in 1..=4 {
                let p = libm::pow(lambda, f64::from(k));
                let sd = (2.0 * p * (1.0 - p) * tau / (10.0 * span)).sqrt();
                let got = share_at_least(&t, k);
                assert!(
                    (got - p).abs() < 5.0 * sd,
                    "seed {seed}, k {k}: {got} vs {p} ± {}",
                    5.0 * sd
                );
            }
        }
    }

    #[test]
    fn the_trace_is_the_runs_own_events() {
        for (d, seed) in [(1, 1), (2, 7), (3, 2), (5, 3), (12, 4)] {
            let params = SupermarketTraceParams {
                servers: 16,
                lambda: 0.8,
                d,
                arrivals: 3_000,
                warmup: 1_000,
                seed,
            };
            let t = trace(params).unwrap();
            // The hook changes nothing: the same run, untraced, gives the same bits.
            let untraced = SupermarketConfig::new(SupermarketParams {
                servers: 16,
                lambda: 0.8,
                d,
                arrivals: 4_000,
                seed,
            })
            .unwrap()
            .run();
            assert_eq!(t.summary, untraced, "d {d}");
            let arrivals: Vec<usize> = (0..t.events()).filter(|&i| t.arrival[i] == 1).collect();
            assert_eq!(arrivals.len(), 3_000);
            assert_eq!(t.sampled.len(), 3_000 * d as usize);
            assert!(t.times.windows(2).all(|w| w[0] <= w[1]));
            for (j, &i) in arrivals.iter().enumerate() {
                let picks = &t.sampled[j * d as usize..(j + 1) * d as usize];
                let s = t.server[i] as usize;
                assert!(picks.contains(&(s as u32)));
                // Distinct samples, and the chosen one was a shortest before the arrival.
                let mut sorted = picks.to_vec();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), d as usize);
                let before = |p: u32| {
                    let l = t.lengths_after(i)[p as usize];
                    if p as usize == s { l - 1 } else { l }
                };
                assert!(picks.iter().all(|&p| before(s as u32) <= before(p)));
            }
            // Each event moves one queue by one.
            for i in 1..t.events() {
                let (a, b) = (t.lengths_after(i - 1), t.lengths_after(i));
                let s = t.server[i] as usize;
                let want = if t.arrival[i] == 1 {
                    a[s] + 1
                } else {
                    a[s] - 1
                };
                assert_eq!(b[s], want);
                assert!((0..16).filter(|&x| x != s).all(|x| a[x] == b[x]));
            }
        }
    }

    #[test]
    fn bad_arguments_are_refused_by_name() {
        let ok = SupermarketTraceParams::default();
        let bad = [
            (SupermarketTraceParams { servers: 0, ..ok }, "servers"),
            (SupermarketTraceParams { servers: 33, ..ok }, "servers"),
            (
                SupermarketTraceParams {
                    lambda: f64::NAN,
                    ..ok
                },
                "lambda",
            ),
            (SupermarketTraceParams { lambda: 1.0, ..ok }, "lambda"),
            (SupermarketTraceParams { lambda: 0.0, ..ok }, "lambda"),
            (SupermarketTraceParams { d: 0, ..ok }, "d"),
            (SupermarketTraceParams { d: 11, ..ok }, "d"),
            (SupermarketTraceParams { arrivals: 0, ..ok }, "arrivals"),
            (
                SupermarketTraceParams {
                    arrivals: 50_001,
                    ..ok
                },
                "arrivals",
            ),
            (
                SupermarketTraceParams {
                    warmup: 20_001,
                    ..ok
                },
                "warmup",
            ),
        ];
        for (params, name) in bad {
            assert_eq!(trace(params).unwrap_err().param(), name, "{params:?}");
        }
        // The smallest window: one arrival, from empty.
        let t = trace(SupermarketTraceParams {
            arrivals: 1,
            warmup: 0,
            ..ok
        })
        .unwrap();
        assert_eq!((t.events(), t.lengths.iter().sum::<u32>()), (1, 1));
    }
}
