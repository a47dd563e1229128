//! Value stability: fixed addresses give fixed `f64`s, bit for bit.
//!
//! An accidental change of stream (hash constants, draw order inside a sample, table layout)
//! changes these and fails here. The vectors, and the functions that compute them, live in
//! `common/vectors.rs`, shared with the binding's wasm tests (node and Chromium) — which is
//! what makes "the same seed gives the same numbers natively, in node and in Chromium" a
//! tested claim.

use crate::common::vectors::*;
use tail_lab_core::sampling::address::SampleStream;

#[test]
fn addressed_bits_are_stable() {
    assert_eq!(
        SampleStream::at(1, tail_lab_core::tail::request::REQUEST_STREAM, 400, 7, 0).next_bits(),
        STREAM_BITS
    );
}

#[test]
fn leaf_samples_are_stable() {
    for (name, bits) in LEAF_BITS {
        for (&address, want) in LEAF_ADDRESSES.iter().zip(bits) {
            assert_eq!(leaf_bits_now(name, address), want, "{name} at {address:?}");
        }
    }
}

#[test]
fn a_paused_leaf_is_stable() {
    let (k, i, want) = PAUSED_LEAF;
    let got = leaf_bits_now("default", (1, k, i, 0));
    assert_eq!(got, want);
    assert!(f64::from_bits(got) > 40.0, "a pause, not the body");
}

#[test]
fn a_hedged_request_and_an_idle_hedge_are_stable() {
    assert_eq!(hedged_request_now(), HEDGED_REQUEST);
    assert_eq!(idle_hedge_now(), IDLE_HEDGE);
}

#[test]
fn an_idle_hedge_whose_backup_wins_is_stable() {
    // IDLE_HEDGE's request never sends its backup; this one does, and the backup wins.
    let got = idle_hedge_fired_now();
    assert_eq!(got, IDLE_HEDGE_FIRED);
    let (_, first, completion, work) = got;
    let delay = f64::from_bits(IDLE_HEDGE.0);
    let (first, completion, work) = (
        f64::from_bits(first),
        f64::from_bits(completion),
        f64::from_bits(work),
    );
    assert!(first > delay && completion < first);
    // The backup ran from the delay until it answered.
    assert!((completion - (delay + work)).abs() < 1e-12);
}

#[test]
fn a_long_run_of_every_model_is_stable() {
    // The same digests are asserted inside wasm in node and in Chromium
    // (crates/tail-lab-wasm/tests/api.rs).
    assert_eq!(model_digests_now(), MODEL_DIGESTS.to_vec());
}

#[test]
fn the_fields_added_since_are_stable() {
    // Asserted inside wasm too (crates/tail-lab-wasm/tests/api.rs).
    assert_eq!(added_field_digests_now(), ADDED_FIELD_DIGESTS.to_vec());
}
