//! The client's rules: the wait before a retry ([`Backoff`]), the budget retries and backups
//! are drawn from ([`Budget`]), and the load spike ([`Spike`]) with the arrival clock it bends.

use crate::error::{ParamError, check_range};

/// The wait before a retry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Backoff {
    /// None: the retry goes out the moment its attempt times out.
    None,
    /// Exponential: before retry `k` (1 the first), `min(cap_ms, base_ms · 2^(k−1))`; with
    /// `jitter`, a uniform draw in `[0, that)` ("full jitter").
    Exponential {
        /// The first retry's wait (ms).
        base_ms: f64,
        /// The longest wait (ms).
        cap_ms: f64,
        /// Full jitter.
        jitter: bool,
    },
}

/// The backoff names: `"none"`, `"exponential"`, `"jitter"` (exponential with full jitter).
pub const BACKOFF_NAMES: [&str; 3] = ["none", "exponential", "jitter"];

/// The longest backoff wait accepted (ms).
pub const MAX_BACKOFF_MS: f64 = 600_000.0;

impl Backoff {
    /// The backoff called `name` (one of [`BACKOFF_NAMES`]) with this base and cap (ms).
    pub fn from_name(name: &str, base_ms: f64, cap_ms: f64) -> Result<Self, ParamError> {
        let b = match name {
            "none" => Backoff::None,
            "exponential" => Backoff::Exponential {
                base_ms,
                cap_ms,
                jitter: false,
            },
            "jitter" => Backoff::Exponential {
                base_ms,
                cap_ms,
                jitter: true,
            },
            _ => {
                return Err(ParamError::UnknownName {
                    param: "backoff",
                    got: name.into(),
                    expected: "none, exponential, jitter",
                });
            }
        };
        b.check()?;
        Ok(b)
    }

    /// The name of the rule.
    pub fn name(&self) -> &'static str {
        match self {
            Backoff::None => "none",
            Backoff::Exponential { jitter: false, .. } => "exponential",
            Backoff::Exponential { jitter: true, .. } => "jitter",
        }
    }

    pub(super) fn check(&self) -> Result<(), ParamError> {
        if let Backoff::Exponential {
            base_ms, cap_ms, ..
        } = *self
        {
            super::call::WAIT_MS.check("backoffBaseMs", base_ms)?;
            super::call::WAIT_MS.check("backoffCapMs", cap_ms)?;
        }
        Ok(())
    }

    /// The wait (ms) before retry `k` (1 the first), `unit` a uniform draw in `[0, 1)` that
    /// only full jitter uses.
    pub fn wait_ms(&self, k: u32, unit: f64) -> f64 {
        match *self {
            Backoff::None => 0.0,
            Backoff::Exponential {
                base_ms,
                cap_ms,
                jitter,
            } => {
                let w = (base_ms * libm::exp2(f64::from(k.saturating_sub(1)))).min(cap_ms);
                if jitter { w * unit } else { w }
            }
        }
    }
}

/// Micro-tokens in a token: the budget counts in integers, so its bound is exact.
pub const MICRO: u64 = 1_000_000;

/// A ratio retry budget (Finagle's `RetryBudget`, Envoy's retry budget): every request that
/// arrives deposits `ratio` of a token, every retry or backup spends one whole token, and the
/// bucket holds at most `burst` tokens and starts full. So over any run
///
/// `retries + backups ≤ burst + ratio × requests`, and amplification ≤ `1 + ratio + burst / requests`.
///
/// The ratio is kept in millionths (rounded), so the bound holds exactly in integers.
///
/// Why not gRPC's retry throttling (proposal A6: tokens start at `max_tokens`, each failed
/// attempt takes one, each success gives back `token_ratio`, and retries stop while the count
/// is at or below half of `max_tokens`): it caps retries about as well (each retry follows a
/// failure, so retries < `max_tokens/2 + token_ratio × successes`), but a hedge is sent before
/// anything has failed, so while nothing fails A6 lets every request hedge: the one budget here
/// bounds retries and backups alike.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Tokens deposited per request (0..=[`MAX_RATIO`]).
    pub ratio: f64,
    /// Tokens the bucket holds at most, and starts with (0..=[`MAX_BURST`]).
    pub burst: f64,
}

/// The largest budget ratio.
pub const MAX_RATIO: f64 = 10.0;
/// The largest burst.
pub const MAX_BURST: f64 = 1e6;
/// The budget's burst unless told otherwise.
pub const DEFAULT_BURST: f64 = 10.0;

impl Budget {
    /// A budget of `ratio` per request and `burst` tokens, checked.
    pub fn new(ratio: f64, burst: f64) -> Result<Self, ParamError> {
        let b = Budget { ratio, burst };
        b.check()?;
        Ok(b)
    }

    pub(super) fn check(&self) -> Result<(), ParamError> {
        super::call::RATIO.check("budget", self.ratio)?;
        // A bucket smaller than one token never holds one, so it would allow nothing at any
        // ratio: the burst is at least a token.
        super::call::BURST.check("budgetBurst", self.burst)?;
        Ok(())
    }

    /// The deposit per request and the bucket's size, in micro-tokens.
    pub fn micro(&self) -> (u64, u64) {
        (
            libm::round(self.ratio * MICRO as f64) as u64,
            libm::round(self.burst * MICRO as f64) as u64,
        )
    }

    /// The most retries and backups a run of `requests` can send:
    /// `⌊(burst + ratio × requests) micro-tokens / MICRO⌋`, in the rounded integers it counts in.
    pub fn max_duplicates(&self, requests: u64) -> u64 {
        let (deposit, size) = self.micro();
        (size + deposit * requests) / MICRO
    }
}

/// The bucket of a [`Budget`] during a run.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bucket {
    deposit: u64,
    size: u64,
    tokens: u64,
}

impl Bucket {
    pub(super) fn new(b: Budget) -> Self {
        let (deposit, size) = b.micro();
        Bucket {
            deposit,
            size,
            tokens: size,
        }
    }

    /// A request arrived.
    pub(super) fn deposit(&mut self) {
        self.tokens = (self.tokens + self.deposit).min(self.size);
    }

    /// Spends a token if there is one.
    pub(super) fn spend(&mut self) -> bool {
        let ok = self.tokens >= MICRO;
        if ok {
            self.tokens -= MICRO;
        }
        ok
    }
}

/// A load spike: the arrival rate times `factor` from `start_ms` to `end_ms`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spike {
    /// The arrival rate's multiplier during the spike (1..=[`MAX_SPIKE`]; 1: no spike).
    pub factor: f64,
    /// When it starts (ms).
    pub start_ms: f64,
    /// When it ends (ms).
    pub end_ms: f64,
}

/// The largest spike factor.
pub const MAX_SPIKE: f64 = 10.0;

impl Spike {
    /// The default spike: 2.5× from 10 s to 20 s.
    pub const DEFAULT: Spike = Spike {
        factor: 2.5,
        start_ms: 10_000.0,
        end_ms: 20_000.0,
    };

    /// The spike's length (ms).
    pub fn length_ms(&self) -> f64 {
        self.end_ms - self.start_ms
    }

    pub(super) fn check(&self, duration_ms: f64) -> Result<(), ParamError> {
        super::call::SPIKE.check("spike", self.factor)?;
        check_range(
            "spikeStartMs",
            self.start_ms,
            0.0,
            duration_ms.max(0.0),
            "a time in ms within the run",
        )?;
        if !(self.end_ms >= self.start_ms && self.end_ms <= duration_ms) {
            return Err(ParamError::OutOfRange {
                param: "spikeEndMs",
                got: self.end_ms,
                expected: "a time in ms from the spike's start to the run's end",
            });
        }
        Ok(())
    }
}

/// The arrival clock: a Poisson stream of base rate `rate` (per ms) bent by a spike. Arrival
/// `k` is at `Λ⁻¹(U_k)`, `U_k` the sum of `k + 1` unit exponential gaps and `Λ(t)` the
/// expected arrivals by time `t`; without a spike (factor 1) that is `U_k / rate`.
#[derive(Debug, Clone, Copy)]
pub(super) struct ArrivalClock {
    rate: f64,
    spike: Spike,
    /// `Λ` at the spike's start and end.
    at_start: f64,
    at_end: f64,
}

impl ArrivalClock {
    pub(super) fn new(rate: f64, spike: Spike) -> Self {
        let at_start = rate * spike.start_ms;
        ArrivalClock {
            rate,
            spike,
            at_start,
            at_end: at_start + rate * spike.factor * spike.length_ms(),
        }
    }

    /// The time (ms) at which `Λ` reaches `u`.
    pub(super) fn time(&self, u: f64) -> f64 {
        if self.spike.factor == 1.0 || u < self.at_start {
            u / self.rate
        } else if u < self.at_end {
            self.spike.start_ms + (u - self.at_start) / (self.rate * self.spike.factor)
        } else {
            self.spike.end_ms + (u - self.at_end) / self.rate
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_its_cap_and_jitter_scales_it() {
        let b = Backoff::from_name("exponential", 10.0, 35.0).unwrap();
        let waits: Vec<f64> = (1..=4).map(|k| b.wait_ms(k, 0.5)).collect();
        assert_eq!(waits, vec![10.0, 20.0, 35.0, 35.0]);
        let j = Backoff::from_name("jitter", 10.0, 35.0).unwrap();
        assert_eq!(j.wait_ms(2, 0.25), 5.0);
        assert_eq!(Backoff::None.wait_ms(3, 0.9), 0.0);
        assert_eq!(
            Backoff::from_name("linear", 1.0, 1.0).unwrap_err().param(),
            "backoff"
        );
        assert_eq!(
            Backoff::from_name("jitter", -1.0, 1.0).unwrap_err().param(),
            "backoffBaseMs"
        );
    }

    #[test]
    fn the_bucket_never_lends_more_than_it_was_given() {
        let b = Budget::new(0.1, 2.0).unwrap();
        let mut bucket = Bucket::new(b);
        let mut spent = 0;
        for _ in 0..1000 {
            bucket.deposit();
            for _ in 0..3 {
                spent += u64::from(bucket.spend());
            }
        }
        // The bucket started full (2 tokens), so the first request's deposit overflowed; the
        // other 999 brought 99.9: 101 whole tokens spent, within the bound of 2 + 0.1 × 1000.
        assert_eq!(spent, 101);
        assert_eq!(b.max_duplicates(1000), 102);
        assert_eq!(Budget::new(11.0, 1.0).unwrap_err().param(), "budget");
    }

    #[test]
    fn the_spike_clock_runs_faster_inside_the_spike() {
        let s = Spike {
            factor: 2.0,
            start_ms: 10.0,
            end_ms: 20.0,
        };
        let c = ArrivalClock::new(1.0, s);
        assert_eq!(c.time(5.0), 5.0);
        assert_eq!(c.time(10.0), 10.0);
        assert_eq!(c.time(20.0), 15.0);
        assert_eq!(c.time(30.0), 20.0);
        assert_eq!(c.time(35.0), 25.0);
    }
}
