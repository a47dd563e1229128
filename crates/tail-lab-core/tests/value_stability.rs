//! Value stability: fixed addresses give fixed `f64`s, bit for bit.
//!
//! An accidental change of stream (hash constants, draw order inside a sample, table layout)
//! changes these and fails here. An intended change: run
//! `cargo run --release -p tail-lab-core --example print_vectors`, review, and update. The same
//! vectors are checked inside wasm by the binding crate's tests, which is what makes "the same
//! seed gives the same numbers natively, in node and in Chromium" a tested claim.

use tail_lab_core::address::{SampleStream, Stream};
use tail_lab_core::hedge_idle::IdleHedge;
use tail_lab_core::mitigation::Mitigation;
use tail_lab_core::profile::{LeafSampler, ProfileId};
use tail_lab_core::request::{TailConfig, TailModel};
use tail_lab_core::service::ServiceModel;

/// (seed, request, leaf, attempt) addresses the leaf vectors are taken at.
const ADDRESSES: [(u64, u64, u32, u32); 4] = [
    (1, 0, 0, 0),
    (1, 400, 7, 0),
    (42, 123_456, 99, 1),
    (7, 3, 255, 0),
];

#[test]
fn addressed_bits_are_stable() {
    assert_eq!(
        SampleStream::at(1, Stream::TailRequests, 400, 7, 0).next_bits(),
        0xce3a_c0fb_3500_8b7b
    );
}

#[test]
fn leaf_samples_are_stable() {
    let expected: [(ProfileId, [u64; 4]); 3] = [
        (
            ProfileId::Default,
            [
                0x4018f3196cecb919,
                0x400c414b3eb01a59,
                0x401155da6aa5b97c,
                0x40195f898308d2ba,
            ],
        ),
        (
            ProfileId::GcPause,
            [
                0x4014b72e43058405,
                0x400dc424ce245853,
                0x4010c368e9e4e7ec,
                0x4014eb5769bd2f57,
            ],
        ),
        (
            ProfileId::Tight,
            [
                0x401480abcf1ed468,
                0x400dda3b71d1469a,
                0x4010bb6ad38fa6a3,
                0x4014b2389277ef90,
            ],
        ),
    ];
    for (profile, bits) in expected {
        let sampler = LeafSampler::new(profile.profile());
        for (&(seed, k, i, a), want) in ADDRESSES.iter().zip(bits) {
            let got = sampler.sample(SampleStream::at(seed, Stream::TailRequests, k, i, a));
            assert_eq!(
                got.to_bits(),
                want,
                "{profile:?} at {:?}: {got}",
                (seed, k, i, a)
            );
        }
    }
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
    assert_eq!(m.hedge_delay_ms().unwrap().to_bits(), 0x402082c356abccde);
    assert_eq!(r.parent_ms.to_bits(), 0x4025601ee3741e06);
    assert_eq!(r.waited_on, 35);
    let h = IdleHedge::new(ServiceModel::default(), 0.95, 11).unwrap();
    let o = h.request_at(12345);
    assert_eq!(h.delay_ms().to_bits(), 0x40326bc993ab7cac);
    assert_eq!(o.first_ms.to_bits(), 0x402131faf158f9c9);
    assert_eq!(o.completion_ms.to_bits(), 0x402131faf158f9c9);
}
