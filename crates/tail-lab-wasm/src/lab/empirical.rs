//! Your own latencies (core `empirical`): `parseLatencies`, its options read from the core's
//! declaration (`ParseLatenciesOptions`), and `exampleLatencies` (`simulateEmpirical` is
//! generated: `crate::api`).

use crate::convert::object;
use crate::error::wrong_type;
use js_sys::{Float64Array, RangeError, Reflect};
use tail_lab_core::lab::empirical::parse::{Values, check_size, parse};
use tail_lab_core::lab::empirical::{
    EXAMPLE, PARSE_OPTIONS, distribution_of, measurable, parse_options, summary,
};
use tail_lab_core::sampling::empirical::EmpiricalDistribution;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const EMPIRICAL_TS: &str = r#"
/** A text of latencies, read and turned into a model. */
export interface ParsedLatencies {
  format: "lines" | "csv" | "hdrhistogram" | "prometheus" | "percentiles";
  unit: "ns" | "us" | "ms" | "s";
  /** Individual latencies, or points of a distribution (percentiles, buckets). */
  kind: "samples" | "points";
  /** Latencies read, or points. */
  count: number;
  /** The CSV header's names (empty otherwise). */
  columns: string[];
  /** The CSV column read, from 1; null for other formats. */
  column: number | null;
  /** The CSV's number of columns (0 for other formats). */
  columnCount: number;
  /** True when no header named the latency column and the last one holding numbers was read. */
  columnGuessed: boolean;
  /** Lines that held no data (blank, comments, a report's other lines). */
  skippedLines: number;
  /** Prometheus series summed bucket by bucket (1 for other formats). */
  series: number;
  /** The input's own CDF points (ms, levels 0..1) for a summary; null for samples. */
  points: { levels: Float64Array; ms: Float64Array } | null;
  /** The model: pass it as any simulation's `service`. */
  service: EmpiricalServiceOptions;
  /** The model's exact figures (ms). */
  summary: { minMs: number; p50Ms: number; p90Ms: number; p99Ms: number; p999Ms: number; maxMs: number; meanMs: number };
  /** A short summary of the model as typed percentiles (`min:… p50:… max:…`): what a link carries instead of the data. Empty when no summary of at most 300 characters reads back into a model the Lab accepts: then no link can carry the data. */
  percentiles: string;
}
"#;

fn input_error(e: tail_lab_core::lab::empirical::parse::InputError) -> JsValue {
    let error = RangeError::new(&e.to_string());
    // The line (1-based, 0 for the whole text) for a page to point at.
    let _ = Reflect::set(&error, &"line".into(), &(e.line as f64).into());
    error.into()
}

fn knots_js(d: &EmpiricalDistribution) -> JsValue {
    object(&[
        ("levels", Float64Array::from(d.levels()).into()),
        ("ms", Float64Array::from(d.knot_ms()).into()),
    ])
}

/// Reads latencies in any of the formats the Lab knows (one per line, a CSV column, an
/// HdrHistogram percentile table, a Prometheus histogram, typed percentiles) and turns them into
/// a service model. A bad line is a `RangeError` whose message starts "line N:" and whose
/// `line` property is N.
#[wasm_bindgen(js_name = parseLatencies, unchecked_return_type = "ParsedLatencies")]
pub fn parse_latencies(
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ParseLatenciesOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let options = parse_options(&crate::api::read_options(PARSE_OPTIONS, &[], &opts)?);
    let bytes: Vec<u8> = if let Some(s) = text.as_string() {
        check_size(s.len()).map_err(input_error)?;
        s.into_bytes()
    } else if let Some(a) = text.dyn_ref::<js_sys::Uint8Array>() {
        check_size(a.length() as usize).map_err(input_error)?;
        a.to_vec()
    } else {
        return Err(wrong_type("text", "a string or a Uint8Array", &text));
    };
    let input = parse(&bytes, &options).map_err(input_error)?;
    drop(bytes);
    let (kind, count, points) = match &input.values {
        Values::Samples(s) => ("samples", s.len(), JsValue::NULL),
        Values::Points(p) => {
            let levels: Vec<f64> = p.iter().map(|(_, x)| x.level).collect();
            let ms: Vec<f64> = p.iter().map(|(_, x)| x.ms).collect();
            (
                "points",
                p.len(),
                object(&[
                    ("levels", Float64Array::from(&levels[..]).into()),
                    ("ms", Float64Array::from(&ms[..]).into()),
                ]),
            )
        }
    };
    let (format, unit, columns_read, column, skipped, series) = (
        input.format,
        input.unit,
        input.columns,
        input.column,
        input.skipped_lines,
        input.series,
    );
    let (column_count, column_guessed) = (input.column_count, input.column_guessed);
    let distribution = distribution_of(input.values).map_err(input_error)?;
    let model = measurable(distribution).map_err(input_error)?;
    let d = model.as_empirical().expect("an empirical model");
    let (min, max) = d.range_ms();
    let q = |p| d.quantile(p);
    // Empty when no summary reads back (the page then says the link cannot carry the data).
    let percentiles = summary(d).unwrap_or_default();
    let columns = js_sys::Array::new();
    for c in &columns_read {
        columns.push(&JsValue::from_str(c));
    }
    Ok(object(&[
        ("format", format.name().into()),
        ("unit", unit.name().into()),
        ("kind", kind.into()),
        ("count", (count as f64).into()),
        ("columns", columns.into()),
        (
            "column",
            column.map_or(JsValue::NULL, |c| ((c + 1) as f64).into()),
        ),
        ("columnCount", (column_count as f64).into()),
        ("columnGuessed", column_guessed.into()),
        ("skippedLines", (skipped as f64).into()),
        ("series", (series as f64).into()),
        ("points", points),
        ("service", object(&[("empirical", knots_js(d))])),
        (
            "summary",
            object(&[
                ("minMs", min.into()),
                ("p50Ms", q(0.5).into()),
                ("p90Ms", q(0.9).into()),
                ("p99Ms", q(0.99).into()),
                ("p999Ms", q(0.999).into()),
                ("maxMs", max.into()),
                ("meanMs", d.mean_ms().into()),
            ]),
        ),
        ("percentiles", percentiles.into()),
    ]))
}

/// The bundled example: 5,000 latencies (ms) of a cached service, one per line, with a comment
/// header.
#[wasm_bindgen(js_name = exampleLatencies)]
pub fn example_latencies() -> String {
    EXAMPLE.to_string()
}
