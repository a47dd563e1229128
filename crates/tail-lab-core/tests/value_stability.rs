//! Value stability: fixed addresses give fixed `f64`s, bit for bit.
//!
//! An accidental change of stream (hash constants, draw order inside a sample, table layout)
//! changes these and fails here. The vectors live in `common/vectors.rs`, shared with the
//! binding's wasm tests (node and Chromium) — which is what makes "the same seed gives the same
//! numbers natively, in node and in Chromium" a tested claim.

#[path = "common/vectors.rs"]
mod vectors;

use tail_lab_core::address::{SampleStream, Stream};
use tail_lab_core::hedge_idle::IdleHedge;
use tail_lab_core::mitigation::Mitigation;
use tail_lab_core::profile::{LeafSampler, ProfileId};
use tail_lab_core::request::{TailConfig, TailModel};
use tail_lab_core::service::ServiceModel;
use vectors::*;

#[test]
fn addressed_bits_are_stable() {
    assert_eq!(
        SampleStream::at(1, Stream::TailRequests, 400, 7, 0).next_bits(),
        STREAM_BITS
    );
}

#[test]
fn leaf_samples_are_stable() {
    for (name, bits) in LEAF_BITS {
        let sampler = LeafSampler::new(ProfileId::from_name(name).unwrap().profile());
        for (&(seed, k, i, a), want) in LEAF_ADDRESSES.iter().zip(bits) {
            let got = sampler.sample(SampleStream::at(seed, Stream::TailRequests, k, i, a));
            assert_eq!(
                got.to_bits(),
                want,
                "{name} at {:?}: {got}",
                (seed, k, i, a)
            );
        }
    }
}

#[test]
fn a_paused_leaf_is_stable() {
    let (k, i, want) = PAUSED_LEAF;
    let sampler = LeafSampler::new(ProfileId::Default.profile());
    let got = sampler.sample(SampleStream::at(1, Stream::TailRequests, k, i, 0));
    assert_eq!(got.to_bits(), want, "{got}");
    assert!(got > 40.0, "a pause, not the body: {got}");
}

#[test]
fn a_hedged_request_and_an_idle_hedge_are_stable() {
    let m = TailModel::with_calibration(
        TailConfig::new(
            100,
            ProfileId::Default.profile(),
            Mitigation::from_name("hedge-p95").unwrap(),
            3,
        )
        .unwrap(),
        1 << 16,
    );
    let r = m.request_at(17);
    let (delay, parent, waited) = HEDGED_REQUEST;
    assert_eq!(m.hedge_delay_ms().unwrap().to_bits(), delay);
    assert_eq!(r.parent_ms.to_bits(), parent);
    assert_eq!(r.waited_on, waited);
    let h = IdleHedge::new(ServiceModel::default(), 0.95, 11).unwrap();
    let o = h.request_at(12345);
    let (delay, first, completion) = IDLE_HEDGE;
    assert_eq!(h.delay_ms().to_bits(), delay);
    assert_eq!(o.first_ms.to_bits(), first);
    assert_eq!(o.completion_ms.to_bits(), completion);
}
