//! `simulateTied`: a tied run, or a reference run of the loaded model at the same replicas,
//! load and service, in the same shape.

use super::config::{DELAY_EXPECTED, STAGGER_EXPECTED, TIE_EXPECTED};
use super::model::POLICY_NAMES;
use super::{
    MAX_MESSAGE_DELAY_MS, REPLICAS, REQUESTS, TiedConfig, TiedParams, TiedPolicy, TiedResult,
    reference,
};
use crate::api::{
    Call, Kind, OptionSpec, OptionValues, Prepared, SEED_OPTION, SERVICE_OPTION, Work,
};
use crate::describe::{Describe, Unit};
use crate::error::{CountRange, Ends, NumberRange, ParamError};
use crate::lab::loaded::options::{LOAD_OPTION, MEAN_MS};
use crate::lab::loaded::{
    DelayBasis, LoadedConfig, LoadedParams, LoadedPolicy, LoadedService, exponential,
};

/// `simulateTied`.
pub const CALL: Call = Call {
    name: "simulateTied",
    doc: "One tied-request simulation, or (with `policy` none, hedge or duplicate) the loaded \
          model's reference at the same replicas, load and service (ms and fractions; latencies \
          `null` when unstable).",
    options_type: "TiedOptions",
    options_doc: "Options of `simulateTied`.",
    options: &[
        OptionSpec {
            name: "policy",
            doc: "\"tied\", or a reference run by the loaded model at the same replicas, load \
                  and service.",
            unit: Unit::None,
            kind: Kind::Name {
                names: &POLICY_NAMES,
                expected: "\"tied\", \"none\", \"hedge\", \"duplicate\", \"duplicate-either-any\"",
                default: Some("tied"),
            },
        },
        OptionSpec {
            doc: "Offered utilisation before duplicates (1 and above: unstable).",
            ..LOAD_OPTION
        },
        OptionSpec::count("replicas", "FIFO replicas.", Unit::Count, REPLICAS, 10),
        OptionSpec::count(
            "tie",
            "Replicas each request is enqueued at, at most `replicas` (replicas: tied to all).",
            Unit::Count,
            CountRange {
                lo: 2,
                hi: REPLICAS.hi,
                expected: TIE_EXPECTED,
            },
            2,
        ),
        OptionSpec::number(
            "messageDelayMs",
            "How long a cancellation takes to land (Infinity: never).",
            Unit::Ms,
            NumberRange::new(
                0.0,
                MAX_MESSAGE_DELAY_MS,
                Ends::ClosedOrInfinity,
                DELAY_EXPECTED,
            ),
            1.0,
        ),
        OptionSpec::number(
            "staggerMs",
            "Send the siblings this long after the first copy (Dean and Barroso suggest about \
             two message delays; 0: all at once). Tied only.",
            Unit::Ms,
            NumberRange::new(0.0, MAX_MESSAGE_DELAY_MS, Ends::Closed, STAGGER_EXPECTED),
            0.0,
        ),
        OptionSpec::count(
            "requests",
            "Requests simulated.",
            Unit::Count,
            REQUESTS,
            100_000,
        ),
        SEED_OPTION,
        SERVICE_OPTION,
        OptionSpec {
            name: "exponentialMeanMs",
            doc: "Exponential service of this mean instead (a median under 0.125 ms could not be \
                  measured): the M/M/c check.",
            unit: Unit::Ms,
            kind: Kind::Number {
                range: MEAN_MS,
                default: None,
            },
        },
    ],
    exclusive: &[["service", "exponentialMeanMs"]],
    result_type: <TiedResult as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| -> Result<Prepared, ParamError> {
        let name = o.name("policy").expect("policy has a default");
        let policy = TiedPolicy::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .expect("the names are the policies'");
        let service = match o.number("exponentialMeanMs") {
            Some(mean) => exponential(mean)?,
            None => LoadedService::Lab(o.service("service")),
        };
        let (replicas, load) = (
            o.count("replicas") as u32,
            o.number("load").expect("load has a default"),
        );
        let (requests, seed) = (o.count("requests"), o.seed("seed"));
        let config = TiedConfig::new(TiedParams {
            replicas,
            tie: o.count("tie") as u32,
            load,
            message_delay_ms: o.number("messageDelayMs").expect("has a default"),
            requests,
            seed,
        })?
        .with_service(service.clone())
        .with_stagger(o.number("staggerMs").expect("has a default"))?;
        if policy == TiedPolicy::Tied {
            let work = Work {
                units: config.work_units(),
                counted_as: "requests × 30 × (1 + tie)".into(),
            };
            return Ok(Prepared::new(work, move || Ok(config.run().describe())));
        }
        // A reference run: the loaded model's run, so its bound on the work.
        let loaded_name = match policy {
            TiedPolicy::DuplicateEitherAny => "duplicate",
            p => p.name(),
        };
        let work = Work {
            units: LoadedConfig::new(LoadedParams {
                replicas,
                load,
                policy: LoadedPolicy::from_name(loaded_name, DelayBasis::Loaded)?,
                requests,
                seed,
            })?
            .work_units(),
            counted_as: "requests × 60 per pass (two passes for a hedge at the loaded p95)".into(),
        };
        Ok(Prepared::new(work, move || {
            Ok(reference(policy, replicas, load, service, requests, seed)?.describe())
        }))
    },
};

/// The loads the M/M/c closed forms (`tiedTheory`) accept: a steady state needs `load` < 1.
pub const THEORY_LOAD: NumberRange = NumberRange::new(
    0.0,
    1.0,
    Ends::Open,
    "a utilisation in (0, 1): M/M/c has no steady state at or above 1",
);
