//! The Lab's models (core `lab`), and `labDefaults`: the defaults and name lists the pages
//! show, read from the core so that no page writes a model constant of its own.

pub mod budget;
pub mod cancellation;
pub mod correlated;
pub mod empirical;
pub mod fairness;
pub mod fanout_latency;
pub mod graph;
pub mod loaded;
pub mod loaded_trace;
pub mod precision;
pub mod queue;
pub mod retries;
pub mod supermarket;
pub mod supermarket_trace;
pub mod tied;

use crate::convert::object;
use tail_lab_core::lab::loaded::{
    CANCELLATION_NAMES, DEFAULT_REPLICAS, DELAY_BASIS_NAMES, HEDGE_QUANTILE, POLICY_NAMES,
    calibrated_idle_delay,
};
use tail_lab_core::lab::service::ServiceModel;
use tail_lab_core::lab::supermarket::{DEFAULT_SERVERS, POLICIES};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const DEFAULTS_TS: &str = r#"
/** The Lab's defaults and name lists, from the core: what a page shows before any run. */
export interface LabDefaults {
  /** The Lab's service model (ms and a probability): the simulations' `service` option. */
  service: { body: LogNormalOptions; slow: LogNormalOptions & { p: number } };
  loaded: {
    replicas: number;
    /** The quantile level (0..1) of latency that a calibrated hedge waits for. */
    hedgeQuantile: number;
    policies: LoadedResult["policy"][];
    /** The default first. */
    cancellations: LoadedResult["cancellation"][];
    /** The default first. */
    delayBases: ("loaded" | "idle")[];
    /** The idle-replica hedge delay at seed 1: the calibrated p95 of the service model (ms). */
    idleDelayMs: number;
  };
  balance: { servers: number; policies: { random: 1; two: 2; three: 3 } };
  /**
   * Each declared call's defaults by the call's name (`calls.simulateQueue.load` is 0.5): every
   * option that has one, as the core declares it (docs/options.md). An option the call decides
   * (a hedge's `delayQ` when `delayMs` is given) is absent.
   */
  calls: { [call: string]: { [option: string]: number | string | boolean } };
  retries: {
    /** The client timeout `simulateRetries` runs with unless told (ms). */
    timeoutMs: number;
    /** The spike's multiplier of the arrival rate. */
    spike: number;
    /** The budget ratio the Lab's section and the report use (tokens per request). */
    budget: number;
    /** The backoff rules, the default first. */
    backoffs: ("none" | "exponential" | "jitter")[];
  };
}
"#;

/// The seed the page's Lab sections run under, at which `idleDelayMs` is calibrated.
const PAGE_SEED: u64 = 1;

/// The idle hedge delay at [`PAGE_SEED`] (ms): a calibration of 2^18 draws, about 20 ms in a
/// tab, so it is made once, not at every `labDefaults()` (the sections call it as they mount).
fn idle_delay_ms() -> f64 {
    static DELAY: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *DELAY.get_or_init(|| calibrated_idle_delay(ServiceModel::default(), PAGE_SEED))
}

fn strings(names: &[&str]) -> JsValue {
    names
        .iter()
        .map(|n| JsValue::from_str(n))
        .collect::<js_sys::Array>()
        .into()
}

fn lognormal(median_ms: f64, sigma: f64) -> JsValue {
    object(&[("medianMs", median_ms.into()), ("sigma", sigma.into())])
}

/// The Lab's defaults: the service model, the loaded model's replicas, hedge
/// quantile, policies, cancellation rules and delay bases (defaults first), its idle hedge
/// delay, and the balance model's servers and policies.
#[wasm_bindgen(js_name = labDefaults, unchecked_return_type = "LabDefaults")]
pub fn lab_defaults() -> JsValue {
    let model = ServiceModel::default();
    let (body, slow) = (model.body(), model.slow());
    let (body, slow) = (body.expect("a mixture"), slow.expect("a mixture"));
    let service = object(&[
        ("body", lognormal(body.median_ms(), body.sigma())),
        (
            "slow",
            object(&[
                ("p", model.slow_probability().into()),
                ("medianMs", slow.median_ms().into()),
                ("sigma", slow.sigma().into()),
            ]),
        ),
    ]);
    let loaded = object(&[
        ("replicas", DEFAULT_REPLICAS.into()),
        ("hedgeQuantile", HEDGE_QUANTILE.into()),
        ("policies", strings(&POLICY_NAMES)),
        ("cancellations", strings(&CANCELLATION_NAMES)),
        ("delayBases", strings(&DELAY_BASIS_NAMES)),
        ("idleDelayMs", idle_delay_ms().into()),
    ]);
    let policies: Vec<(&str, JsValue)> = (1..)
        .zip(POLICIES)
        .map(|(d, name)| (name, JsValue::from(d)))
        .collect();
    let balance = object(&[
        ("servers", DEFAULT_SERVERS.into()),
        ("policies", object(&policies)),
    ]);
    let d = tail_lab_core::lab::retries::RetriesParams::default();
    let retries = object(&[
        ("timeoutMs", d.timeout_ms.into()),
        ("spike", d.spike.factor.into()),
        (
            "budget",
            tail_lab_core::lab::retries::DEFAULT_BUDGET_RATIO.into(),
        ),
        (
            "backoffs",
            strings(&tail_lab_core::lab::retries::BACKOFF_NAMES),
        ),
    ]);
    let calls: Vec<(&str, JsValue)> = tail_lab_core::api::calls()
        .map(|call| (call.name, crate::describe::js(&call.defaults())))
        .collect();
    object(&[
        ("service", service),
        ("loaded", loaded),
        ("balance", balance),
        ("calls", object(&calls)),
        ("retries", retries),
    ])
}
