//! A budget run's parameters ([`BudgetParams`], [`BudgetConfig`]), its streams and bounds.

use crate::error::{CountRange, ParamError, check_range};
use crate::lab::service::ServiceModel;
use crate::sampling::address::Stream;

/// The random stream of the budget simulation (id 24): every policy draws the same arrivals,
/// replica choices and service times from it.
pub const STREAM: Stream = Stream::new(24);

/// Replicas a run may have: a backup needs a second one.
pub const REPLICAS: CountRange = crate::count_range!(2, 1000, " (a backup needs a second replica)");
/// Windows of simulated time the run's series are cut into.
pub const WINDOWS: CountRange = crate::count_range!(4, 200);
/// Tokens a finite bucket may hold.
pub const MAX_TOKENS: CountRange = crate::count_range!(2, 1000000);
/// Most requests a run lets wait for an answer at once: past it no more arrive, those that
/// did are served to the end, and the run is reported unstable with no latencies.
pub const MAX_IN_FLIGHT: usize = 100_000;
/// Most requests one run may expect to see (`load × replicas / mean service × span`, per
/// policy): the work of a call stays near a second.
pub const MAX_EXPECTED_REQUESTS: f64 = 500_000.0;
/// The lowest utilisation accepted.
pub const MIN_LOAD: f64 = 0.01;
/// The highest utilisation accepted (≥ 1 is a valid question whose answer is "unstable").
pub const MAX_LOAD: f64 = 2.0;
/// The largest slowdown of the replica in the outage.
pub const MAX_SLOWDOWN: f64 = 1000.0;
/// The longest span of simulated time (ms): ten minutes.
pub const MAX_SPAN_MS: f64 = 600_000.0;
/// The quantile level of recent latencies a tracking delay waits for (Dean and Barroso's p95).
pub const TRACKING_QUANTILE: f64 = 0.95;
/// Answers in the tracking delay's sliding window.
pub const TRACKING_WINDOW: usize = 1000;
/// The tracking delay is recomputed after every this many answers.
pub const TRACKING_EVERY: usize = 50;
/// The window (ms) over which the disable rule measures utilisation, in [`UTILISATION_SLOTS`].
pub const UTILISATION_WINDOW_MS: f64 = 1000.0;
/// Slots the utilisation window is kept in: it slides a tenth at a time.
pub const UTILISATION_SLOTS: usize = 10;

pub(super) const TOKEN_RATIO_EXPECTED: &str = "a number of tokens in 0.001..=1";

/// A token ratio in thousandths of a token, as gRPC keeps it.
pub(super) fn ratio_milli(token_ratio: f64) -> u64 {
    (token_ratio * 1000.0).round() as u64
}

/// How a hedging policy chooses its delay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DelayRule {
    /// Always the run's `delay_ms`.
    Fixed,
    /// The [`TRACKING_QUANTILE`] of the last [`TRACKING_WINDOW`] answers' latencies on the
    /// shared bins, recomputed every [`TRACKING_EVERY`] answers; the run's `delay_ms` until the
    /// window first fills.
    Tracking,
}

/// The names of the delay rules, the default first.
pub const DELAY_RULE_NAMES: [&str; 2] = ["fixed", "tracking"];

impl DelayRule {
    /// `"fixed"` or `"tracking"`.
    pub fn name(self) -> &'static str {
        match self {
            DelayRule::Fixed => "fixed",
            DelayRule::Tracking => "tracking",
        }
    }

    /// The rule called `name`.
    pub fn from_name(name: &str) -> Result<Self, ParamError> {
        match name {
            "fixed" => Ok(DelayRule::Fixed),
            "tracking" => Ok(DelayRule::Tracking),
            other => Err(ParamError::UnknownName {
                param: "delayRule",
                got: other.to_string(),
                expected: "\"fixed\", \"tracking\"",
            }),
        }
    }
}

/// The named parameters of a budget run, for [`BudgetConfig::new`]. [`Default`] is the
/// section's and the report's run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetParams {
    /// FIFO replicas ([`REPLICAS`]); default 10.
    pub replicas: u32,
    /// Offered utilisation before backups ([`MIN_LOAD`]..=[`MAX_LOAD`]); default 0.5.
    pub load: f64,
    /// How many times slower replica 0 serves during the outage (1..=[`MAX_SLOWDOWN`]; 1 is
    /// no outage); default 10.
    pub slowdown: f64,
    /// Simulated time in which requests arrive (ms, up to [`MAX_SPAN_MS`]); default 60 s.
    pub span_ms: f64,
    /// The outage's start (ms, 0..=span); default a third of the span.
    pub outage_start_ms: f64,
    /// The outage's end (ms, start..=span); default two thirds of the span.
    pub outage_end_ms: f64,
    /// Windows the span is cut into for the series ([`WINDOWS`]); default 30.
    pub windows: u32,
    /// How a hedge chooses its delay; default [`DelayRule::Fixed`].
    pub delay_rule: DelayRule,
    /// The fixed delay, and the tracking delay's start (ms, > 0); `None`: the service's p95.
    pub delay_ms: Option<f64>,
    /// Tokens the bucket holds when full ([`MAX_TOKENS`]); `None` is unlimited. Default 10.
    pub max_tokens: Option<u32>,
    /// Tokens each request adds (0.001..=1, kept to thousandths as gRPC does); default 0.25:
    /// the hedge's own rate (about 0.15 here) plus one failure domain's share (one replica of
    /// ten, 0.1). A budget at the hedge's own rate alone is spent by one sick replica's outage.
    pub token_ratio: f64,
    /// No hedge when the backup's replica holds more than this many copies (queued and in
    /// service; ≥ 0, ∞ allowed: never); default 4.
    pub disable_depth: f64,
    /// Also no hedge while the measured utilisation is above one; default true.
    pub disable_utilisation: bool,
    /// The seed.
    pub seed: u64,
}

impl Default for BudgetParams {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl BudgetParams {
    /// The section's and the report's run, as a constant (the call's options declare it).
    pub const DEFAULT: BudgetParams = BudgetParams {
        replicas: 10,
        load: 0.5,
        slowdown: 10.0,
        span_ms: 60_000.0,
        outage_start_ms: 20_000.0,
        outage_end_ms: 40_000.0,
        windows: 30,
        delay_rule: DelayRule::Fixed,
        delay_ms: None,
        max_tokens: Some(10),
        token_ratio: 0.25,
        disable_depth: 4.0,
        disable_utilisation: true,
        seed: 1,
    };
}

/// A checked budget run: its parameters and service model.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetConfig {
    pub(super) params: BudgetParams,
    /// The delay resolved (ms).
    pub(super) delay_ms: f64,
    /// The token ratio in thousandths of a token.
    pub(super) ratio_milli: u64,
    pub(super) service: ServiceModel,
}

impl BudgetConfig {
    /// Checks `params` under the Lab's service model.
    ///
    /// ```
    /// use tail_lab_core::lab::budget::{BudgetConfig, BudgetParams};
    ///
    /// let bad = BudgetParams { token_ratio: 0.0, ..BudgetParams::default() };
    /// assert_eq!(BudgetConfig::new(bad).unwrap_err().param(), "tokenRatio");
    /// ```
    pub fn new(params: BudgetParams) -> Result<Self, ParamError> {
        Self::with_service(params, ServiceModel::default())
    }

    /// Checks `params` under `service`.
    pub fn with_service(params: BudgetParams, service: ServiceModel) -> Result<Self, ParamError> {
        let p = params;
        REPLICAS.check("replicas", u64::from(p.replicas))?;
        super::call::LOAD.check("load", p.load)?;
        super::call::SLOWDOWN.check("slowdown", p.slowdown)?;
        super::call::SPAN_MS.check("spanMs", p.span_ms)?;
        check_range(
            "outageStartMs",
            p.outage_start_ms,
            0.0,
            p.span_ms,
            "a time in ms in 0..=spanMs",
        )?;
        check_range(
            "outageEndMs",
            p.outage_end_ms,
            p.outage_start_ms,
            p.span_ms,
            "a time in ms in outageStartMs..=spanMs",
        )?;
        WINDOWS.check("windows", u64::from(p.windows))?;
        if let Some(m) = p.max_tokens {
            MAX_TOKENS.check("maxTokens", u64::from(m))?;
        }
        super::call::TOKEN_RATIO.check("tokenRatio", p.token_ratio)?;
        if p.disable_depth.is_nan() || p.disable_depth < 0.0 {
            return Err(ParamError::OutOfRange {
                param: "disableDepth",
                got: p.disable_depth,
                expected: "a queue depth ≥ 0 (Infinity: never)",
            });
        }
        let delay_ms = match p.delay_ms {
            Some(d) => super::call::DELAY_MS.check("delayMs", d)?,
            None => service.quantile(TRACKING_QUANTILE),
        };
        let rate = p.load * f64::from(p.replicas) / service.mean_ms();
        let expected = rate * p.span_ms;
        if expected > MAX_EXPECTED_REQUESTS {
            return Err(ParamError::OutOfRange {
                param: "spanMs",
                got: p.span_ms,
                expected: "a span in which at most 500000 requests are expected \
                           (load × replicas ÷ mean service time × span)",
            });
        }
        Ok(BudgetConfig {
            params: p,
            delay_ms,
            ratio_milli: ratio_milli(p.token_ratio),
            service,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &BudgetParams {
        &self.params
    }

    /// The hedge delay (ms): the fixed one, or where the tracking one starts.
    pub fn delay_ms(&self) -> f64 {
        self.delay_ms
    }

    /// The token ratio as used: rounded to thousandths.
    pub fn token_ratio(&self) -> f64 {
        self.ratio_milli as f64 / 1000.0
    }

    /// Requests expected per policy (the arrival rate times the span).
    pub fn expected_requests(&self) -> f64 {
        self.arrival_rate() * self.params.span_ms
    }

    /// Arrivals per ms.
    pub(super) fn arrival_rate(&self) -> f64 {
        self.params.load * f64::from(self.params.replicas) / self.service.mean_ms()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters_are_refused_by_name() {
        let d = BudgetParams::default();
        let cases: [(BudgetParams, &str); 11] = [
            (BudgetParams { replicas: 1, ..d }, "replicas"),
            (
                BudgetParams {
                    load: f64::NAN,
                    ..d
                },
                "load",
            ),
            (BudgetParams { slowdown: 0.5, ..d }, "slowdown"),
            (BudgetParams { span_ms: 0.0, ..d }, "spanMs"),
            (
                BudgetParams {
                    outage_start_ms: -1.0,
                    ..d
                },
                "outageStartMs",
            ),
            (
                BudgetParams {
                    outage_end_ms: 1.0,
                    ..d
                },
                "outageEndMs",
            ),
            (BudgetParams { windows: 1, ..d }, "windows"),
            (
                BudgetParams {
                    max_tokens: Some(1),
                    ..d
                },
                "maxTokens",
            ),
            (
                BudgetParams {
                    token_ratio: 2.0,
                    ..d
                },
                "tokenRatio",
            ),
            (
                BudgetParams {
                    disable_depth: -1.0,
                    ..d
                },
                "disableDepth",
            ),
            (
                BudgetParams {
                    delay_ms: Some(0.0),
                    ..d
                },
                "delayMs",
            ),
        ];
        for (p, name) in cases {
            assert_eq!(BudgetConfig::new(p).unwrap_err().param(), name);
        }
        let long = BudgetParams {
            span_ms: 600_000.0,
            outage_start_ms: 0.0,
            outage_end_ms: 0.0,
            load: 2.0,
            ..d
        };
        assert_eq!(BudgetConfig::new(long).unwrap_err().param(), "spanMs");
        assert_eq!(
            DelayRule::from_name("p95").unwrap_err().param(),
            "delayRule"
        );
        for name in DELAY_RULE_NAMES {
            assert_eq!(DelayRule::from_name(name).unwrap().name(), name);
        }
        assert!(BudgetConfig::new(d).is_ok());
    }
}
