//! Coordinated omission: how a load generator that waits for each answer hides a server's
//! stalls, and the two corrections that bring them back (issue 23, item 1; source 004,
//! "Measuring the Tail Honestly").
//!
//! **The server** ([`stalls`]) has as many workers as it needs, and now and then stalls: all of
//! them freeze for `stall_ms`, a stall starting every `every_ms` on average. A request needs
//! `work` ms of unstalled time (1 ms, or a draw from any Lab service model).
//!
//! **The load generator** means to send a request every `interval_ms`, for `duration_ms`. Four
//! ways of measuring the same server ([`measure`]):
//! - *closed loop, raw*: the next send waits for the last answer (`max(last send + interval,
//!   last answer)`), and the latency is answer − actual send. A stall holds back every send it
//!   spans, so it is recorded once. Most benchmark tools measure this way.
//! - *HdrHistogram's correction*: the raw samples, each also recorded as
//!   `recordValueWithExpectedInterval(v, interval)` does: `v − interval`, `v − 2·interval`, …
//!   while at least `interval` (the sends the stall held back, filled in after the fact).
//! - *closed loop, intended time* (wrk2): the `k`-th send still goes out only after the
//!   `(k−1)`-th answer, but it is due at `k·interval`, and its latency is measured from then.
//! - *open loop* (the truth a user population sees): every send goes out on schedule, whatever
//!   the server is doing.
//!
//! **Closed forms** ([`theory`]): with random gaps the server is stalled at any moment with
//! probability `π = stall/every`, with a uniform share of the stall left, and a stall
//! interrupts `s` ms of work a Poisson(`s/gap`) number of times; so the open loop's latency law
//! is exact. The classic worked example (100 s of 1 ms answers, then one 100 s stall, sampled
//! every 10 ms) is exact too: raw, 10,000 of 10,001 samples are at or under 1 ms (99.99%);
//! corrected, 10,000 of 20,000 (50%).
//!
//! **The Lab's replicas** ([`probe`]): the same two clients measuring one loaded replica of the
//! busy-replicas section (M/G/1 at the section's load), whose truth has the
//! Pollaczek–Khinchine mean: how far the closed loop's p99 reads below it.
//!
//! **Random streams.** Work draws come from [`STREAM`] (id 28), addressed by the send's number
//! (so every client's `k`-th send does the same work); the stalls' gaps and the probe's
//! arrivals from [`STALL_STREAM`] (id 29).

mod call;
mod clients;
pub mod measure;
mod model;
pub mod probe;
pub mod stalls;
pub mod theory;

pub use call::CALL;
pub use clients::simulate;
pub use model::MODEL;
pub use stalls::Gaps;

use crate::error::{CountRange, Ends, NumberRange, ParamError, readable};
use crate::lab::service::ServiceModel;
use crate::sampling::address::Stream;

/// The random stream of the requests' work (id 28).
pub const STREAM: Stream = Stream::new(28);
/// The random stream of the stalls' gaps and the probe's replica (id 29).
pub const STALL_STREAM: Stream = Stream::new(29);

/// Sends one run may make (the open loop's `duration / interval`, rounded up).
pub const SENDS: CountRange = crate::count_range!(1, 10000000);
/// Stalls one run may hold (`duration / every`): their spans are kept for the three clients.
pub const MAX_STALLS: f64 = 1e6;
/// Stall walk steps one run may take over its three clients (each send steps past the stalls
/// that interrupt its work).
pub const MAX_STALL_STEPS: f64 = 1e8;
/// Stalls that may interrupt one request's work (its longest over the gap between stalls): the
/// walk, and the closed form's Poisson terms, are bounded by it.
pub const MAX_INTERRUPTIONS: f64 = 100.0;
/// The longest stall, interval, duration or stall period accepted (ms): 10^9, eleven days.
pub const MAX_MS: f64 = 1e9;
/// A time that must pass: (0, [`MAX_MS`]].
pub const POSITIVE_MS: NumberRange =
    NumberRange::new(0.0, MAX_MS, Ends::AboveLow, "a time in ms in (0, 1e9]");
/// A stall's length: 0 (none) up to [`MAX_MS`].
pub const STALL_MS: NumberRange = NumberRange::new(
    0.0,
    MAX_MS,
    Ends::Closed,
    "a time in ms in 0..=1e9 (0: no stalls)",
);
/// A request's fixed work: (0, [`MAX_MS`]).
pub const WORK_MS: NumberRange =
    NumberRange::new(0.0, MAX_MS, Ends::Open, "a time in ms in (0, 1e9)");

/// `ms` when it is a time in ms in (0, [`MAX_MS`]], else an error naming `param`.
pub(crate) fn positive_ms(param: &'static str, ms: f64) -> Result<f64, ParamError> {
    POSITIVE_MS.check(param, ms)?;
    if ms == 0.0 {
        return Err(ParamError::OutOfRange {
            param,
            got: ms,
            expected: POSITIVE_MS.expected,
        });
    }
    Ok(ms)
}

/// The work a request needs from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Work {
    /// A fixed time (ms, in (0, 10^9)).
    Constant(f64),
    /// A draw from a service model, per send.
    Model(ServiceModel),
}

/// The named parameters of a run, for [`simulate`].
#[derive(Debug, Clone, PartialEq)]
pub struct OmissionParams {
    /// How often the generator means to send (ms, in (0, 10^9]).
    pub interval_ms: f64,
    /// How long each stall lasts (ms, 0..=10^9; 0 is a server that never stalls).
    pub stall_ms: f64,
    /// How often a stall starts, start to start, on average (ms, above `stall_ms`).
    pub every_ms: f64,
    /// Fixed or random gaps between stalls.
    pub gaps: Gaps,
    /// How long the generator runs (ms): sends are due at `k·interval < duration`.
    pub duration_ms: f64,
    /// Each request's work.
    pub work: Work,
    /// The seed (of the stalls, the work and the probe).
    pub seed: u64,
    /// The probe of one of the Lab's loaded replicas, run beside.
    pub probe: probe::ProbeParams,
}

impl OmissionParams {
    /// The classic worked example: 1 ms answers, one 100 s stall after 100 s, a send every
    /// 10 ms for 200 s.
    pub fn classic() -> Self {
        OmissionParams {
            interval_ms: 10.0,
            stall_ms: 100_000.0,
            every_ms: 200_000.0,
            gaps: Gaps::Fixed,
            duration_ms: 200_000.0,
            work: Work::Constant(1.0),
            seed: 1,
            probe: probe::ProbeParams::default(),
        }
    }

    /// The Lab section's default: 1 ms answers, 1 s stalls every 20 s at random, a send every
    /// 10 ms for ten minutes.
    pub fn section_default() -> Self {
        OmissionParams {
            stall_ms: 1000.0,
            every_ms: 20_000.0,
            gaps: Gaps::Random,
            duration_ms: 600_000.0,
            ..Self::classic()
        }
    }

    /// The sends due in the run: `⌈duration / interval⌉`.
    pub fn sends(&self) -> u64 {
        libm::ceil(self.duration_ms / self.interval_ms) as u64
    }

    /// Checks every field, naming the first bad one.
    pub fn check(&self) -> Result<(), ParamError> {
        positive_ms("intervalMs", self.interval_ms)?;
        STALL_MS.check("stallMs", self.stall_ms)?;
        positive_ms("everyMs", self.every_ms)?;
        if self.every_ms <= self.stall_ms {
            return Err(ParamError::Conflict {
                param: "everyMs",
                reason: format!(
                    "(a stall starts every {} ms on average) must be longer than stallMs ({} ms): \
                     the server runs between stalls",
                    readable(self.every_ms),
                    readable(self.stall_ms)
                ),
            });
        }
        positive_ms("durationMs", self.duration_ms)?;
        if self.sends() > SENDS.hi {
            return Err(ParamError::Conflict {
                param: "durationMs",
                reason: format!(
                    "over intervalMs is {} sends; at most {} are simulated: a shorter duration or a longer interval",
                    readable(self.sends() as f64),
                    SENDS.hi
                ),
            });
        }
        let stalls = self.duration_ms / self.every_ms;
        if self.stall_ms > 0.0 && stalls > MAX_STALLS {
            return Err(ParamError::Conflict {
                param: "everyMs",
                reason: format!(
                    "gives {} stalls in durationMs; at most {MAX_STALLS} are simulated: stalls less often or a shorter duration",
                    readable(libm::ceil(stalls))
                ),
            });
        }
        self.probe.check()?;
        if let Work::Constant(ms) = self.work {
            WORK_MS.check("workMs", ms)?;
        }
        if self.stall_ms > 0.0 {
            // A request's work is interrupted by some work/gap stalls, each one a step of the
            // walk and, past the run's end, a stall generated: both must stay bounded.
            let gap = self.every_ms - self.stall_ms;
            let (mean, longest) = self.work_scale();
            let steps = 3.0 * self.sends() as f64 * (1.0 + mean / gap);
            let stored =
                (self.duration_ms + longest * self.every_ms / gap + longest) / self.every_ms;
            if steps > MAX_STALL_STEPS || stored > MAX_STALLS || longest / gap > MAX_INTERRUPTIONS {
                return Err(ParamError::Conflict {
                    param: "workMs",
                    reason: format!(
                        "(mean {} ms, longest {} ms) is long against the {} ms the server runs between \
                         stalls: each request would be interrupted some {} times; at most {MAX_INTERRUPTIONS} a \
                         request and {MAX_STALL_STEPS} in all are simulated: shorter work or rarer stalls",
                        readable(mean),
                        readable(longest),
                        readable(gap),
                        readable(libm::ceil(longest / gap))
                    ),
                });
            }
        }
        Ok(())
    }

    /// The work's mean and (for a service model, its 1 − 10⁻⁹ quantile) longest value (ms).
    fn work_scale(&self) -> (f64, f64) {
        match &self.work {
            Work::Constant(ms) => (*ms, *ms),
            Work::Model(m) => (m.mean_ms(), m.quantile(1.0 - 1e-9)),
        }
    }
}
