//! Fan-out: the share of parent requests that meet at least one slow leaf.
//!
//! Each leaf is slow, independently, with probability `p` (a Bernoulli draw from its addressed
//! stream — in the Lab's service model that is "hit the slow mode"); a parent over `n` leaves is
//! slow when any leaf is. Checked against [`crate::theory::slow_share`], `1 − (1 − p)^n`.

use crate::api::{Call, OptionSpec, OptionValues, Prepared, SEED_OPTION, Work};
use crate::describe::{Describe, Field, Unit, Value};
use crate::error::{PROBABILITY, ParamError, check_requests};
use crate::model::{Model, RunOutput, each_described};
use crate::report::seed_figures;
use crate::sampling::address::{RequestKey, Stream, probability_threshold};
use crate::theory::{self, check_fanout};

/// The random stream of the fan-out experiment's Bernoulli leaves (id 5).
pub const STREAM: Stream = Stream::new(5);

/// Requests one call of a binding may simulate (the work bound applies too).
pub const REQUESTS_PER_CALL: crate::error::CountRange = crate::count_range!(1, 10000000);

// Each leaf is called once: its one attempt.
const ONLY_ATTEMPT: u32 = 0;

/// The simulated fraction (0..1) of `requests` parents (1..=10^9) over `n` leaves (1..=1024)
/// that meet at least one leaf slow with probability `p` (0..=1), under `seed`.
pub fn simulate_slow_share(p: f64, n: u32, requests: u64, seed: u64) -> Result<f64, ParamError> {
    PROBABILITY.check("p", p)?;
    check_fanout("n", n)?;
    check_requests(requests)?;
    let threshold = probability_threshold(p);
    let slow = (0..requests)
        .filter(|&k| {
            let key = RequestKey::new(seed, STREAM, k);
            (0..n).any(|i| key.sample(i, ONLY_ATTEMPT).next_bits() < threshold)
        })
        .count();
    Ok(slow as f64 / requests as f64)
}

/// The simulated share beside its closed form and its sampling error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FanoutResult {
    /// Probability (0..1) that one leaf is slow.
    pub p: f64,
    /// Leaves per request.
    pub n: u32,
    /// Requests simulated.
    pub requests: u64,
    /// Simulated fraction (0..1) of requests with at least one slow leaf.
    pub sim: f64,
    /// `1 − (1 − p)^n`.
    pub theory: f64,
    /// Binomial standard error of `sim`: `sqrt(sim (1 − sim) / requests)` (fraction).
    pub std_err: f64,
    /// Lower end of the 95% Wilson score interval around `sim` (fraction).
    pub ci_low: f64,
    /// Upper end of the 95% Wilson score interval around `sim` (fraction).
    pub ci_high: f64,
}

/// The two-sided 95% normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// The named parameters of a fan-out run, for [`simulate`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FanoutParams {
    /// Probability (0..=1) that one leaf is slow.
    pub p: f64,
    /// Leaves per request, 1..=1024.
    pub n: u32,
    /// Requests simulated, 1..=10^9.
    pub requests: u64,
    /// The seed.
    pub seed: u64,
}

/// Simulates `requests` parents over `n` leaves, each slow with probability `p`, under `seed`
/// ([`simulate_slow_share`]), beside `1 − (1 − p)^n`, with the simulated share's standard error
/// and its 95% Wilson score interval (which, unlike `sim ± 1.96·stdErr`, stays inside 0..1 and
/// is not empty when no request, or every request, was slow).
///
/// ```
/// use tail_lab_core::lab::fanout::{FanoutParams, simulate};
/// let r = simulate(FanoutParams { p: 0.01, n: 100, requests: 100_000, seed: 1 }).unwrap();
/// assert!((r.theory - 0.634).abs() < 1e-3);
/// assert!(r.ci_low <= r.sim && r.sim <= r.ci_high);
/// assert!((r.sim - r.theory).abs() < 5.0 * r.std_err);
/// ```
pub fn simulate(params: FanoutParams) -> Result<FanoutResult, ParamError> {
    let FanoutParams {
        p,
        n,
        requests,
        seed,
    } = params;
    let sim = simulate_slow_share(p, n, requests, seed)?;
    let r = requests as f64;
    let z2 = Z95 * Z95;
    let centre = (sim + z2 / (2.0 * r)) / (1.0 + z2 / r);
    let half = Z95 / (1.0 + z2 / r) * libm::sqrt(sim * (1.0 - sim) / r + z2 / (4.0 * r * r));
    Ok(FanoutResult {
        p,
        n,
        requests,
        sim,
        theory: theory::slow_share(p, n)?,
        std_err: libm::sqrt(sim * (1.0 - sim) / r),
        // At a share of exactly 0 (or 1) the interval's end is exactly 0 (or 1); computed,
        // it would be off by a rounding error.
        ci_low: if sim == 0.0 {
            0.0
        } else {
            (centre - half).max(0.0)
        },
        ci_high: if sim == 1.0 {
            1.0
        } else {
            (centre + half).min(1.0)
        },
    })
}

impl Describe for FanoutResult {
    const TYPE_NAME: &'static str = "FanoutResult";
    const DOC: &'static str = "The simulated share of slow requests beside 1 − (1 − p)^n.";

    fn describe(&self) -> Vec<Field> {
        vec![
            Field::fraction("p", "Probability that one leaf is slow.", self.p),
            Field::count("n", "Leaves per request.", u64::from(self.n)),
            Field::count("requests", "Requests simulated.", self.requests),
            Field::fraction(
                "sim",
                "Simulated fraction of requests with at least one slow leaf.",
                self.sim,
            ),
            Field::new(
                "theory",
                Unit::Fraction,
                "1 − (1 − p)^n.",
                Value::Number(self.theory),
            )
            .quoting(seed_figures::SLOW_SHARE),
            Field::fraction(
                "std_err",
                "Binomial standard error of sim: sqrt(sim (1 − sim) / requests).",
                self.std_err,
            ),
            Field::fraction(
                "ci_low",
                "Lower end of the 95% Wilson score interval around sim.",
                self.ci_low,
            ),
            Field::fraction(
                "ci_high",
                "Upper end of the 95% Wilson score interval around sim.",
                self.ci_high,
            ),
        ]
    }
}

/// The report's fan-out: p = 1%, n = 100 (seed 001).
const REPORT_P: f64 = 0.01;
const REPORT_N: u32 = 100;

fn run(_: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    let params = FanoutParams {
        p: REPORT_P,
        n: REPORT_N,
        requests,
        seed,
    };
    Ok(Box::new(simulate(params)?))
}

/// Fan-out in the report and the API (`simulateFanout`).
pub const MODEL: Model = Model {
    key: "fanout",
    title: "Fan-out",
    note: "",
    call: Some("simulateFanout"),
    api: Some(&CALL),
    closed_forms: &["slowShare"],
    result_type: <FanoutResult as Describe>::TYPE_NAME,
    result_doc: <FanoutResult as Describe>::DOC,
    streams: &[STREAM],
    sweep: false,
    runs: 1,
    run,
    entries: each_described::<FanoutResult>,
    example: || {
        simulate(FanoutParams {
            p: REPORT_P,
            n: REPORT_N,
            requests: 1000,
            seed: 1,
        })
        .expect("valid")
        .describe()
    },
};

/// `simulateFanout`: the share of parents that meet a slow leaf.
pub const CALL: Call = Call {
    name: "simulateFanout",
    doc: "The share of `requests` simulated parents over `n` leaves that meet a slow leaf, \
          beside `1 − (1 − p)^n`.",
    options_type: "FanoutOptions",
    options_doc: "Options of `simulateFanout`.",
    options: &[
        OptionSpec::number(
            "p",
            "Probability that one leaf is slow.",
            Unit::Fraction,
            PROBABILITY,
            0.01,
        ),
        OptionSpec::count("n", "Leaves per request.", Unit::Count, theory::FANOUT, 100),
        OptionSpec::count(
            "requests",
            "Requests simulated.",
            Unit::Count,
            REQUESTS_PER_CALL,
            100_000,
        ),
        SEED_OPTION,
    ],
    exclusive: &[],
    result_type: <FanoutResult as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| {
        let params = FanoutParams {
            p: o.number("p").expect("p has a default"),
            n: o.count("n") as u32,
            requests: o.count("requests"),
            seed: o.seed("seed"),
        };
        let work = Work {
            units: params.requests as f64 * f64::from(params.n),
            counted_as: "requests × n".into(),
        };
        Ok(Prepared::new(
            work,
            move || Ok(simulate(params)?.describe()),
        ))
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_probabilities_are_exact() {
        assert_eq!(simulate_slow_share(0.0, 100, 1000, 1).unwrap(), 0.0);
        assert_eq!(simulate_slow_share(1.0, 1, 1000, 1).unwrap(), 1.0);
        assert_eq!(simulate_slow_share(0.5, 0, 10, 1).unwrap_err().param(), "n");
        assert_eq!(
            simulate_slow_share(f64::NAN, 3, 10, 1).unwrap_err().param(),
            "p"
        );
    }

    #[test]
    fn the_wilson_interval_holds_the_share_and_stays_in_0_1() {
        let r = simulate(FanoutParams {
            p: 0.01,
            n: 100,
            requests: 10_000,
            seed: 2,
        })
        .unwrap();
        assert!(r.ci_low < r.sim && r.sim < r.ci_high);
        // Near the middle it is about sim ± 1.96·stdErr.
        assert!((r.ci_high - r.ci_low - 2.0 * Z95 * r.std_err).abs() < 0.02 * r.std_err);
        // No slow request: the interval is [0, 3.84/(r + 3.84)], not the empty [0, 0].
        let none = simulate(FanoutParams {
            p: 0.0,
            n: 10,
            requests: 1000,
            seed: 1,
        })
        .unwrap();
        assert_eq!((none.sim, none.ci_low), (0.0, 0.0));
        assert!((none.ci_high - Z95 * Z95 / (1000.0 + Z95 * Z95)).abs() < 1e-12);
        let all = simulate(FanoutParams {
            p: 1.0,
            n: 10,
            requests: 1000,
            seed: 1,
        })
        .unwrap();
        assert_eq!(all.ci_high, 1.0);
    }
}
