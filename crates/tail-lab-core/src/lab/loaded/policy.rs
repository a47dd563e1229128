//! When a loaded run sends a backup ([`LoadedPolicy`], [`HedgeDelay`], [`DelayBasis`]) and what
//! happens to the copy that did not answer first ([`Cancellation`]).

use crate::error::{ParamError, check_open, check_range};
pub use crate::lab::replicas::Cancellation;

// The longest fixed delay, one literal for the constant and the error texts.
macro_rules! max_delay_ms {
    () => {
        1e9
    };
}

/// The longest fixed hedge delay accepted (ms).
pub const MAX_DELAY_MS: f64 = max_delay_ms!();
const DELAY_EXPECTED: &str = concat!(
    "a delay in ms in (0, ",
    max_delay_ms!(),
    ") (a delay of 0 is LoadedPolicy::Duplicate)"
);
pub(super) const AFTER_DELAY_EXPECTED: &str = concat!("a delay in ms in 0..=", max_delay_ms!());

/// A fixed hedge delay: a number of ms in (0, [`MAX_DELAY_MS`]), checked when made.
///
/// ```
/// use tail_lab_core::lab::loaded::DelayMs;
///
/// assert_eq!(DelayMs::new(20.0).unwrap().get(), 20.0);
/// assert_eq!(DelayMs::new(0.0).unwrap_err().param(), "delay");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DelayMs(f64);

impl DelayMs {
    /// `ms` when it is finite and in (0, [`MAX_DELAY_MS`]).
    pub fn new(ms: f64) -> Result<Self, ParamError> {
        check_open("delay", ms, 0.0, MAX_DELAY_MS, DELAY_EXPECTED).map(DelayMs)
    }

    /// The delay in ms.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// What a calibrated hedge delay is the p95 of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelayBasis {
    /// No-backup request latency at the same load (queueing included): the default.
    Loaded,
    /// The service time on an idle replica (no queueing), ≈ 18.5 ms for the Lab model.
    Idle,
}

impl DelayBasis {
    /// The stable machine name (`"loaded"`, `"idle"`).
    pub fn name(&self) -> &'static str {
        match self {
            DelayBasis::Loaded => "loaded",
            DelayBasis::Idle => "idle",
        }
    }

    /// The basis called `name` (`"loaded"` or `"idle"`).
    pub fn from_name(name: &str) -> Result<Self, ParamError> {
        match name {
            "loaded" => Ok(DelayBasis::Loaded),
            "idle" => Ok(DelayBasis::Idle),
            other => Err(ParamError::UnknownName {
                param: "delayBasis",
                got: other.to_string(),
                expected: "\"loaded\", \"idle\"",
            }),
        }
    }
}

/// How long a hedge waits before sending its backup.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HedgeDelay {
    /// The p95 of the [`DelayBasis`], calibrated on a separate stream.
    P95(DelayBasis),
    /// A fixed delay.
    FixedMs(DelayMs),
}

/// When a backup is sent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadedPolicy {
    /// No backups.
    None,
    /// A backup once the request has been outstanding for the delay without an answer.
    Hedge(HedgeDelay),
    /// A backup at arrival, for every request (a hedge with delay 0).
    Duplicate,
}

impl LoadedPolicy {
    /// The stable machine name (`"none"`, `"hedge"`, `"duplicate"`).
    pub fn name(&self) -> &'static str {
        match self {
            LoadedPolicy::None => "none",
            LoadedPolicy::Hedge(_) => "hedge",
            LoadedPolicy::Duplicate => "duplicate",
        }
    }

    /// The policy called `name` (`"none"`, `"hedge"`, `"duplicate"`); `hedge` waits the p95
    /// of `basis`.
    pub fn from_name(name: &str, basis: DelayBasis) -> Result<Self, ParamError> {
        match name {
            "none" => Ok(LoadedPolicy::None),
            "hedge" => Ok(LoadedPolicy::Hedge(HedgeDelay::P95(basis))),
            "duplicate" => Ok(LoadedPolicy::Duplicate),
            other => Err(ParamError::UnknownName {
                param: "policy",
                got: other.to_string(),
                expected: "\"none\", \"hedge\", \"duplicate\"",
            }),
        }
    }

    /// A backup after `delay_ms` (ms, 0..=[`MAX_DELAY_MS`]): 0 is [`LoadedPolicy::Duplicate`].
    pub fn after_delay(delay_ms: f64) -> Result<Self, ParamError> {
        check_range("delay", delay_ms, 0.0, MAX_DELAY_MS, AFTER_DELAY_EXPECTED)?;
        Ok(if delay_ms == 0.0 {
            LoadedPolicy::Duplicate
        } else {
            LoadedPolicy::Hedge(HedgeDelay::FixedMs(DelayMs::new(delay_ms)?))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for basis in [DelayBasis::Loaded, DelayBasis::Idle] {
            assert_eq!(DelayBasis::from_name(basis.name()).unwrap(), basis);
            assert_eq!(
                LoadedPolicy::from_name("hedge", basis).unwrap(),
                LoadedPolicy::Hedge(HedgeDelay::P95(basis))
            );
        }
        for c in Cancellation::ALL {
            assert_eq!(Cancellation::from_name(c.name()).unwrap(), c);
        }
        assert_eq!(
            LoadedPolicy::from_name("tied", DelayBasis::Loaded)
                .unwrap_err()
                .param(),
            "policy"
        );
        assert_eq!(
            Cancellation::from_name("all").unwrap_err().param(),
            "cancellation"
        );
        assert_eq!(
            DelayBasis::from_name("busy").unwrap_err().param(),
            "delayBasis"
        );
        assert_eq!(
            LoadedPolicy::after_delay(0.0).unwrap(),
            LoadedPolicy::Duplicate
        );
        assert_eq!(
            LoadedPolicy::after_delay(-1.0).unwrap_err().param(),
            "delay"
        );
    }
}
