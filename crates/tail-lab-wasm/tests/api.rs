//! The binding inside wasm, run by `wasm-pack test` in node and (with
//! `WASM_BINDGEN_USE_BROWSER=1`) in headless Chromium.
//!
//! The value vectors are the ones `tail-lab-core/tests/it/common/vectors.rs` pins natively: equal
//! bits here prove the same seed gives the same numbers natively, in node and in Chromium.
#![cfg(target_arch = "wasm32")]

#[path = "../../tail-lab-core/tests/it/common/vectors.rs"]
mod vectors;

use js_sys::{Object, RangeError, Reflect, TypeError};
use tail_lab_wasm::{JsTailRun, crossover, leaf_sample, slow_share};
use vectors::{
    ADDED_FIELD_DIGESTS, HEDGED_REQUEST, IDLE_HEDGE, IDLE_HEDGE_FIRED, LEAF_ADDRESSES, LEAF_BITS,
    MODEL_DIGESTS, PAUSED_LEAF,
};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn js(x: f64) -> JsValue {
    JsValue::from_f64(x)
}

#[wasm_bindgen_test]
fn leaf_samples_have_the_native_bits() {
    for (profile, bits) in LEAF_BITS {
        for (&(s, k, i, a), want) in LEAF_ADDRESSES.iter().zip(bits) {
            let got = leaf_sample(
                js(s as f64),
                js(k as f64),
                js(f64::from(i)),
                js(f64::from(a)),
                JsValue::from_str(profile),
            )
            .unwrap();
            assert_eq!(got.to_bits(), want, "{profile} at {:?}", (s, k, i, a));
        }
    }
}

#[wasm_bindgen_test]
fn a_paused_leaf_has_the_native_bits() {
    let (k, i, want) = PAUSED_LEAF;
    let got = leaf_sample(
        js(1.0),
        js(k as f64),
        js(f64::from(i)),
        js(0.0),
        "default".into(),
    );
    assert_eq!(got.unwrap().to_bits(), want);
}

#[wasm_bindgen_test]
fn hedged_request_and_idle_hedge_have_the_native_bits() {
    // The core itself, compiled to wasm: the same functions the native test runs.
    assert_eq!(vectors::hedged_request_now(), HEDGED_REQUEST);
    assert_eq!(vectors::idle_hedge_now(), IDLE_HEDGE);
    assert_eq!(vectors::idle_hedge_fired_now(), IDLE_HEDGE_FIRED);
}

#[wasm_bindgen_test]
fn a_long_run_of_every_model_has_the_native_digest() {
    assert_eq!(vectors::model_digests_now(), MODEL_DIGESTS.to_vec());
}

#[wasm_bindgen_test]
fn the_fields_added_since_have_the_native_digest() {
    assert_eq!(
        vectors::added_field_digests_now(),
        ADDED_FIELD_DIGESTS.to_vec()
    );
}

#[wasm_bindgen_test]
fn closed_forms_cross_the_boundary() {
    assert!((slow_share(js(0.01), js(100.0)).unwrap() - 0.634).abs() < 5e-4);
    assert_eq!(crossover(js(0.5), js(0.99)).unwrap(), 69.0);
}

fn message(e: &JsValue) -> String {
    Reflect::get(e, &JsValue::from_str("message"))
        .unwrap()
        .as_string()
        .unwrap()
}

#[wasm_bindgen_test]
fn bad_arguments_throw_named_js_errors_not_traps() {
    let e = slow_share(JsValue::from_str("x"), js(3.0)).unwrap_err();
    assert!(e.is_instance_of::<TypeError>());
    assert!(message(&e).starts_with("p must be a number"));
    let e = slow_share(js(f64::NAN), js(3.0)).unwrap_err();
    assert!(e.is_instance_of::<RangeError>() && message(&e).starts_with("p must be"));
    let e = slow_share(js(0.1), js(0.0)).unwrap_err();
    assert!(e.is_instance_of::<RangeError>() && message(&e).contains("1..=1024"));
    let opts = Object::new();
    Reflect::set(&opts, &"profile".into(), &"fast".into()).unwrap();
    let e = JsTailRun::new(opts.into()).err().unwrap();
    assert!(e.is_instance_of::<RangeError>() && message(&e).contains("\"gc-pause\""));
    let e = JsTailRun::new(js(3.0)).err().unwrap();
    assert!(e.is_instance_of::<TypeError>() && message(&e).starts_with("options"));
    let e = leaf_sample(js(-1.0), js(0.0), js(0.0), js(0.0), "default".into()).unwrap_err();
    assert!(e.is_instance_of::<RangeError>() && message(&e).starts_with("seed"));
}

#[wasm_bindgen_test]
fn a_run_accumulates_into_views_over_wasm_memory() {
    let opts = Object::new();
    Reflect::set(&opts, &"fanout".into(), &js(8.0)).unwrap();
    let mut run = JsTailRun::new(opts.into()).unwrap();
    run.run(js(1000.0)).unwrap();
    assert_eq!(run.requests(), 1000.0);
    let leaves = run.leaf_bins();
    assert_eq!(leaves.length(), 840);
    assert_eq!(leaves.to_vec().iter().sum::<f64>(), 8000.0);
    assert_eq!(run.parent_bins().to_vec().iter().sum::<f64>(), 1000.0);
    assert!(
        run.run(js(-1.0))
            .unwrap_err()
            .is_instance_of::<RangeError>()
    );
    run.reset();
    // Before any request there is no percentile: null, never NaN.
    assert!(run.parent_percentile(js(0.5)).unwrap().is_null());
}
