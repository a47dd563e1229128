//! The parameters of one balancer run, the signals, and their validation.

use crate::error::{CountRange, Ends, NumberRange, ParamError};
use crate::sampling::address::Stream;

/// The random stream of the simulation (id 30).
pub const STREAM: Stream = Stream::new(30);
/// Reserved for the model (id 31): the report's reference runs draw from it (none yet).
pub const SPARE_STREAM: Stream = Stream::new(31);

/// Servers a run may have.
pub const SERVERS: CountRange = crate::count_range!(2, 1000);
/// Arrivals a run may simulate (the first tenth are warm-up).
pub const ARRIVALS: CountRange = crate::count_range!(1000, 1000000);
/// Balancers (clients) the arrivals are split among.
pub const CLIENTS: CountRange = crate::count_range!(1, 100);
/// Arrival rate per server: below 1 (of the identical servers' capacity).
pub const MIN_LAMBDA: f64 = 0.01;
/// The highest arrival rate per server.
pub const MAX_LAMBDA: f64 = 0.99;
/// The longest refresh period of the stale signal (mean service times).
pub const MAX_STALENESS: f64 = 1.0e6;
/// The shortest refresh period other than 0 (mean service times): the longest run (10⁶
/// arrivals at λ·servers ≥ 0.02 lasts about 5·10⁷) then spans fewer than 2⁵³ periods, so
/// every period has its own number.
pub const MIN_STALENESS: f64 = 1.0e-3;
/// The slowest the slow server may be (its service times are `slow_factor` × the others').
pub const MAX_SLOW_FACTOR: f64 = 100.0;
/// The EWMA's decay time may be 0.01..=10⁶ mean service times.
pub const TAU_RANGE: (f64, f64) = (0.01, 1.0e6);

/// Arrival rates per server accepted.
pub const LAMBDA: NumberRange = NumberRange::new(
    MIN_LAMBDA,
    MAX_LAMBDA,
    Ends::Closed,
    "a rate in 0.01..=0.99",
);
/// Samples per arrival: at least one, at most every server (the upper bound is the run's
/// `servers`; [`SERVERS`]' top is the most any run allows).
pub const CHOICES: CountRange = CountRange {
    lo: 1,
    hi: SERVERS.hi,
    expected: "an integer in 1..=servers",
};
/// Refresh periods accepted (0 is fresh; otherwise at least [`MIN_STALENESS`], which
/// [`BalancerParams::check`] adds).
pub const STALENESS: NumberRange = NumberRange::new(
    0.0,
    MAX_STALENESS,
    Ends::Closed,
    "0, or a period in 0.001..=1e6",
);
/// Slow factors accepted.
pub const SLOW_FACTOR: NumberRange =
    NumberRange::new(1.0, MAX_SLOW_FACTOR, Ends::Closed, "a factor in 1..=100");
/// EWMA decay times accepted.
pub const TAU: NumberRange = NumberRange::new(
    TAU_RANGE.0,
    TAU_RANGE.1,
    Ends::Closed,
    "a time in 0.01..=1e6",
);
/// The signal names in an error's words.
pub const SIGNALS_EXPECTED: &str =
    "\"fresh\", \"stale\", \"inflight\", \"ewma\", \"round-robin\", \"random\"";

/// What the balancer reads to pick among its `d` sampled servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// True queue lengths at the instant of the arrival.
    Fresh,
    /// Queue lengths as copied at the last refresh (every `staleness`; 0 is fresh).
    Stale,
    /// This client's own count of requests sent to the server and not yet answered.
    Inflight,
    /// This client's peak-EWMA of observed latency × (its in-flight count + 1).
    Ewma,
    /// Each client cycles through the servers; the samples are ignored.
    RoundRobin,
    /// The first sampled server: uniform random assignment.
    Random,
}

/// The names of the signals, in [`Signal`]'s order.
pub const SIGNAL_NAMES: [&str; 6] = [
    "fresh",
    "stale",
    "inflight",
    "ewma",
    "round-robin",
    "random",
];

impl Signal {
    /// Every signal, in [`SIGNAL_NAMES`]' order.
    pub const ALL: [Signal; 6] = [
        Signal::Fresh,
        Signal::Stale,
        Signal::Inflight,
        Signal::Ewma,
        Signal::RoundRobin,
        Signal::Random,
    ];

    /// The stable machine name.
    pub const fn name(self) -> &'static str {
        SIGNAL_NAMES[self as usize]
    }

    /// The signal called `name`.
    pub fn from_name(name: &str) -> Result<Self, ParamError> {
        Signal::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| ParamError::UnknownName {
                param: "signal",
                got: name.to_string(),
                expected: SIGNALS_EXPECTED,
            })
    }
}

/// The named parameters of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BalancerParams {
    /// Servers ([`SERVERS`]); server 0 is the slow one when `slow_factor` > 1.
    pub servers: u32,
    /// Arrival rate per server (λ, per mean service time), [`MIN_LAMBDA`]..=[`MAX_LAMBDA`].
    pub lambda: f64,
    /// Servers sampled per arrival, 1..=`servers`.
    pub d: u32,
    /// The signal the balancer reads.
    pub signal: Signal,
    /// The stale signal's refresh period (mean service times): 0, or
    /// [`MIN_STALENESS`]..=[`MAX_STALENESS`]; read only by [`Signal::Stale`]. 0 is the fresh
    /// signal, bit for bit.
    pub staleness: f64,
    /// Balancers the arrivals are split among uniformly ([`CLIENTS`]); each sees only its own
    /// in-flight counts and latencies.
    pub clients: u32,
    /// How many times slower server 0 is (1..=[`MAX_SLOW_FACTOR`]; 1: identical servers).
    pub slow_factor: f64,
    /// The EWMA's decay time (mean service times), in [`TAU_RANGE`].
    pub tau: f64,
    /// Arrivals simulated ([`ARRIVALS`]); the first tenth are warm-up.
    pub arrivals: u64,
    /// The seed.
    pub seed: u64,
}

impl Default for BalancerParams {
    /// 100 identical servers at λ = 0.9, best of two on fresh queue lengths, one client,
    /// staleness 50 (for the stale signal: long enough to herd worse than random), τ = 10,
    /// 200,000 arrivals (at λ = 0.9 a run from empty needs about that many for random's queues
    /// to settle: 50,000 read its mean 10% low), seed 1.
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl BalancerParams {
    /// The defaults, as a constant (the call's options declare them).
    pub const DEFAULT: BalancerParams = BalancerParams {
        servers: 100,
        lambda: 0.9,
        d: 2,
        signal: Signal::Fresh,
        staleness: 50.0,
        clients: 1,
        slow_factor: 1.0,
        tau: 10.0,
        arrivals: 200_000,
        seed: 1,
    };

    /// Checks every parameter, naming the first one out of range.
    pub fn check(&self) -> Result<(), ParamError> {
        SERVERS.check("servers", u64::from(self.servers))?;
        LAMBDA.check("lambda", self.lambda)?;
        CountRange {
            hi: u64::from(self.servers),
            ..CHOICES
        }
        .check("d", u64::from(self.d))?;
        if self.staleness != 0.0 {
            NumberRange {
                lo: MIN_STALENESS,
                ..STALENESS
            }
            .check("staleness", self.staleness)?;
        }
        CLIENTS.check("clients", u64::from(self.clients))?;
        SLOW_FACTOR.check("slowFactor", self.slow_factor)?;
        TAU.check("tau", self.tau)?;
        ARRIVALS.check("arrivals", self.arrivals)?;
        Ok(())
    }

    /// The run's cost in the bindings' work units (about 10 ns of wasm each): 30 an arrival,
    /// and 3 for each sampled server (a sample costs one draw and one swap, whatever `d` and
    /// the refresh period).
    pub fn work_units(&self) -> f64 {
        self.arrivals as f64 * (30.0 + 3.0 * f64::from(self.d))
    }
}
