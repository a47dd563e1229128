//! The single queue (core `queue`): its closed forms, `queueTheory`. (`simulateQueue` is
//! generated from the core's declaration: `crate::api`.)

use crate::convert::object;
use crate::convert::{integer, number};
use crate::error::range;
use tail_lab_core::lab::queue::{
    MAX_SERVERS, MIN_REQUESTS, QueueConfig, QueueParams, SERVERS_EXPECTED, theory,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const QUEUE_TS: &str = r#"
/** The M/M/c closed forms at one point (mean service times; a probability). */
export interface QueueTheory { mean: number; p99: number; waitProbability: number; }
"#;

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
