//! Prints the value-stability vectors pinned in `tests/value_stability.rs` (run it after an
//! intended change of stream, review the diff, then update the test).
use tail_lab_core::address::{SampleStream, Stream};
use tail_lab_core::hedge_idle::IdleHedge;
use tail_lab_core::mitigation::Mitigation;
use tail_lab_core::profile::{LeafSampler, ProfileId};
use tail_lab_core::request::{TailConfig, TailModel};
use tail_lab_core::service::ServiceModel;

fn main() {
    println!(
        "bits: {:#018x}",
        SampleStream::at(1, Stream::TailRequests, 400, 7, 0).next_bits()
    );
    for p in ProfileId::ALL {
        let s = LeafSampler::new(p.profile());
        let v: Vec<String> = [
            (1u64, 0u64, 0u32, 0u32),
            (1, 400, 7, 0),
            (42, 123_456, 99, 1),
            (7, 3, 255, 0),
        ]
        .iter()
        .map(|&(seed, k, i, a)| {
            format!(
                "{:#018x}",
                s.sample(SampleStream::at(seed, Stream::TailRequests, k, i, a))
                    .to_bits()
            )
        })
        .collect();
        println!("{:?}: {}", p, v.join(", "));
    }
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
    println!(
        "hedge delay {:#018x} parent {:#018x} waited {}",
        m.hedge_delay_ms().unwrap().to_bits(),
        r.parent_ms.to_bits(),
        r.waited_on
    );
    let h = IdleHedge::new(ServiceModel::default(), 0.95, 11).unwrap();
    let o = h.request_at(12345);
    println!(
        "idle delay {:#018x} first {:#018x} completion {:#018x}",
        h.delay_ms().to_bits(),
        o.first_ms.to_bits(),
        o.completion_ms.to_bits()
    );
}
