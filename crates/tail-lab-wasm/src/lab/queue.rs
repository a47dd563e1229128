//! The single queue (core `queue`): `simulateQueue`.

use crate::convert::object;
use crate::convert::{Options, integer, number, seed};
use crate::describe::js_of;
use crate::error::range;
use tail_lab_core::error::CountRange;
use tail_lab_core::lab::precision::{LengthChoice, run_length};
use tail_lab_core::lab::queue::{
    MAX_REQUESTS, MAX_SERVERS, MIN_REQUESTS, MODEL, QueueConfig, QueueParams, REQUESTS_EXPECTED,
    SERVERS_EXPECTED, theory,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const QUEUE_TS: &str = r#"
/** Options of `simulateQueue`: an M/M/c queue, times in mean service times. */
export interface QueueOptions {
  /** Servers sharing the one queue, 1..=64. Default 1. */
  servers?: number;
  /** Per-server utilisation ρ, 0.01..=0.99. Default 0.5. */
  load?: number;
  /**
   * Requests simulated, 1000..=10000000 (default 200000); or "auto", as many as the queue's
   * precision targets need (runLengths()), planned from a pilot on its own seed; or "pilot",
   * that pilot.
   */
  requests?: number | "auto" | "pilot";
  seed?: number | bigint;
}
/** The M/M/c closed forms at one point (mean service times; a probability). */
export interface QueueTheory { mean: number; p99: number; waitProbability: number; }
"#;

/// One M/M/c queue: `servers` servers share a FIFO queue at per-server utilisation `load`;
/// the mean, p99 and share that waited, beside their closed forms.
#[wasm_bindgen(js_name = simulateQueue, unchecked_return_type = "QueueResult")]
pub fn simulate_queue(
    #[wasm_bindgen(unchecked_param_type = "QueueOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read("options", &opts, &["servers", "load", "requests", "seed"])?;
    // The bounds and their words are the core's; the core checks the load.
    let servers = o.optional("servers", 1.0, |v| {
        integer("servers", v, 1.0, f64::from(MAX_SERVERS), SERVERS_EXPECTED)
    })?;
    let load = o.optional("load", 0.5, |v| number("load", v))?;
    let rule = run_length(MODEL.key).expect("the queue has a run-length rule");
    let bounds = CountRange {
        lo: MIN_REQUESTS,
        hi: MAX_REQUESTS,
        expected: REQUESTS_EXPECTED,
    };
    let (requests, choice) = o.optional("requests", (200_000, LengthChoice::Fixed), |v| {
        crate::convert::run_length("requests", v, &bounds, rule)
    })?;
    let seed = o.optional("seed", 1, |v| seed("seed", v))?;
    let config = QueueConfig::new(QueueParams {
        servers: servers as u32,
        load,
        requests,
        seed,
    })
    .map_err(range)?;
    crate::convert::check_work(
        &format!(
            "{} × (28 + 0.55 a server)",
            crate::convert::length_words("requests", choice, requests)
        ),
        config.work_units(),
    )?;
    Ok(js_of(&config.run_by(choice)))
}

/// The M/M/c closed forms at `servers` (1..=64) and per-server utilisation `load`
/// (0.01..=0.99): mean time in system, its p99 and Erlang C, in mean service times.
#[wasm_bindgen(js_name = queueTheory, unchecked_return_type = "QueueTheory")]
pub fn queue_theory(
    #[wasm_bindgen(unchecked_param_type = "number")] servers: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] load: JsValue,
) -> Result<JsValue, JsValue> {
    let servers = integer(
        "servers",
        &servers,
        1.0,
        f64::from(MAX_SERVERS),
        SERVERS_EXPECTED,
    )?;
    let load = number("load", &load)?;
    // The queue's constructor validates both bounds and names them.
    let config = QueueConfig::new(QueueParams {
        servers: servers as u32,
        load,
        requests: MIN_REQUESTS,
        seed: 0,
    })
    .map_err(range)?;
    let QueueParams { servers, load, .. } = config.params();
    Ok(object(&[
        ("mean", theory::mean_sojourn(servers, load).into()),
        ("p99", theory::sojourn_quantile(servers, load, 0.99).into()),
        ("waitProbability", theory::erlang_c(servers, load).into()),
    ]))
}
