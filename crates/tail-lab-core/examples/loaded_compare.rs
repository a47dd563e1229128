//! Prints the loaded-replica sweep under each cancellation rule (exploration aid).
use tail_lab_core::lab::loaded::{Cancellation, LoadedConfig, LoadedPolicy, calibrated_hedge_delay};

fn main() {
    let d = calibrated_hedge_delay(1);
    for c in [
        Cancellation::OnFirstAnswer,
        Cancellation::QueuedOnly,
        Cancellation::Never,
    ] {
        println!("{c:?}");
        for load in [0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9] {
            for p in [
                LoadedPolicy::None,
                LoadedPolicy::Hedge { delay_ms: d },
                LoadedPolicy::Duplicate,
            ] {
                let r = LoadedConfig::new(10, load, p, 200_000, 1)
                    .unwrap()
                    .with_cancellation(c)
                    .run();
                let l = r
                    .latency
                    .map(|x| format!("{:8.1} {:8.1} {:8.1}", x.p50, x.p99, x.p999))
                    .unwrap_or("unstable".into());
                println!(
                    "  {load:.1} {:<9} {l}  req {:5.1}% work {:5.1}% cap {:5.2}%",
                    p.name(),
                    100.0 * r.extra_requests,
                    100.0 * r.extra_work,
                    100.0 * r.capacity_cost
                );
            }
        }
    }
}
