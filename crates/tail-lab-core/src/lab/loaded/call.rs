//! `simulateLoaded`, and the options of its trace (`traceLoaded`, which the binding returns as
//! typed arrays), declared once ([`crate::api`]).

use super::options::{
    DELAY_BASIS_OPTION, DELAY_OPTION, LOAD_OPTION, POLICY_OPTION, REPLICAS_OPTION,
    cancellation_option, policy_of,
};
use super::trace::{
    LoadedTraceParams, TRACE_LOAD_EXPECTED, TRACE_MAX_LOAD, TRACE_REPLICAS, TRACE_REQUESTS,
    TRACE_WARMUP,
};
use super::{LoadedConfig, LoadedParams, LoadedResult, LoadedService, MIN_LOAD, REQUESTS_PER_CALL};
use crate::api::{
    Call, OptionSet, OptionSpec, OptionValues, Prepared, SEED_OPTION, SERVICE_OPTION, Work,
};
use crate::describe::{Describe, Unit};
use crate::error::{Ends, NumberRange, ParamError};

/// `simulateLoaded`: one loaded-replica run.
pub const CALL: Call = Call {
    name: "simulateLoaded",
    doc: "One loaded-replica simulation (ms and fractions; latencies `null` when unstable).",
    options_type: "LoadedOptions",
    options_doc: "Options of `simulateLoaded`.",
    options: &[
        LOAD_OPTION,
        POLICY_OPTION,
        DELAY_OPTION,
        DELAY_BASIS_OPTION,
        cancellation_option("backup"),
        OptionSpec::count(
            "requests",
            "Requests simulated.",
            Unit::Count,
            REQUESTS_PER_CALL,
            200_000,
        ),
        REPLICAS_OPTION,
        SEED_OPTION,
        SERVICE_OPTION,
    ],
    exclusive: &[],
    result_type: <LoadedResult as Describe>::TYPE_NAME,
    more: &[OptionSet {
        type_name: "LoadedTraceOptions",
        doc: "Options of `traceLoaded`: a short window of a loaded run, to watch its queues.",
        options: TRACE_OPTIONS,
    }],
    prepare: |o: &OptionValues| -> Result<Prepared, ParamError> {
        let (policy, cancellation) = policy_of(o)?;
        let config = LoadedConfig::new(LoadedParams {
            replicas: o.count("replicas") as u32,
            load: o.number("load").expect("load has a default"),
            policy,
            requests: o.count("requests"),
            seed: o.seed("seed"),
        })?
        .with_service(LoadedService::Lab(o.service("service")))
        .with_cancellation(cancellation);
        let work = Work {
            units: config.work_units(),
            counted_as: "requests × 60 per pass (two passes for a hedge at the loaded p95)".into(),
        };
        Ok(Prepared::new(work, move || Ok(config.run().describe())))
    },
};

const TRACE_DEFAULTS: LoadedTraceParams = LoadedTraceParams::DEFAULT;

/// The options of a trace (`traceLoaded`): a short window of a loaded run, the Lab's 10
/// replicas at 70% load unless told.
pub const TRACE_OPTIONS: &[OptionSpec] = &[
    OptionSpec::number(
        "load",
        "Offered utilisation before backups.",
        Unit::Fraction,
        NumberRange::new(MIN_LOAD, TRACE_MAX_LOAD, Ends::Closed, TRACE_LOAD_EXPECTED),
        TRACE_DEFAULTS.load,
    ),
    POLICY_OPTION,
    DELAY_OPTION,
    DELAY_BASIS_OPTION,
    cancellation_option("backup"),
    OptionSpec::count(
        "replicas",
        "FIFO replicas.",
        Unit::Count,
        TRACE_REPLICAS,
        TRACE_DEFAULTS.replicas as u64,
    ),
    OptionSpec::count(
        "requests",
        "Requests whose arrivals the window spans.",
        Unit::Count,
        TRACE_REQUESTS,
        TRACE_DEFAULTS.requests,
    ),
    OptionSpec::count(
        "warmup",
        "Requests run (from empty) before the window opens.",
        Unit::Count,
        TRACE_WARMUP,
        TRACE_DEFAULTS.warmup,
    ),
    SERVICE_OPTION,
    SEED_OPTION,
];

/// A trace's parameters from `o` (read against [`TRACE_OPTIONS`]).
pub fn trace_params(o: &OptionValues) -> Result<LoadedTraceParams, ParamError> {
    let (policy, cancellation) = policy_of(o)?;
    Ok(LoadedTraceParams {
        replicas: o.count("replicas") as u32,
        load: o.number("load").expect("load has a default"),
        policy,
        cancellation,
        requests: o.count("requests"),
        warmup: o.count("warmup"),
        seed: o.seed("seed"),
    })
}
