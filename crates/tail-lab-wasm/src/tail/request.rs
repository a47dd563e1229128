//! One parent request (core `request`): the `{ fanout, profile, fix, seed, leaves }` options
//! and `requestAt(k, cfg)`.

use crate::convert::{MAX_SAFE, Options, count, integer, object, opt_number, seed, string};
use crate::error::range;
use crate::tail::mitigation::fix;
use js_sys::{Float64Array, Uint8Array};
use std::cell::RefCell;
use std::sync::Arc;
use tail_lab_core::ParamError;
use tail_lab_core::sampling::empirical::EmpiricalDistribution;
use tail_lab_core::tail::mitigation::Mitigation;
use tail_lab_core::tail::profile::{LeafProfile, ProfileId};
use tail_lab_core::tail::request::{RequestTrace, TailConfig, TailModel};
use tail_lab_core::theory::FANOUT;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TAIL_TS: &str = r#"
/** A leaf profile's name. */
export type ProfileName = "default" | "gc-pause" | "tight";
/** A mitigation's name. */
export type FixName = "none" | "hedge-p95" | "drop-1" | "drop-5";
/** The options of a Tail run, each optional. */
export interface TailOptions {
  /** Leaves per parent request, 1..=1024. Default 100. */
  fanout?: number;
  /** A preset, or "yours": every leaf draws from `leaves`, your own latencies. */
  profile?: ProfileName | "yours";
  fix?: FixName;
  seed?: number | bigint;
  /** Your own latencies (`parseLatencies(...).service`), with `profile: "yours"` and only then.
   * A run already on "yours" takes new `leaves` without `profile`. */
  leaves?: EmpiricalServiceOptions;
}
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

/// Where a run's leaves draw from: a preset, or the reader's own latencies.
#[derive(Debug, Clone, PartialEq)]
pub enum Leaves {
    /// A named preset.
    Preset(ProfileId),
    /// `profile: "yours"` with `leaves`: the reader's distribution.
    Yours(Arc<EmpiricalDistribution>),
}

impl Leaves {
    /// The core's profile.
    pub fn profile(&self) -> LeafProfile {
        match self {
            Leaves::Preset(id) => id.profile(),
            Leaves::Yours(d) => LeafProfile::empirical(Arc::clone(d)),
        }
    }

    /// The name JS gives it.
    pub fn name(&self) -> &'static str {
        match self {
            Leaves::Preset(id) => id.name(),
            Leaves::Yours(_) => YOURS,
        }
    }
}

/// The profile name of a reader's own latencies.
pub const YOURS: &str = "yours";

/// `leaves`: a reader's latencies as the Lab's `service` reader takes them (`{ empirical: {
/// levels, ms } }`), with its errors naming `leaves` instead of `service`.
fn read_leaves(v: &JsValue) -> Result<Arc<EmpiricalDistribution>, JsValue> {
    let model = crate::api::service(Some(v.clone())).map_err(|e| renamed_error(&e))?;
    model.as_empirical().cloned().ok_or_else(|| {
        js_sys::TypeError::new(
            "leaves must be your own latencies, { empirical: { levels, ms } } as \
             parseLatencies(...).service gives them (a lognormal body is a preset profile)",
        )
        .into()
    })
}

/// The same error, of the same class, with its first `service` said as `leaves`.
fn renamed_error(e: &JsValue) -> JsValue {
    let Some(err) = e.dyn_ref::<js_sys::Error>() else {
        return e.clone();
    };
    let message = String::from(err.message()).replacen("service", "leaves", 1);
    if e.is_instance_of::<js_sys::RangeError>() {
        js_sys::RangeError::new(&message).into()
    } else {
        js_sys::TypeError::new(&message).into()
    }
}

/// The options of a Tail run, with their names as JS spells them.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Leaves per parent (1..=1024; the page offers 1..=256).
    pub fanout: u32,
    /// Profile preset, or the reader's own latencies.
    pub profile: Leaves,
    /// Mitigation preset name.
    pub fix: String,
    /// Seed.
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            fanout: 100,
            profile: Leaves::Preset(ProfileId::Default),
            fix: "none".into(),
            seed: 1,
        }
    }
}

impl Settings {
    /// Reads `{ fanout, profile, fix, seed, leaves }`, each optional, on top of `base`.
    /// `leaves` goes with `profile: "yours"` (or on top of a base already on it); `"yours"`
    /// without leaves to keep, or `leaves` with a preset, is a `TypeError` naming `leaves`.
    pub fn read(value: &JsValue, base: &Settings) -> Result<Settings, JsValue> {
        let o = Options::read(
            "options",
            value,
            &["fanout", "profile", "fix", "seed", "leaves"],
        )?;
        let mut s = base.clone();
        s.fanout = o.optional("fanout", s.fanout, |v| {
            count("fanout", v, &FANOUT).map(|n| n as u32)
        })?;
        let name = o
            .get("profile")
            .map(|v| string("profile", &v))
            .transpose()?;
        let leaves = o.get("leaves").map(|v| read_leaves(&v)).transpose()?;
        let type_error = |m: &str| -> JsValue { js_sys::TypeError::new(m).into() };
        s.profile = match (name.as_deref(), leaves) {
            (Some(YOURS), Some(d)) => Leaves::Yours(d),
            (None, Some(d)) => match base.profile {
                Leaves::Yours(_) => Leaves::Yours(d),
                Leaves::Preset(_) => {
                    return Err(type_error(
                        "leaves needs profile: \"yours\" (the run's profile is a preset)",
                    ));
                }
            },
            (Some(YOURS), None) => match &base.profile {
                Leaves::Yours(d) => Leaves::Yours(Arc::clone(d)),
                Leaves::Preset(_) => {
                    return Err(type_error(
                        "leaves is required with profile \"yours\": your latencies as \
                         { empirical: { levels, ms } } (parseLatencies(...).service)",
                    ));
                }
            },
            (Some(preset), Some(_)) => {
                return Err(type_error(&format!(
                    "leaves is only for profile \"yours\" (got profile {})",
                    tail_lab_core::error::echoed(preset)
                )));
            }
            (Some(preset), None) => Leaves::Preset(ProfileId::from_name(preset).map_err(|_| {
                range(ParamError::UnknownName {
                    param: "profile",
                    got: preset.to_string(),
                    expected: "\"default\", \"gc-pause\", \"tight\", \"yours\" (with leaves)",
                })
            })?),
            (None, None) => s.profile,
        };
        s.fix = o.optional("fix", s.fix, |v| {
            fix(v)?;
            string("fix", v)
        })?;
        s.seed = o.optional("seed", s.seed, |v| seed("seed", v))?;
        Ok(s)
    }

    /// The core configuration.
    pub fn config(&self) -> Result<TailConfig, JsValue> {
        let m = Mitigation::from_name(&self.fix).map_err(range)?;
        TailConfig::new(self.fanout, self.profile.profile(), m, self.seed).map_err(range)
    }

    /// As a plain object: `{ fanout, profile, fix, seed }`, and on "yours" `leaves` (copies of
    /// the knots, `{ empirical: { levels, ms } }`).
    pub fn to_js(&self) -> JsValue {
        let mut fields = vec![
            ("fanout", self.fanout.into()),
            ("profile", self.profile.name().into()),
            ("fix", self.fix.as_str().into()),
            ("seed", seed_to_js(self.seed)),
        ];
        if let Leaves::Yours(d) = &self.profile {
            let knots = object(&[
                ("levels", Float64Array::from(d.levels()).into()),
                ("ms", Float64Array::from(d.knot_ms()).into()),
            ]);
            fields.push(("leaves", object(&[("empirical", knots)])));
        }
        object(&fields)
    }
}

thread_local! {
    /// The last model the free functions used: calibration is memoized per profile and seed.
    static MODEL: RefCell<Option<TailModel>> = const { RefCell::new(None) };
}

/// Runs `f` on a model for `settings`, reusing the memoized calibration when it fits.
pub fn with_model<T>(settings: &Settings, f: impl FnOnce(&TailModel) -> T) -> Result<T, JsValue> {
    let config = settings.config()?;
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
    let settings = Settings::read(&cfg, &Settings::default())?;
    with_model(&settings, |m| trace_to_js(&m.request_at(k)))
}
