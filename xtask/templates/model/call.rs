//! `simulateNewModel`: the model's options, declared once. The binding's export, its TypeScript
//! interface, `labDefaults().calls` and docs/options.md are made from this.

use super::{DEFAULT_MEAN_MS, MEAN_MS, NewModelParams, NewModelResult, REQUESTS, simulate};
use crate::api::{Call, OptionSpec, OptionValues, Prepared, SEED_OPTION, Work};
use crate::describe::{Describe, Unit};

/// `simulateNewModel`: exponential service times, their mean and p99.
pub const CALL: Call = Call {
    name: "simulateNewModel",
    doc: "`requests` exponential service times with mean `meanMs`: their mean and p99 beside \
          the closed forms.",
    options_type: "NewModelOptions",
    options_doc: "Options of `simulateNewModel`.",
    options: &[
        OptionSpec::number(
            "meanMs",
            "Mean service time.",
            Unit::Ms,
            MEAN_MS,
            DEFAULT_MEAN_MS,
        ),
        OptionSpec::count(
            "requests",
            "Requests simulated.",
            Unit::Count,
            REQUESTS,
            100_000,
        ),
        SEED_OPTION,
    ],
    exclusive: &[],
    result_type: <NewModelResult as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| {
        let params = NewModelParams {
            mean_ms: o.number("meanMs").expect("meanMs has a default"),
            requests: o.count("requests"),
            seed: o.seed("seed"),
        };
        let work = Work {
            units: params.requests as f64,
            counted_as: "requests".into(),
        };
        Ok(Prepared::new(
            work,
            move || Ok(simulate(params)?.describe()),
        ))
    },
};
