//! One parent request (core `request`): `requestAt(k, cfg)`, and the Tail run's options read
//! from the core's declaration (`TailOptions`, core `tail::options`).

use crate::convert::{MAX_SAFE, integer, object, opt_number};
use crate::error::range;
use js_sys::{Float64Array, Uint8Array};
use std::cell::RefCell;
use tail_lab_core::tail::options::{Leaves, TAIL_OPTIONS, TailSettings};
use tail_lab_core::tail::request::{RequestTrace, TailModel};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TAIL_TS: &str = r#"
/** A leaf profile's name. */
export type ProfileName = "default" | "gc-pause" | "tight";
/** A mitigation's name. */
export type FixName = "none" | "hedge-p95" | "drop-1" | "drop-5";
/** A Tail run's options as the run holds them: `leaves` only on "yours". */
export interface TailRunConfig {
  fanout: number;
  profile: ProfileName | "yours";
  fix: FixName;
  seed: number | bigint;
  leaves?: EmpiricalServiceOptions;
}
/** A lognormal (ms). */
export interface LogNormal { medianMs: number; sigma: number; }
/** A leaf profile: a lognormal body plus, with `probability`, an additive pause. */
export interface Profile { name: ProfileName; label: string; body: LogNormal; pause: (LogNormal & { probability: number }) | null; }
export interface Mitigation { name: FixName; label: string; }
/** One parent request; per-leaf arrays are indexed by leaf. Times in ms. */
export interface RequestTrace {
  request: number;
  parentMs: number;
  /** The leaf the parent waited for. */
  waitedOn: number;
  /** The hedge delay, or null without a hedge. */
  hedgeDelayMs: number | null;
  leaves: {
    originalMs: Float64Array; resolvedMs: Float64Array;
    /** The duplicate's own latency; 0 where none was sent (see `hedged`). */
    retryMs: Float64Array;
    hedged: Uint8Array; won: Uint8Array; dropped: Uint8Array;
  };
}
/** What a run's hedges cost: fractions 0..1. */
export interface HedgeCost { extraRequests: number; extraWork: number; }
"#;

/// A seed as JS holds it exactly: a number up to 2^53 − 1, a bigint above.
pub fn seed_to_js(seed: u64) -> JsValue {
    if seed as f64 <= crate::convert::MAX_SAFE && seed <= 9_007_199_254_740_991 {
        (seed as f64).into()
    } else {
        js_sys::BigInt::from(seed).into()
    }
}

/// The settings `value` (a `TailOptions` object) makes: the options given, on top of `base`
/// when there is one (a run's `reconfigure`), else the declared defaults (core
/// `tail::options`).
pub fn settings(value: &JsValue, base: Option<&TailSettings>) -> Result<TailSettings, JsValue> {
    let o = crate::api::read_options(TAIL_OPTIONS.options, &[], value)?;
    TailSettings::read(&o, base).map_err(range)
}

/// `settings` as a plain object: `{ fanout, profile, fix, seed }`, and on "yours" `leaves`
/// (copies of the knots, `{ empirical: { levels, ms } }`).
pub fn settings_to_js(settings: &TailSettings) -> JsValue {
    let mut fields = vec![
        ("fanout", settings.fanout.into()),
        ("profile", settings.profile.name().into()),
        ("fix", settings.fix.into()),
        ("seed", seed_to_js(settings.seed)),
    ];
    if let Leaves::Yours(d) = &settings.profile {
        let knots = object(&[
            ("levels", Float64Array::from(d.levels()).into()),
            ("ms", Float64Array::from(d.knot_ms()).into()),
        ]);
        fields.push(("leaves", object(&[("empirical", knots)])));
    }
    object(&fields)
}

thread_local! {
    /// The last model the free functions used: calibration is memoized per profile and seed.
    static MODEL: RefCell<Option<TailModel>> = const { RefCell::new(None) };
}

/// Runs `f` on a model for `settings`, reusing the memoized calibration when it fits.
pub fn with_model<T>(
    settings: &TailSettings,
    f: impl FnOnce(&TailModel) -> T,
) -> Result<T, JsValue> {
    let config = settings.config().map_err(range)?;
    MODEL.with(|cell| {
        // Page code cannot run while the model is borrowed (options are read before, results
        // built without setters), but if it ever did, it gets an error, not a panic.
        let mut slot = cell.try_borrow_mut().map_err(|_| {
            JsValue::from(js_sys::Error::new(
                "tail-lab is busy: it was called again from inside one of its own calls",
            ))
        })?;
        let model = match slot.take() {
            Some(m) if *m.config() == config => m,
            Some(m) => m.with_config(config),
            None => TailModel::new(config),
        };
        let out = f(&model);
        *slot = Some(model);
        Ok(out)
    })
}

/// A request as a plain object with typed arrays per leaf:
/// `{ request, parentMs, waitedOn, hedgeDelayMs, leaves: { originalMs, resolvedMs, retryMs,
/// hedged, won, dropped } }` (`retryMs` is 0 where no duplicate was sent: see `hedged`).
pub fn trace_to_js(t: &RequestTrace) -> JsValue {
    let n = t.leaves.len();
    let mut original = Vec::with_capacity(n);
    let mut resolved = Vec::with_capacity(n);
    let mut retry = Vec::with_capacity(n);
    let (mut hedged, mut won, mut dropped) = (vec![0u8; n], vec![0u8; n], vec![0u8; n]);
    for (i, l) in t.leaves.iter().enumerate() {
        original.push(l.original_ms);
        resolved.push(l.resolved_ms);
        retry.push(l.hedge.map_or(0.0, |h| h.retry_ms));
        hedged[i] = u8::from(l.hedge.is_some());
        won[i] = u8::from(l.hedge.is_some_and(|h| h.won));
        dropped[i] = u8::from(l.dropped);
    }
    let leaves = object(&[
        ("originalMs", Float64Array::from(&original[..]).into()),
        ("resolvedMs", Float64Array::from(&resolved[..]).into()),
        ("retryMs", Float64Array::from(&retry[..]).into()),
        ("hedged", Uint8Array::from(&hedged[..]).into()),
        ("won", Uint8Array::from(&won[..]).into()),
        ("dropped", Uint8Array::from(&dropped[..]).into()),
    ]);
    object(&[
        ("request", (t.request as f64).into()),
        ("parentMs", t.parent_ms.into()),
        ("waitedOn", (t.waited_on as u32).into()),
        ("hedgeDelayMs", opt_number(t.hedge_delay_ms)),
        ("leaves", leaves),
    ])
}

/// Request `k` in full under `cfg` (`{ fanout, profile, fix, seed }`, all optional).
#[wasm_bindgen(js_name = requestAt, unchecked_return_type = "RequestTrace")]
pub fn request_at(
    #[wasm_bindgen(unchecked_param_type = "number")] k: JsValue,
    #[wasm_bindgen(unchecked_param_type = "TailOptions | undefined")] cfg: JsValue,
) -> Result<JsValue, JsValue> {
    let k = integer("k", &k, 0.0, MAX_SAFE, "an integer in 0..=2^53-1")? as u64;
    let settings = settings(&cfg, None)?;
    with_model(&settings, |m| trace_to_js(&m.request_at(k)))
}
