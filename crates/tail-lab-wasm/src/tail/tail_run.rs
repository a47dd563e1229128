//! The accumulating run (core `tail_run`): the `TailRun` class.

use crate::convert::{Options, count, integer, number, object, opt_number};
use crate::error::range;
use crate::tail::leaf_quantiles::level;
use crate::tail::request::{Settings, trace_to_js};
use js_sys::Float64Array;
use tail_lab_core::sampling::histogram::{BIN_COUNT, COUNTS_EXPECTED};
use tail_lab_core::tail::leaf_quantiles::STEP_DRAWS;
use tail_lab_core::tail::request::{ModelBuilder, TailModel};
use tail_lab_core::tail::tail_run::REQUESTS_PER_CALL;
use tail_lab_core::tail::tail_run::{RunBlock, TailRun};
use tail_lab_core::theory::FANOUT;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const BLOCK_TS: &str = r#"
/** What a run accumulated, to merge into another run of the same options (`absorb`). The
 * arrays are copies, so a worker can transfer their buffers. */
export interface RunBlock {
  /** The run's model (fan-out, profile, fix, seed, calibration) as 16 hex digits: a block
   * from a run with other settings is refused. */
  fingerprint: string;
  /** The requests it holds: `[first, end, first, end, …]`, sorted, disjoint half-open
   * ranges. A block whose requests the run already holds is refused. */
  ranges: Float64Array;
  /** One count per shared bin. */
  leafCounts: Float64Array;
  parentCounts: Float64Array;
  requests: number;
  hedges: number;
  primaryWorkMs: number;
  backupWorkMs: number;
}
"#;

const BLOCK_KEYS: &[&str] = &[
    "fingerprint",
    "ranges",
    "leafCounts",
    "parentCounts",
    "requests",
    "hedges",
    "primaryWorkMs",
    "backupWorkMs",
];

/// Parent requests accumulated into the leaf and parent histograms.
#[wasm_bindgen(js_name = TailRun)]
pub struct JsTailRun {
    run: TailRun,
    settings: Settings,
}

#[wasm_bindgen(js_class = TailRun)]
impl JsTailRun {
    /// `new TailRun({ fanout = 100, profile = "default", fix = "none", seed = 1 })`; with
    /// `profile: "yours"` and `leaves` (`parseLatencies(...).service`), every leaf draws from the
    /// reader's own latencies.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "TailOptions | undefined")] options: JsValue,
    ) -> Result<JsTailRun, JsValue> {
        let settings = Settings::read(&options, &Settings::default())?;
        Ok(JsTailRun {
            run: TailRun::new(settings.config()?),
            settings,
        })
    }

    /// Starts preparing a run in steps, so a page never blocks on the calibration (2^22 draws):
    /// `const b = TailRun.prepare(options); while (!b.step(1 << 18)) await nextTask();
    /// const run = b.finish();` gives the same run as `new TailRun(options)`.
    pub fn prepare(
        #[wasm_bindgen(unchecked_param_type = "TailOptions | undefined")] options: JsValue,
    ) -> Result<JsTailRunBuilder, JsValue> {
        let settings = Settings::read(&options, &Settings::default())?;
        Ok(JsTailRunBuilder {
            builder: Some(TailModel::builder(settings.config()?)),
            settings,
        })
    }

    /// Changes any of `{ fanout, profile, fix, seed, leaves }` and starts again from request 0.
    /// Calibration is reused when profile and seed are unchanged, so this is cheap for the
    /// fan-out slider and the fix picker.
    pub fn reconfigure(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "TailOptions")] options: JsValue,
    ) -> Result<(), JsValue> {
        let settings = Settings::read(&options, &self.settings)?;
        self.run.reconfigure(settings.config()?);
        self.settings = settings;
        Ok(())
    }

    /// The current options as a plain object.
    #[wasm_bindgen(getter, unchecked_return_type = "TailRunConfig")]
    pub fn config(&self) -> JsValue {
        self.settings.to_js()
    }

    /// Simulates `requests` (an integer in 0..=10^7) more parent requests.
    pub fn run(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] requests: JsValue,
    ) -> Result<(), JsValue> {
        let n = count("requests", &requests, &REQUESTS_PER_CALL)?;
        crate::convert::check_work(
            "requests × fanout",
            n as f64 * f64::from(self.settings.fanout),
        )?;
        self.run.run(n).map_err(range)
    }

    /// Simulates requests `first..first + count` (count in 0..=10^7) and adds them to this run:
    /// how a worker runs its share. Samples are addressed, so the ranges can go anywhere.
    #[wasm_bindgen(js_name = runRange)]
    pub fn run_range(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] first: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] count: JsValue,
    ) -> Result<(), JsValue> {
        let first = integer(
            "first",
            &first,
            0.0,
            crate::convert::MAX_SAFE,
            "an integer in 0..=2^53-1",
        )?;
        let n = crate::convert::count("count", &count, &REQUESTS_PER_CALL)?;
        crate::convert::check_work("count × fanout", n as f64 * f64::from(self.settings.fanout))?;
        self.run.run_range(first as u64, n).map_err(range)
    }

    /// What this run has accumulated, as copies a worker can transfer (see `absorb`).
    #[wasm_bindgen(unchecked_return_type = "RunBlock")]
    pub fn block(&self) -> JsValue {
        let b = self.run.block();
        let ranges: Vec<f64> = b
            .ranges
            .iter()
            .flat_map(|&(first, end)| [first as f64, end as f64])
            .collect();
        object(&[
            ("fingerprint", format!("{:016x}", b.fingerprint).into()),
            ("ranges", Float64Array::from(&ranges[..]).into()),
            ("leafCounts", Float64Array::from(&b.leaf_counts[..]).into()),
            (
                "parentCounts",
                Float64Array::from(&b.parent_counts[..]).into(),
            ),
            ("requests", (b.requests as f64).into()),
            ("hedges", (b.hedges as f64).into()),
            ("primaryWorkMs", b.primary_work_ms.into()),
            ("backupWorkMs", b.backup_work_ms.into()),
        ])
    }

    /// Adds a block from another run of the same options (a worker's) to this one. The merged
    /// histograms are exact in any order; merge blocks in a fixed order and the hedge work sums
    /// are fixed to the bit too. A block from a run with other settings, one whose requests
    /// this run already holds (merged twice), or one that is not whole or could not have come
    /// from simulating its requests (counts that are not whole or do not add up, more hedges
    /// than leaves, work sums out of what its leaves could take) is a `RangeError`/`TypeError`
    /// and changes nothing.
    pub fn absorb(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "RunBlock")] block: JsValue,
    ) -> Result<(), JsValue> {
        let o = Options::read("block", &block, BLOCK_KEYS)?;
        let counts = |key: &'static str| -> Result<Vec<f64>, JsValue> {
            let v = o.get(key).unwrap_or(JsValue::UNDEFINED);
            crate::convert::float64_values(key, &v, COUNTS_EXPECTED, |n| {
                if n == BIN_COUNT as f64 {
                    Ok(BIN_COUNT)
                } else {
                    Err(js_sys::RangeError::new(&format!(
                        "{key} must hold {BIN_COUNT} counts (got {n})"
                    ))
                    .into())
                }
            })
        };
        let whole = |key: &'static str| -> Result<f64, JsValue> {
            let v = o.get(key).unwrap_or(JsValue::UNDEFINED);
            integer(
                key,
                &v,
                0.0,
                crate::convert::MAX_SAFE,
                "an integer in 0..=2^53-1",
            )
        };
        let ms = |key: &'static str| -> Result<f64, JsValue> {
            number(key, &o.get(key).unwrap_or(JsValue::UNDEFINED))
        };
        let fingerprint = o
            .get("fingerprint")
            .and_then(|v| v.as_string())
            .filter(|t| t.len() == 16)
            .and_then(|t| u64::from_str_radix(&t, 16).ok())
            .ok_or_else(|| {
                crate::error::wrong_type(
                    "fingerprint",
                    "16 hex digits from TailRun.block()",
                    &o.get("fingerprint").unwrap_or(JsValue::UNDEFINED),
                )
            })?;
        let ranges = {
            let v = o.get("ranges").unwrap_or(JsValue::UNDEFINED);
            let max = 2 * tail_lab_core::tail::tail_run::MAX_BLOCK_RANGES;
            let values = crate::convert::float64_values(
                "ranges",
                &v,
                "a Float64Array of [first, end] pairs",
                |n| {
                    if n.fract() == 0.0 && n >= 0.0 && n <= max as f64 && n % 2.0 == 0.0 {
                        Ok(n as usize)
                    } else {
                        Err(js_sys::RangeError::new(&format!(
                            "ranges must hold an even number of values, at most {max} (got {n})"
                        ))
                        .into())
                    }
                },
            )?;
            let mut pairs = Vec::with_capacity(values.len() / 2);
            for pair in values.chunks_exact(2) {
                for &x in pair {
                    if !(x.is_finite()
                        && x >= 0.0
                        && x.fract() == 0.0
                        && x <= crate::convert::MAX_SAFE + 1.0)
                    {
                        return Err(range(tail_lab_core::ParamError::OutOfRange {
                            param: "ranges",
                            got: x,
                            expected: "whole request numbers in 0..=2^53",
                        }));
                    }
                }
                pairs.push((pair[0] as u64, pair[1] as u64));
            }
            pairs
        };
        let block = RunBlock {
            fingerprint,
            ranges,
            leaf_counts: counts("leafCounts")?,
            parent_counts: counts("parentCounts")?,
            requests: whole("requests")? as u64,
            hedges: whole("hedges")? as u64,
            primary_work_ms: ms("primaryWorkMs")?,
            backup_work_ms: ms("backupWorkMs")?,
        };
        self.run.absorb(&block).map_err(range)
    }

    /// Parent requests simulated so far.
    #[wasm_bindgen(getter)]
    pub fn requests(&self) -> f64 {
        self.run.requests() as f64
    }

    /// Leaf counts per shared bin: a `Float64Array` *view* over wasm memory. Valid until the
    /// next call into the module; fetch it again every frame.
    #[wasm_bindgen(js_name = leafBins)]
    pub fn leaf_bins(&self) -> Float64Array {
        // SAFETY: the view is handed straight to JS and documented as invalid after the next
        // call into wasm (which may grow memory or mutate the counts).
        unsafe { Float64Array::view(self.run.leaf_histogram().counts()) }
    }

    /// Parent counts per shared bin: a view like [`JsTailRun::leaf_bins`].
    #[wasm_bindgen(js_name = parentBins)]
    pub fn parent_bins(&self) -> Float64Array {
        // SAFETY: as for `leaf_bins`.
        unsafe { Float64Array::view(self.run.parent_histogram().counts()) }
    }

    /// Leaf `q`-quantile (ms) of the accumulated histogram; `null` before the first request.
    #[wasm_bindgen(js_name = leafPercentile, unchecked_return_type = "number | null")]
    pub fn leaf_percentile(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] q: JsValue,
    ) -> Result<JsValue, JsValue> {
        let p = self.run.leaf_percentile(level("q", &q)?).map_err(range)?;
        Ok(self.once_run(p))
    }

    /// Parent `q`-quantile (ms) of the accumulated histogram; `null` before the first request.
    #[wasm_bindgen(js_name = parentPercentile, unchecked_return_type = "number | null")]
    pub fn parent_percentile(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] q: JsValue,
    ) -> Result<JsValue, JsValue> {
        let p = self.run.parent_percentile(level("q", &q)?).map_err(range)?;
        Ok(self.once_run(p))
    }

    /// The measured leaf `q`-quantile (ms), from the calibration draws.
    #[wasm_bindgen(js_name = leafQuantile)]
    pub fn leaf_quantile(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] q: JsValue,
    ) -> Result<f64, JsValue> {
        self.run
            .model()
            .leaf_quantiles()
            .quantile(level("q", &q)?)
            .map_err(range)
    }

    /// The parent `q`-quantile (ms) at every fan-out `1..=maxFanout` (≤ 1024), from `F(t)^n`
    /// on the measured leaves: index `n − 1`. Unaffected by the fix.
    #[wasm_bindgen(js_name = fanoutCurve)]
    pub fn fanout_curve(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] q: JsValue,
        #[wasm_bindgen(js_name = maxFanout, unchecked_param_type = "number")] max_fanout: JsValue,
    ) -> Result<Float64Array, JsValue> {
        let q = level("q", &q)?;
        let n = count("maxFanout", &max_fanout, &FANOUT)? as u32;
        let curve = self
            .run
            .model()
            .leaf_quantiles()
            .parent_curve(q, n)
            .map_err(range)?;
        Ok(Float64Array::from(&curve[..]))
    }

    /// The latest request the run holds, in full (request 0 before any has run): after
    /// `runRange(1000, 5)`, request 1004.
    #[wasm_bindgen(js_name = lastRequest, unchecked_return_type = "RequestTrace")]
    pub fn last_request(&self) -> JsValue {
        trace_to_js(&self.run.last_request())
    }

    /// Request `k` in full under this run's configuration.
    #[wasm_bindgen(js_name = requestAt, unchecked_return_type = "RequestTrace")]
    pub fn request_at(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] k: JsValue,
    ) -> Result<JsValue, JsValue> {
        let k = integer(
            "k",
            &k,
            0.0,
            crate::convert::MAX_SAFE,
            "an integer in 0..=2^53-1",
        )?;
        Ok(trace_to_js(&self.run.request_at(k as u64)))
    }

    /// What the hedges cost so far: `{ extraRequests, extraWork }` (fractions 0..1).
    #[wasm_bindgen(js_name = hedgeCost, unchecked_return_type = "HedgeCost")]
    pub fn hedge_cost(&self) -> JsValue {
        let c = self.run.hedge_cost();
        object(&[
            ("extraRequests", c.extra_requests.into()),
            ("extraWork", c.extra_work.into()),
        ])
    }

    /// The hedge delay (ms), or `null` when the fix does not hedge.
    #[wasm_bindgen(getter, js_name = hedgeDelayMs, unchecked_return_type = "number | null")]
    pub fn hedge_delay_ms(&self) -> JsValue {
        opt_number(self.run.model().hedge_delay_ms())
    }

    /// Clears the histograms and starts again from request 0.
    pub fn reset(&mut self) {
        self.run.reset();
    }
}

impl JsTailRun {
    /// `x` once a request has run, `null` before (a percentile of nothing is not a number).
    fn once_run(&self, x: f64) -> JsValue {
        opt_number((self.run.requests() > 0).then_some(x))
    }
}

/// A `TailRun` being prepared a step at a time (see `TailRun.prepare`).
#[wasm_bindgen(js_name = TailRunBuilder)]
pub struct JsTailRunBuilder {
    builder: Option<ModelBuilder>,
    settings: Settings,
}

#[wasm_bindgen(js_class = TailRunBuilder)]
impl JsTailRunBuilder {
    /// Takes up to `draws` (1..=2^22) more calibration draws; true once the run is ready.
    pub fn step(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] draws: JsValue,
    ) -> Result<bool, JsValue> {
        let draws = count("draws", &draws, &STEP_DRAWS)?;
        let b = self.builder.as_mut().ok_or_else(finished)?;
        Ok(b.step(draws))
    }

    /// The fraction (0..=1) of the calibration done.
    #[wasm_bindgen(getter)]
    pub fn progress(&self) -> f64 {
        self.builder.as_ref().map_or(1.0, ModelBuilder::progress)
    }

    /// The run (finishing the calibration first if steps are left). A builder gives one run.
    pub fn finish(&mut self) -> Result<JsTailRun, JsValue> {
        let b = self.builder.take().ok_or_else(finished)?;
        Ok(JsTailRun {
            run: TailRun::from_model(b.finish()),
            settings: self.settings.clone(),
        })
    }
}

fn finished() -> JsValue {
    js_sys::Error::new("this TailRunBuilder has already given its run").into()
}
