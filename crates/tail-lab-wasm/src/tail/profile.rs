//! Leaf profiles (core `profile`): `profiles()` and `leafSample()`.

use crate::convert::{MAX_SAFE, integer, object, seed, string};
use crate::error::range;
use js_sys::Array;
use tail_lab_core::sampling::address::SampleStream;
use tail_lab_core::tail::profile::{LeafSampler, ProfileId};
use wasm_bindgen::prelude::*;

/// Parses a profile name.
pub fn profile_id(v: &JsValue) -> Result<ProfileId, JsValue> {
    ProfileId::from_name(&string("profile", v)?).map_err(range)
}

/// The leaf profiles: `[{ name, label, body: { medianMs, sigma }, pause: { probability,
/// medianMs, sigma } | null }]`.
#[wasm_bindgen(unchecked_return_type = "Profile[]")]
pub fn profiles() -> Array {
    ProfileId::ALL
        .iter()
        .map(|&id| {
            let p = id.profile();
            let ln = |m: f64, s: f64| object(&[("medianMs", m.into()), ("sigma", s.into())]);
            let pause = p.pause().map(|x| {
                object(&[
                    ("probability", x.probability().into()),
                    ("medianMs", x.duration().median_ms().into()),
                    ("sigma", x.duration().sigma().into()),
                ])
            });
            object(&[
                ("name", id.name().into()),
                ("label", id.label().into()),
                ("body", {
                    let body = p.body().expect("a preset has a lognormal body");
                    ln(body.median_ms(), body.sigma())
                }),
                ("pause", pause.unwrap_or(JsValue::NULL)),
            ])
        })
        .collect()
}

/// The latency (ms) of attempt `attempt` at leaf `i` of request `k` under `seed`, for a
/// profile name: a pure function of its arguments.
#[wasm_bindgen(js_name = leafSample)]
pub fn leaf_sample(
    #[wasm_bindgen(js_name = seed, unchecked_param_type = "number | bigint")] seed_value: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] k: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] i: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] attempt: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ProfileName")] profile: JsValue,
) -> Result<f64, JsValue> {
    let seed = seed("seed", &seed_value)?;
    let k = integer("k", &k, 0.0, MAX_SAFE, "an integer in 0..=2^53-1")? as u64;
    let i = integer("i", &i, 0.0, 4_294_967_295.0, "an integer in 0..=2^32-1")? as u32;
    let a = integer(
        "attempt",
        &attempt,
        0.0,
        4_294_967_295.0,
        "an integer in 0..=2^32-1",
    )? as u32;
    let id = profile_id(&profile)?;
    thread_local! {
        static SAMPLERS: Vec<LeafSampler> =
            ProfileId::ALL.iter().map(|p| LeafSampler::new(p.profile())).collect();
    }
    let index = ProfileId::ALL
        .iter()
        .position(|&p| p == id)
        .expect("known profile");
    Ok(SAMPLERS.with(|s| {
        s[index].sample(SampleStream::at(
            seed,
            tail_lab_core::tail::request::REQUEST_STREAM,
            k,
            i,
            a,
        ))
    }))
}
