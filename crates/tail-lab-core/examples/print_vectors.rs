//! Prints what the code produces now at the addresses pinned in `tests/common/vectors.rs`
//! (run it after an intended change of stream, review the diff, then update that file).

#[path = "../tests/common/vectors.rs"]
mod vectors;

use tail_lab_core::address::{SampleStream, Stream};
use tail_lab_core::hedge_idle::IdleHedge;
use tail_lab_core::mitigation::Mitigation;
use tail_lab_core::profile::{LeafSampler, ProfileId};
use tail_lab_core::request::{TailConfig, TailModel};
use tail_lab_core::service::ServiceModel;

fn hex(x: f64) -> String {
    format!("{:#018x}", x.to_bits())
}

fn main() {
    let bits = SampleStream::at(1, Stream::TailRequests, 400, 7, 0).next_bits();
    println!("STREAM_BITS: {bits:#018x}");
    for p in ProfileId::ALL {
        let s = LeafSampler::new(p.profile());
        let v: Vec<String> = vectors::LEAF_ADDRESSES
            .iter()
            .map(|&(seed, k, i, a)| {
                hex(s.sample(SampleStream::at(seed, Stream::TailRequests, k, i, a)))
            })
            .collect();
        println!("LEAF_BITS {}: {}", p.name(), v.join(", "));
    }
    // The first paused leaf (default profile, seed 1, attempt 0), so the pause path is pinned.
    let s = LeafSampler::new(ProfileId::Default.profile());
    let (k, i, t) = (0u64..)
        .flat_map(|k| (0..100u32).map(move |i| (k, i)))
        .map(|(k, i)| {
            (
                k,
                i,
                s.sample(SampleStream::at(1, Stream::TailRequests, k, i, 0)),
            )
        })
        .find(|&(_, _, t)| t > 40.0)
        .expect("a pause occurs");
    println!("PAUSED_LEAF: ({k}, {i}, {})", hex(t));
    let cfg = TailConfig::new(
        100,
        ProfileId::Default.profile(),
        Mitigation::from_name("hedge-p95").unwrap(),
        3,
    );
    let m = TailModel::with_calibration(cfg.unwrap(), 1 << 16);
    let r = m.request_at(17);
    println!(
        "HEDGED_REQUEST: {}, {}, {}",
        hex(m.hedge_delay_ms().unwrap()),
        hex(r.parent_ms),
        r.waited_on
    );
    let h = IdleHedge::new(ServiceModel::default(), 0.95, 11).unwrap();
    let o = h.request_at(12345);
    println!(
        "IDLE_HEDGE: {}, {}, {}",
        hex(h.delay_ms()),
        hex(o.first_ms),
        hex(o.completion_ms)
    );
}
