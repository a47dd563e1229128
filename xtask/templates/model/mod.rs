//! New model: a starting point made by the model scaffold (`xtask/src/scaffold.rs`). Each
//! request draws one service time, exponential with mean `mean_ms`, from its addressed stream;
//! the run reports the mean and the p99 of the draws beside their closed forms, `mean_ms` and
//! `ln(100) · mean_ms`, with the mean's standard error. Replace the draw with the model, keep
//! the shape: validated params, a described result, a report run, a declared call (`call.rs`)
//! and the tests (`it.rs`, statistical, against a closed form).

mod call;

pub use call::CALL;

use crate::describe::{Describe, Field};
use crate::error::{Ends, NumberRange, ParamError};
use crate::model::{Model, RunOutput, each_described};
use crate::sampling::address::{RequestKey, Stream};

/// The random stream of the model's draws (no two models share one: `model.rs` checks).
pub const STREAM: Stream = Stream::new(1_000_000);

/// The mean service time's range (ms).
pub const MEAN_MS: NumberRange =
    NumberRange::new(0.0, 1.0e6, Ends::AboveLow, "a time in ms in (0, 1000000]");

/// Requests one call may simulate.
pub const REQUESTS: crate::error::CountRange = crate::count_range!(1, 10_000_000);

/// The mean service time the section, the call and the report default to (ms).
pub const DEFAULT_MEAN_MS: f64 = 10.0;

/// The named parameters of a run, for [`simulate`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewModelParams {
    /// Mean service time (ms), in (0, 10^6].
    pub mean_ms: f64,
    /// Requests simulated, 1..=10^7.
    pub requests: u64,
    /// The seed.
    pub seed: u64,
}

/// What a run measured, beside its closed forms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewModelResult {
    /// Mean service time asked for (ms).
    pub mean_ms: f64,
    /// Requests simulated.
    pub requests: u64,
    /// Mean of the draws (ms).
    pub mean: f64,
    /// Standard error of `mean` (ms): the draws' standard deviation over √requests.
    pub mean_std_err: f64,
    /// The mean's closed form, `mean_ms` (ms).
    pub mean_theory: f64,
    /// p99 of the draws (ms): the ⌈0.99 · requests⌉-th smallest.
    pub p99: f64,
    /// The p99's closed form, `ln(100) · mean_ms` (ms).
    pub p99_theory: f64,
}

/// Simulates `requests` exponential service times with mean `mean_ms` under `seed`.
///
/// ```
/// use tail_lab_core::lab::new_model::{NewModelParams, simulate};
/// let r = simulate(NewModelParams { mean_ms: 10.0, requests: 10_000, seed: 1 }).unwrap();
/// assert!((r.mean - r.mean_theory).abs() < 5.0 * r.mean_std_err);
/// ```
pub fn simulate(params: NewModelParams) -> Result<NewModelResult, ParamError> {
    let NewModelParams {
        mean_ms,
        requests,
        seed,
    } = params;
    MEAN_MS.check("meanMs", mean_ms)?;
    REQUESTS.check("requests", requests)?;
    let mut draws: Vec<f64> = (0..requests)
        .map(|k| {
            let u = RequestKey::new(seed, STREAM, k)
                .sample(0, 0)
                .next_open_unit();
            -mean_ms * libm::log(u)
        })
        .collect();
    let n = requests as f64;
    let mean = draws.iter().sum::<f64>() / n;
    let variance = if requests > 1 {
        draws.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    draws.sort_unstable_by(f64::total_cmp);
    // The ⌈0.99 n⌉-th smallest draw, 1-based.
    let rank = ((requests * 99).div_ceil(100)).max(1) as usize;
    Ok(NewModelResult {
        mean_ms,
        requests,
        mean,
        mean_std_err: libm::sqrt(variance / n),
        mean_theory: mean_ms,
        p99: draws[rank - 1],
        p99_theory: libm::log(100.0) * mean_ms,
    })
}

impl Describe for NewModelResult {
    const TYPE_NAME: &'static str = "NewModelResult";
    const DOC: &'static str =
        "Exponential service times: their mean and p99 beside the closed forms.";

    fn describe(&self) -> Vec<Field> {
        vec![
            Field::ms("mean_ms", "Mean service time asked for.", self.mean_ms),
            Field::count("requests", "Requests simulated.", self.requests),
            Field::ms("mean", "Mean of the draws.", self.mean),
            Field::ms(
                "mean_std_err",
                "Standard error of mean: the draws' standard deviation over √requests.",
                self.mean_std_err,
            ),
            Field::ms(
                "mean_theory",
                "The mean's closed form, meanMs.",
                self.mean_theory,
            ),
            Field::ms("p99", "p99 of the draws.", self.p99),
            Field::ms(
                "p99_theory",
                "The p99's closed form, ln(100) · meanMs.",
                self.p99_theory,
            ),
        ]
    }
}

fn run(_: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    let params = NewModelParams {
        mean_ms: DEFAULT_MEAN_MS,
        requests,
        seed,
    };
    Ok(Box::new(simulate(params)?))
}

/// The model in the report and the API (`simulateNewModel`).
pub const MODEL: Model = Model {
    key: "new_model",
    title: "New model",
    note: "",
    call: Some("simulateNewModel"),
    api: Some(&CALL),
    closed_forms: &[],
    result_type: <NewModelResult as Describe>::TYPE_NAME,
    result_doc: <NewModelResult as Describe>::DOC,
    streams: &[STREAM],
    sweep: false,
    runs: 1,
    run,
    entries: each_described::<NewModelResult>,
    example: || {
        simulate(NewModelParams {
            mean_ms: DEFAULT_MEAN_MS,
            requests: 1000,
            seed: 1,
        })
        .expect("valid")
        .describe()
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_names_the_argument() {
        let ok = NewModelParams {
            mean_ms: 1.0,
            requests: 10,
            seed: 1,
        };
        for mean_ms in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let err = simulate(NewModelParams { mean_ms, ..ok }).unwrap_err();
            assert_eq!(err.param(), "meanMs", "{mean_ms}");
        }
        let err = simulate(NewModelParams { requests: 0, ..ok }).unwrap_err();
        assert_eq!(err.param(), "requests");
    }

    #[test]
    fn the_same_seed_gives_the_same_bits() {
        let p = NewModelParams {
            mean_ms: 3.0,
            requests: 500,
            seed: 9,
        };
        assert_eq!(simulate(p).unwrap(), simulate(p).unwrap());
        assert_ne!(
            simulate(p).unwrap(),
            simulate(NewModelParams { seed: 10, ..p }).unwrap()
        );
    }
}
