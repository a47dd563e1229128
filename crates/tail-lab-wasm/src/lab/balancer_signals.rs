//! Balancer signals (core `balancer_signals`): `simulateBalancerSignals`, one signal at one
//! load.

use crate::convert::{Options, check_work, count, number, seed, string};
use crate::describe::js_of;
use crate::error::range;
use tail_lab_core::lab::balancer_signals::{
    ARRIVALS, BalancerParams, CLIENTS, SERVERS, Signal, simulate,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const BALANCER_SIGNALS_TS: &str = r#"
/** Options of `simulateBalancerSignals`: best of `d` sampled servers on the signal a balancer
 * reads, one server `slowFactor` times slower. Times are in mean service times. */
export interface BalancerSignalsOptions {
  /** What the balancer reads. Default "fresh". */
  signal?: "fresh" | "stale" | "inflight" | "ewma" | "round-robin" | "random";
  /** Arrival rate per server, 0.01..=0.99. Default 0.9. */
  lambda?: number;
  /** Servers, 2..=1000 (server 0 is the slow one). Default 100. */
  servers?: number;
  /** Servers sampled per arrival, 1..=servers. Default 2. */
  d?: number;
  /** The stale signal's refresh period: 0 (fresh), or 0.001..=1e6. Default 50. */
  staleness?: number;
  /** Balancers the arrivals are split among, 1..=100. Default 1. */
  clients?: number;
  /** How many times slower server 0 is, 1..=100. Default 1. */
  slowFactor?: number;
  /** The peak-EWMA's decay time, 0.01..=1e6. Default 10. */
  tau?: number;
  /** Arrivals simulated, 1000..=1e6 (the first tenth are warm-up). Default 200000. */
  arrivals?: number;
  seed?: number | bigint;
}
"#;

const KEYS: &[&str] = &[
    "signal",
    "lambda",
    "servers",
    "d",
    "staleness",
    "clients",
    "slowFactor",
    "tau",
    "arrivals",
    "seed",
];

fn params(opts: &JsValue) -> Result<BalancerParams, JsValue> {
    let o = Options::read("options", opts, KEYS)?;
    let d = BalancerParams::default();
    let small = |name: &'static str, v: &JsValue, r| count(name, v, r).map(|n| n as u32);
    Ok(BalancerParams {
        signal: o.optional("signal", d.signal, |v| {
            Signal::from_name(&string("signal", v)?).map_err(range)
        })?,
        lambda: o.optional("lambda", d.lambda, |v| number("lambda", v))?,
        servers: o.optional("servers", d.servers, |v| small("servers", v, &SERVERS))?,
        d: o.optional("d", d.d, |v| {
            small("d", v, &tail_lab_core::count_range!(1, 1000))
        })?,
        staleness: o.optional("staleness", d.staleness, |v| number("staleness", v))?,
        clients: o.optional("clients", d.clients, |v| small("clients", v, &CLIENTS))?,
        slow_factor: o.optional("slowFactor", d.slow_factor, |v| number("slowFactor", v))?,
        tau: o.optional("tau", d.tau, |v| number("tau", v))?,
        arrivals: o.optional("arrivals", d.arrivals, |v| count("arrivals", v, &ARRIVALS))?,
        seed: o.optional("seed", d.seed, |v| seed("seed", v))?,
    })
}

/// One signal at one load: sojourn times, the slow server's share, and the checks' closed
/// forms (the report's `balancer_signals` entries are such runs).
#[wasm_bindgen(js_name = simulateBalancerSignals, unchecked_return_type = "BalancerSignalsResult")]
pub fn simulate_balancer_signals(
    #[wasm_bindgen(unchecked_param_type = "BalancerSignalsOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let p = params(&opts)?;
    check_work("arrivals × (30 + 3·d)", p.work_units())?;
    Ok(js_of(&simulate(&p).map_err(range)?))
}
