//! Coordinated omission (core `omission`): `simulateOmission`.

use crate::convert::{Options, check_work, count, number, seed, string};
use crate::describe::js_of;
use crate::error::range;
use crate::lab::service::service;
use tail_lab_core::error::ParamError;
use tail_lab_core::lab::omission::probe::{PROBES, ProbeParams};
use tail_lab_core::lab::omission::{Gaps, OmissionParams, Work, simulate};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const OMISSION_TS: &str = r#"
/** Options of `simulateOmission`: a load generator that means to send every `intervalMs` to a
 * server that stalls for `stallMs` every `everyMs` on average; and a probe of one of the Lab's
 * loaded replicas. Every option defaults to the classic worked example (1 ms answers, one
 * 100 s stall after 100 s, a send every 10 ms for 200 s) and a probe at load 0.5. */
export interface OmissionOptions {
  /** How often the generator means to send (ms, in (0, 1e9]). Default 10. */
  intervalMs?: number;
  /** How long each stall lasts (ms, 0..=1e9; 0: none). Default 100000. */
  stallMs?: number;
  /** How often a stall starts, start to start, on average (ms, above stallMs). Default 200000. */
  everyMs?: number;
  /** "fixed" gaps between stalls (the first after one gap) or "random" (exponential, in equilibrium from the start). Default "fixed". */
  gaps?: "fixed" | "random";
  /** How long the generator runs (ms; at most 1e7 sends). Default 200000. */
  durationMs?: number;
  /** Each request's work: a fixed time in ms (in (0, 1e9)), or "service" for a draw from the service model. Default 1. */
  workMs?: number | "service";
  /** The probed replica's utilisation, in [0.001, 0.95]. Default 0.5. */
  probeLoad?: number;
  /** How often the probe client means to probe (ms, in (0, 1e9]). Default 100. */
  probeMs?: number;
  /** Probes made, 1000..=2000000. Default 200000. */
  probes?: number;
  /** The service model of the probed replica (and of the work when workMs is "service"); default: the Lab's. */
  service?: ServiceOptions;
  /** The seed. */
  seed?: number | bigint;
}
"#;

const KEYS: &[&str] = &[
    "intervalMs",
    "stallMs",
    "everyMs",
    "gaps",
    "durationMs",
    "workMs",
    "probeLoad",
    "probeMs",
    "probes",
    "service",
    "seed",
];

/// Coordinated omission: one stalling server measured four ways (closed loop raw, with
/// HdrHistogram's expected-interval fills, from the intended send time, and open loop), the
/// open loop's closed form with random gaps, and a probe of one of the Lab's loaded replicas.
#[wasm_bindgen(js_name = simulateOmission, unchecked_return_type = "OmissionResult")]
pub fn simulate_omission(
    #[wasm_bindgen(unchecked_param_type = "OmissionOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = Options::read("options", &opts, KEYS)?;
    let base = OmissionParams::classic();
    let model = service(o.get("service"))?;
    let gaps = o.optional("gaps", base.gaps, |v| match string("gaps", v)?.as_str() {
        "fixed" => Ok(Gaps::Fixed),
        "random" => Ok(Gaps::Random),
        other => Err(range(ParamError::UnknownName {
            param: "gaps",
            got: other.to_string(),
            expected: "\"fixed\", \"random\"",
        })),
    })?;
    let work = match o.get("workMs") {
        None => base.work.clone(),
        Some(v) if v.as_string().as_deref() == Some("service") => Work::Model(model.clone()),
        Some(v) if v.is_string() => {
            return Err(range(ParamError::UnknownName {
                param: "workMs",
                got: v.as_string().unwrap_or_default(),
                expected: "a time in ms, or \"service\"",
            }));
        }
        Some(v) => Work::Constant(number("workMs", &v)?),
    };
    let probe = ProbeParams {
        load: o.optional("probeLoad", base.probe.load, |v| number("probeLoad", v))?,
        interval_ms: o.optional("probeMs", base.probe.interval_ms, |v| number("probeMs", v))?,
        probes: o.optional("probes", base.probe.probes, |v| count("probes", v, &PROBES))?,
        service: model,
    };
    let params = OmissionParams {
        interval_ms: o.optional("intervalMs", base.interval_ms, |v| number("intervalMs", v))?,
        stall_ms: o.optional("stallMs", base.stall_ms, |v| number("stallMs", v))?,
        every_ms: o.optional("everyMs", base.every_ms, |v| number("everyMs", v))?,
        gaps,
        duration_ms: o.optional("durationMs", base.duration_ms, |v| number("durationMs", v))?,
        work,
        seed: o.optional("seed", 1, |v| seed("seed", v))?,
        probe,
    };
    params.check().map_err(range)?;
    // Three clients a send, and the probe's two walks over its probes and arrivals.
    check_work(
        "3 × sends + 2 × (probes + arrivals)",
        3.0 * params.sends() as f64 + 2.0 * (params.probe.probes as f64 + params.probe.arrivals()),
    )?;
    Ok(js_of(&simulate(params).map_err(range)?))
}
