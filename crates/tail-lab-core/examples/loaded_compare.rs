//! Prints the loaded-replica sweep under every cancellation rule, as a table to read against
//! the seed's findings: `cargo run --release -p tail-lab-core --example loaded_compare [requests]`.
use tail_lab_core::lab::loaded::{
    Cancellation, DelayBasis, LoadedConfig, LoadedParams, LoadedPolicy,
};

fn main() {
    let requests = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000u64);
    for c in Cancellation::ALL {
        println!("cancellation {}", c.name());
        for load in [0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9] {
            for name in ["none", "hedge", "duplicate"] {
                let p = LoadedPolicy::from_name(name, DelayBasis::Loaded).expect("known");
                let r = LoadedConfig::new(LoadedParams {
                    replicas: 10,
                    load,
                    policy: p,
                    requests,
                    seed: 1,
                })
                .expect("valid")
                .with_cancellation(c)
                .run();
                let l = r
                    .latency
                    .map(|x| format!("{:8.1} {:8.1} {:8.1}", x.p50, x.p99, x.p999))
                    .unwrap_or_else(|| format!("{:>26}", "unstable"));
                let delay = r.delay_ms.map_or("-".into(), |d| format!("{d:.0}"));
                println!(
                    "  {load:.1} {name:<9} delay {delay:>6} {l}  req {:5.1}% work {:5.1}% cap {:6.2}% util {:.3}",
                    100.0 * r.extra_requests,
                    100.0 * r.extra_work,
                    100.0 * r.capacity_cost,
                    r.utilisation
                );
            }
        }
    }
}
