//! Tied requests (core `tied`): `simulateTied` (a tied run, or a reference policy of the loaded
//! model in the same shape), and the closed form `tiedTheory` (M/M/c, the check).

use crate::convert::{Options, count, number, object, seed, string};
use crate::describe::js_of;
use crate::error::range;
use crate::lab::service::service;
use tail_lab_core::ParamError;
use tail_lab_core::lab::loaded::{LoadedConfig, LoadedService, exponential};
use tail_lab_core::lab::tied::{
    REPLICAS, REQUESTS, TiedConfig, TiedParams, TiedPolicy, reference, theory,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TIED_TS: &str = r#"
/** Options of `simulateTied`. */
export interface TiedOptions {
  /** "tied" (default), or a reference run by the loaded model at the same replicas, load and service. */
  policy?: "tied" | "none" | "hedge" | "duplicate" | "duplicate-either-any";
  /** Offered utilisation before duplicates, 0.001..=2. Default 0.5. */
  load?: number;
  /** FIFO replicas, 2..=100. Default 10. */
  replicas?: number;
  /** Replicas each request is enqueued at, 2..=replicas (replicas: tied to all). Default 2. */
  tie?: number;
  /** How long a cancellation takes to land (ms), 0..=1e9, or Infinity (never). Default 1. */
  messageDelayMs?: number;
  /** Send the siblings this long after the first copy (ms, 0..=1e9; Dean and Barroso suggest about two message delays). Default 0: all at once. Tied only. */
  staggerMs?: number;
  /** Requests simulated, 1000..=2e6. Default 100000. */
  requests?: number;
  seed?: number | bigint;
  /** Your own service model; default: the Lab's. */
  service?: ServiceOptions;
  /** Exponential service of this mean (ms, 0.2..=1e9: a median under 0.125 ms could not be measured) instead: the M/M/c check. Not with `service`. */
  exponentialMeanMs?: number;
}
/** The M/M/c closed forms of the tied check (ms). */
export interface TiedTheory {
  /** Mean time in system. */
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  /** Erlang C: the share of requests that wait (0..1). */
  waitProbability: number;
}
"#;

/// Runs one tied-request simulation, or (with `policy` none, hedge or duplicate) the loaded
/// model's reference at the same replicas, load and service (ms and fractions; latencies
/// `null` when unstable).
#[wasm_bindgen(js_name = simulateTied, unchecked_return_type = "TiedResult")]
pub fn simulate_tied(
    #[wasm_bindgen(unchecked_param_type = "TiedOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read(
        "options",
        &opts,
        &[
            "policy",
            "load",
            "replicas",
            "tie",
            "messageDelayMs",
            "staggerMs",
            "requests",
            "seed",
            "service",
            "exponentialMeanMs",
        ],
    )?;
    let policy = o.optional("policy", TiedPolicy::Tied, |v| {
        let name = string("policy", v)?;
        TiedPolicy::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                range(ParamError::UnknownName {
                    param: "policy",
                    got: name,
                    expected: "\"tied\", \"none\", \"hedge\", \"duplicate\", \"duplicate-either-any\"",
                })
            })
    })?;
    let load = o.optional("load", 0.5, |v| number("load", v))?;
    let replicas = o.optional("replicas", 10, |v| {
        count("replicas", v, &REPLICAS).map(|n| n as u32)
    })?;
    let tie = o.optional("tie", 2, |v| {
        let n = number("tie", v)?;
        if n.is_finite() && n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n) {
            Ok(n as u32)
        } else {
            Err(range(ParamError::OutOfRange {
                param: "tie",
                got: n,
                expected: "an integer in 2..=replicas",
            }))
        }
    })?;
    let message_delay_ms = o.optional("messageDelayMs", 1.0, |v| number("messageDelayMs", v))?;
    let stagger_ms = o.optional("staggerMs", 0.0, |v| number("staggerMs", v))?;
    let requests = o.optional("requests", 100_000, |v| count("requests", v, &REQUESTS))?;
    let seed = o.optional("seed", 1, |v| seed("seed", v))?;
    let service = match (o.get("exponentialMeanMs"), o.get("service")) {
        (Some(_), Some(_)) => {
            return Err(js_sys::TypeError::new(
                "options.exponentialMeanMs: give either service or exponentialMeanMs, not both",
            )
            .into());
        }
        (Some(v), None) => exponential(number("exponentialMeanMs", &v)?)
            .map_err(|e| as_param(e, "exponentialMeanMs"))?,
        (None, s) => LoadedService::Lab(service(s)?),
    };
    let config = TiedConfig::new(TiedParams {
        replicas,
        tie,
        load,
        message_delay_ms,
        requests,
        seed,
    })
    .map_err(range)?
    .with_service(service.clone())
    .with_stagger(stagger_ms)
    .map_err(range)?;
    if policy == TiedPolicy::Tied {
        crate::convert::check_work("requests × 30 × (1 + tie)", config.work_units())?;
        return Ok(js_of(&config.run()));
    }
    // A reference: the loaded model's bound on its work.
    let work = LoadedConfig::new(tail_lab_core::lab::loaded::LoadedParams {
        replicas,
        load,
        policy: tail_lab_core::lab::loaded::LoadedPolicy::from_name(
            match policy {
                TiedPolicy::DuplicateEitherAny => "duplicate",
                p => p.name(),
            },
            tail_lab_core::lab::loaded::DelayBasis::Loaded,
        )
        .map_err(range)?,
        requests,
        seed,
    })
    .map_err(range)?
    .work_units();
    crate::convert::check_work(
        "requests × 60 per pass (two passes for a hedge at the loaded p95)",
        work,
    )?;
    Ok(js_of(
        &reference(policy, replicas, load, service, requests, seed).map_err(range)?,
    ))
}

/// The M/M/c closed forms of the tied check: `replicas` (2..=100) servers at per-server
/// utilisation `load` (in (0, 1)), exponential service of mean `meanMs` (ms, > 0): mean
/// sojourn, its p50, p99 and p99.9 (ms), and Erlang C.
#[wasm_bindgen(js_name = tiedTheory, unchecked_return_type = "TiedTheory")]
pub fn tied_theory(
    #[wasm_bindgen(unchecked_param_type = "number")] replicas: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] load: JsValue,
    #[wasm_bindgen(js_name = meanMs, unchecked_param_type = "number")] mean_ms: JsValue,
) -> Result<JsValue, JsValue> {
    let c = count("replicas", &replicas, &REPLICAS)? as u32;
    let load = number("load", &load)?;
    if !(load > 0.0 && load < 1.0) {
        return Err(range(ParamError::OutOfRange {
            param: "load",
            got: load,
            expected: "a utilisation in (0, 1): M/M/c has no steady state at or above 1",
        }));
    }
    let mean = match exponential(number("meanMs", &mean_ms)?) {
        Ok(LoadedService::Exponential(m)) => m.get(),
        Ok(_) => unreachable!("exponential gives an exponential"),
        Err(e) => return Err(as_param(e, "meanMs")),
    };
    Ok(object(&[
        ("meanMs", theory::mmc_mean_ms(c, load, mean).into()),
        ("p50Ms", theory::mmc_quantile_ms(c, load, 0.5, mean).into()),
        ("p99Ms", theory::mmc_quantile_ms(c, load, 0.99, mean).into()),
        (
            "p999Ms",
            theory::mmc_quantile_ms(c, load, 0.999, mean).into(),
        ),
        (
            "waitProbability",
            theory::mmc_wait_probability(c, load).into(),
        ),
    ]))
}

/// The core's error on an exponential's mean (`mean_ms`), named as the caller wrote it.
fn as_param(e: ParamError, param: &'static str) -> JsValue {
    match e {
        ParamError::OutOfRange { got, expected, .. } => range(ParamError::OutOfRange {
            param,
            got,
            expected,
        }),
        other => range(other),
    }
}
