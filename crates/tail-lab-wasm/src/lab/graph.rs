//! Request graphs (core `graph`): the closed form `graphTheory`, read from the options the
//! core declares, and `graphPresets` (`simulateGraph` is generated: `crate::api`).

use crate::convert::object;
use crate::error::range;
use tail_lab_core::lab::graph::stages::{PRESETS, preset};
use tail_lab_core::lab::graph::{CALL, GraphTheory, OPTIONS, StageService, graph_of};
use tail_lab_core::lab::service::ServiceModel;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const GRAPH_TS: &str = r#"
/** A preset's stage as `graphPresets` lists it: `service` is "lab" for the call's service (the
 * Lab's model unless the call gives its own), or an exponential's mean. */
export interface GraphPresetStage {
  kind: "single" | "parallel";
  width: number;
  k: number;
  service: "lab" | { exponentialMs: number };
}
/** The closed forms of a request graph (`graphTheory`): exact for one stage, the numerical
 * convolution within `cdfError` otherwise. */
export interface GraphTheoryResult {
  /** Median completion time (ms), uncapped by the deadline. */
  p50: number;
  p99: number;
  p999: number;
  /** P(T > D) at the deadline (0 with none). */
  miss: number;
  /** Mean completeness at the deadline (1 with none). */
  completeness: number;
  /** True for a one-stage graph: every number exact. */
  exact: boolean;
  /** The convolution's stated error bound on P(T ≤ t). */
  cdfError: number;
}
"#;

/// The presets, in the page's order, with their stages: what `preset` names.
#[wasm_bindgen(js_name = graphPresets, unchecked_return_type = "{ name: string; stages: GraphPresetStage[] }[]")]
pub fn graph_presets() -> JsValue {
    let lab = ServiceModel::default();
    PRESETS
        .iter()
        .map(|&name| {
            let stages: js_sys::Array = preset(name, &lab)
                .expect("a preset")
                .iter()
                .map(|s| {
                    let service = match &s.service {
                        StageService::Service(_) => JsValue::from_str("lab"),
                        StageService::Exponential(mean) => {
                            object(&[("exponentialMs", (*mean).into())])
                        }
                    };
                    let kind = if s.is_parallel() {
                        "parallel"
                    } else {
                        "single"
                    };
                    object(&[
                        ("kind", kind.into()),
                        ("width", s.width().into()),
                        ("k", s.k().into()),
                        ("service", service),
                    ])
                })
                .collect();
            object(&[("name", name.into()), ("stages", stages.into())])
        })
        .collect::<js_sys::Array>()
        .into()
}

/// The closed forms of a request graph (the graph options of `simulateGraph`): its completion
/// time's p50, p99 and p99.9 (ms), and at the deadline the miss share and mean completeness.
#[wasm_bindgen(js_name = graphTheory, unchecked_return_type = "GraphTheoryResult")]
pub fn graph_theory(
    #[wasm_bindgen(unchecked_param_type = "GraphOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let o = crate::api::read_options(OPTIONS, CALL.exclusive, &opts)?;
    let (graph, deadline_ms) = graph_of(&o).map_err(range)?;
    let th = GraphTheory::new(&graph);
    Ok(object(&[
        ("p50", th.quantile(0.5).into()),
        ("p99", th.quantile(0.99).into()),
        ("p999", th.quantile(0.999).into()),
        ("miss", deadline_ms.map_or(0.0, |d| th.miss(d)).into()),
        (
            "completeness",
            deadline_ms.map_or(1.0, |d| th.completeness(d)).into(),
        ),
        ("exact", th.exact().into()),
        ("cdfError", th.cdf_error().into()),
    ]))
}
