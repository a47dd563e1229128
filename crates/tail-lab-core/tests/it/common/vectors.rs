//! The pinned value-stability vectors, in one place.
//!
//! A module of the integration tests (`tests/it/value_stability.rs` and `golden.rs` use it),
//! included by `tail-lab-wasm/tests/api.rs` (inside wasm, in node and Chromium). An intended
//! change of stream: the failing assertions print what the code produces now; review, update
//! the bits here, and regenerate `tests/golden/vectors.json` (the JS tests' copy) with
//! [`GOLDEN_REGENERATE`].
#![allow(dead_code)]

/// `(seed, request, leaf, attempt)` addresses the leaf vectors are taken at.
pub const LEAF_ADDRESSES: [(u64, u64, u32, u32); 4] = [
    (1, 0, 0, 0),
    (1, 400, 7, 0),
    (42, 123_456, 99, 1),
    (7, 3, 255, 0),
];

/// Bits of the leaf latency (ms) at each address, per profile name.
pub const LEAF_BITS: [(&str, [u64; 4]); 3] = [
    (
        "default",
        [
            0x4018f3196cecb919,
            0x400c414b3eb01a59,
            0x401155da6aa5b97c,
            0x40195f898308d2ba,
        ],
    ),
    (
        "gc-pause",
        [
            0x4014b72e43058405,
            0x400dc424ce245853,
            0x4010c368e9e4e7ec,
            0x4014eb5769bd2f57,
        ],
    ),
    (
        "tight",
        [
            0x401480abcf1ed468,
            0x400dda3b71d1469a,
            0x4010bb6ad38fa6a3,
            0x4014b2389277ef90,
        ],
    ),
];

/// The first paused leaf of seed 1 (default profile, attempt 0): `(request, leaf, bits)`,
/// so the pause path (decision and length, drawn from the leaf's stream) is pinned too.
pub const PAUSED_LEAF: (u64, u32, u64) = (5, 27, 0x4071578292e3ac7e);

/// First 64 bits of the stream at `(seed 1, TailRequests, request 400, leaf 7, attempt 0)`.
pub const STREAM_BITS: u64 = 0xce3a_c0fb_3500_8b7b;

/// Request 17 of fan-out 100, default profile, hedge at p95, seed 3, 2^16 calibration draws:
/// hedge delay bits, parent bits, and the leaf it waited on.
pub const HEDGED_REQUEST: (u64, u64, usize) = (0x402082c356abccde, 0x4025601ee3741e06, 35);

/// Idle hedge, default service model, p95, seed 11, request 12345: delay, first and
/// completion bits.
pub const IDLE_HEDGE: (u64, u64, u64) =
    (0x40326bc993ab7cac, 0x402131faf158f9c9, 0x402131faf158f9c9);

/// Idle hedge as [`IDLE_HEDGE`], at the first request from 0 whose primary outlasted the delay
/// *and* lost to its backup, so the backup's own draw, the cancellation and the work tally are
/// pinned too: `(request, first, completion, backup work)` bits.
pub const IDLE_HEDGE_FIRED: (u64, u64, u64, u64) = (
    81,
    0x4046e7deca83535a,
    0x403e72f2af387c71,
    0x40280e523719ff8a,
);

/// FNV-1a digests of whole runs of every model (`model_digests_now`): one run each, its full
/// result as printed by `{:?}` (which prints every f64 exactly), so one differing bit anywhere
/// in a histogram, percentile or tally changes the digest.
pub const MODEL_DIGESTS: [(&str, u64); 9] = [
    ("tail hedge-p95", 0xcbf1e7018bf25f65),
    ("tail drop-5 gc-pause", 0x97f636673c03e129),
    ("slow share", 0xa8680355760caaa4),
    ("idle hedge", 0x209f8b776fb6b353),
    ("loaded none", 0xf48006a0cffe2365),
    ("loaded hedge", 0xd576114d3b61c14e),
    ("loaded duplicate either-any", 0x56907dc705794fab),
    ("supermarket random", 0xa98fc9a9cdc7c670),
    ("supermarket best of 2", 0xde08cb9b5ea477e2),
];

/// FNV-1a digests of the result fields added after [`MODEL_DIGESTS`] was taken, which those
/// digests leave out (`added_field_digests_now`): the same runs, each new field as printed by
/// `{:?}`. The intervals' were taken again when they moved from twenty batches to five (issue
/// 33): the runs and every other field are unchanged. The supermarket's moved to a run at
/// λ = 0.5 when its bars began to need seventeen relaxation times (issue 33).
pub const ADDED_FIELD_DIGESTS: [(&str, u64); 4] = [
    ("loaded backups_completed", 0x11b3c4414ce021db),
    ("supermarket share_at_least", 0xc946336d5fb8f470),
    ("loaded intervals", 0xe6f7a8f0d9b8e12f),
    ("supermarket intervals", 0x9d7b_82df_20a5_a368),
];

use tail_lab_core::lab::hedge_idle::IdleHedge;
use tail_lab_core::lab::service::ServiceModel;
use tail_lab_core::sampling::address::SampleStream;
use tail_lab_core::tail::mitigation::Mitigation;
use tail_lab_core::tail::profile::{LeafSampler, ProfileId};
use tail_lab_core::tail::request::{TailConfig, TailModel};

/// What the code produces now for [`HEDGED_REQUEST`].
pub fn hedged_request_now() -> (u64, u64, usize) {
    let cfg = TailConfig::new(
        100,
        ProfileId::Default.profile(),
        Mitigation::from_name("hedge-p95").unwrap(),
        3,
    );
    let m = TailModel::with_calibration(cfg.unwrap(), 1 << 16);
    let r = m.request_at(17);
    (
        m.hedge_delay_ms().unwrap().to_bits(),
        r.parent_ms.to_bits(),
        r.waited_on,
    )
}

/// The hedge delay (bits) of the Tail model at its defaults (fan-out 100, default profile,
/// seed 1) with the "hedge-p95" fix and the default calibration: what the binding's
/// `requestAt(k, { fix: "hedge-p95" })` reports as `hedgeDelayMs`. In the golden JSON only.
pub fn tail_hedge_delay_now() -> u64 {
    let cfg = TailConfig::new(
        100,
        ProfileId::Default.profile(),
        Mitigation::from_name("hedge-p95").unwrap(),
        1,
    );
    TailModel::new(cfg.unwrap())
        .hedge_delay_ms()
        .unwrap()
        .to_bits()
}

/// What the code produces now for [`IDLE_HEDGE`].
pub fn idle_hedge_now() -> (u64, u64, u64) {
    let h = IdleHedge::new(ServiceModel::default(), 0.95, 11).unwrap();
    let o = h.request_at(12345);
    (
        h.delay_ms().to_bits(),
        o.first_ms.to_bits(),
        o.completion_ms.to_bits(),
    )
}

/// What the code produces now for [`IDLE_HEDGE_FIRED`]: the first request from 0 where the
/// backup fired and won, and its bits.
pub fn idle_hedge_fired_now() -> (u64, u64, u64, u64) {
    let h = IdleHedge::new(ServiceModel::default(), 0.95, 11).unwrap();
    (0u64..)
        .map(|k| (k, h.request_at(k)))
        .find(|(_, o)| o.fired && o.completion_ms < o.first_ms)
        .map(|(k, o)| {
            (
                k,
                o.first_ms.to_bits(),
                o.completion_ms.to_bits(),
                o.backup_work_ms.to_bits(),
            )
        })
        .expect("a backup wins within a few hundred requests")
}

/// What the code produces now at leaf `(seed, request, leaf, attempt)` of `profile`, in bits.
pub fn leaf_bits_now(profile: &str, (seed, k, i, a): (u64, u64, u32, u32)) -> u64 {
    let sampler = LeafSampler::new(ProfileId::from_name(profile).unwrap().profile());
    sampler
        .sample(SampleStream::at(
            seed,
            tail_lab_core::tail::request::REQUEST_STREAM,
            k,
            i,
            a,
        ))
        .to_bits()
}

/// FNV-1a, 64-bit, over `text`.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The loaded run both digests pin: 10 replicas at load 0.5, 50,000 requests, seed 9.
fn digest_loaded_run(
    policy: &str,
    cancellation: tail_lab_core::lab::loaded::Cancellation,
) -> tail_lab_core::lab::loaded::LoadedResult {
    use tail_lab_core::lab::loaded::{DelayBasis, LoadedConfig, LoadedParams, LoadedPolicy};
    let policy = LoadedPolicy::from_name(policy, DelayBasis::Loaded).unwrap();
    LoadedConfig::new(LoadedParams {
        replicas: 10,
        load: 0.5,
        policy,
        requests: 50_000,
        seed: 9,
    })
    .unwrap()
    .with_cancellation(cancellation)
    .run()
}

/// The supermarket run both digests pin: 100 servers at λ = 0.9, 200,000 arrivals, seed 4.
fn digest_supermarket_run(d: u32) -> tail_lab_core::lab::supermarket::SupermarketResult {
    use tail_lab_core::lab::supermarket::{SupermarketConfig, SupermarketParams};
    SupermarketConfig::new(SupermarketParams {
        servers: 100,
        lambda: 0.9,
        d,
        arrivals: 200_000,
        seed: 4,
    })
    .unwrap()
    .run()
}

/// What the code produces now for [`MODEL_DIGESTS`]: a long run of each model, digested.
pub fn model_digests_now() -> Vec<(&'static str, u64)> {
    use tail_lab_core::lab::fanout::simulate_slow_share;
    use tail_lab_core::lab::loaded::Cancellation;
    use tail_lab_core::tail::tail_run::TailRun;

    let tail = |profile: ProfileId, fix: &str, requests: u64| {
        let cfg = TailConfig::new(
            100,
            profile.profile(),
            Mitigation::from_name(fix).unwrap(),
            5,
        );
        let mut run = TailRun::new(cfg.unwrap());
        run.run(requests).unwrap();
        format!(
            "{:?} {:?} {:?} {:?} {:?}",
            run.leaf_histogram(),
            run.parent_histogram(),
            run.hedge_cost(),
            run.parent_percentile(0.99),
            run.last_request()
        )
    };
    let loaded = |policy: &str, cancellation: Cancellation| {
        let r = digest_loaded_run(policy, cancellation);
        // The digest pins the numbers. `unstable` (why a run is unstable) came after the
        // digests were taken; these runs are stable, so it must be `None`, and the text is
        // digested as it was before the field existed. Likewise the policy and the
        // cancellation rule, now enums, print as the names they were then. `backups_completed`
        // came later still: it is a count the run keeps beside the pinned numbers (no draw, no
        // event of its own), so it is left out of the text the digest was taken of, and
        // pinned on its own in [`ADDED_FIELD_DIGESTS`].
        assert_eq!(r.unstable, None);
        // `intervals` came later still, computed from the same latencies: left out of the
        // text as well, and pinned in [`ADDED_FIELD_DIGESTS`].
        format!("{r:?}")
            .replace(&format!(", intervals: {:?}", r.intervals), "")
            .replace(
                &format!(", backups_completed: {:?}", r.backups_completed),
                "",
            )
            .replace(", unstable: None", "")
            .replace(
                &format!("policy: {:?}", r.policy),
                &format!("policy: {:?}", r.policy.name()),
            )
            .replace(
                &format!("cancellation: {:?}", r.cancellation),
                &format!("cancellation: {:?}", r.cancellation.name()),
            )
    };
    let supermarket = |d: u32| {
        let r = digest_supermarket_run(d);
        // `share_at_least` came after the digests were taken: time integrals the run keeps
        // beside the pinned numbers (no draw, no event of their own), left out of the text the
        // digest was taken of and pinned on their own in
        // [`ADDED_FIELD_DIGESTS`].
        // `intervals` likewise (batch means of the same measured times), and `planned` (how a
        // run's length was chosen: `None` for a fixed one).
        format!("{r:?}")
            .replace(&format!(", share_at_least: {:?}", r.share_at_least), "")
            .replace(&format!(", intervals: {:?}", r.intervals), "")
            .replace(", planned: None", "")
    };
    let idle = IdleHedge::new(ServiceModel::default(), 0.95, 7)
        .unwrap()
        .run_with_curves(200_000)
        .unwrap();
    vec![
        (
            "tail hedge-p95",
            fnv1a(&tail(ProfileId::Default, "hedge-p95", 20_000)),
        ),
        (
            "tail drop-5 gc-pause",
            fnv1a(&tail(ProfileId::GcPause, "drop-5", 10_000)),
        ),
        (
            "slow share",
            fnv1a(&format!("{:?}", simulate_slow_share(0.01, 100, 100_000, 3))),
        ),
        ("idle hedge", fnv1a(&format!("{idle:?}"))),
        ("loaded none", fnv1a(&loaded("none", Cancellation::Backup))),
        (
            "loaded hedge",
            fnv1a(&loaded("hedge", Cancellation::Backup)),
        ),
        (
            "loaded duplicate either-any",
            fnv1a(&loaded("duplicate", Cancellation::EitherAny)),
        ),
        ("supermarket random", fnv1a(&supermarket(1))),
        ("supermarket best of 2", fnv1a(&supermarket(2))),
    ]
}

/// What the code produces now for [`ADDED_FIELD_DIGESTS`]: the loaded runs of
/// [`model_digests_now`] (hedge, duplicate under `either-any`) and its supermarket runs
/// (random, best of two), each field added since.
pub fn added_field_digests_now() -> Vec<(&'static str, u64)> {
    use tail_lab_core::lab::loaded::Cancellation;
    let loaded = |policy: &str, cancellation: Cancellation| {
        format!(
            "{:?}",
            digest_loaded_run(policy, cancellation).backups_completed
        )
    };
    let supermarket = |d: u32| format!("{:?}", digest_supermarket_run(d).share_at_least);
    let loaded_intervals = |policy: &str, cancellation: Cancellation| {
        format!("{:?}", digest_loaded_run(policy, cancellation).intervals)
    };
    // The digest run (λ = 0.9, 200,000 arrivals) is too short for bars since they need
    // BAR_RELAXATIONS; the intervals are pinned on the same chain at λ = 0.5, where it lasts 342.
    let supermarket_intervals = |d: u32| {
        use tail_lab_core::lab::supermarket::{SupermarketConfig, SupermarketParams};
        let r = SupermarketConfig::new(SupermarketParams {
            servers: 100,
            lambda: 0.5,
            d,
            arrivals: 200_000,
            seed: 4,
        })
        .unwrap()
        .run();
        assert!(r.intervals.is_some(), "d = {d}: long enough for bars");
        format!("{:?}", r.intervals)
    };
    vec![
        (
            "loaded backups_completed",
            fnv1a(
                &(loaded("hedge", Cancellation::Backup)
                    + &loaded("duplicate", Cancellation::EitherAny)),
            ),
        ),
        (
            "supermarket share_at_least",
            fnv1a(&(supermarket(1) + &supermarket(2))),
        ),
        (
            "loaded intervals",
            fnv1a(
                &(loaded_intervals("hedge", Cancellation::Backup)
                    + &loaded_intervals("duplicate", Cancellation::EitherAny)),
            ),
        ),
        (
            "supermarket intervals",
            fnv1a(&(supermarket_intervals(1) + &supermarket_intervals(2))),
        ),
    ]
}

/// Where the generated golden vectors live: `tests/golden/vectors.json` at the repository
/// root, read by the JS tests (`tests/js/api.test.mjs`) instead of copying the bits by hand.
pub const GOLDEN_PATH: &str = "tests/golden/vectors.json";

/// The command that rewrites [`GOLDEN_PATH`] from what the code produces now.
pub const GOLDEN_REGENERATE: &str =
    "TAIL_LAB_WRITE_GOLDEN=1 cargo test --release -p tail-lab-core --test it golden";

/// The golden vectors as JSON, computed now (not copied from the constants above): every f64
/// as its bits in hex (`"bits"`, exact) beside its shortest round-trip decimal (`"value"`, a
/// string, for reading). Deterministic text, so the checked-in file can be compared byte for
/// byte.
pub fn golden_json() -> String {
    let hex = |bits: u64| format!("\"{bits:#018x}\"");
    let value = |bits: u64| format!("\"{:?}\"", f64::from_bits(bits));
    let mut out = String::from("{\n");
    out += &format!(
        "  \"regenerate\": \"{GOLDEN_REGENERATE}\",\n  \"source\": \"crates/tail-lab-core/tests/it/common/vectors.rs\",\n"
    );
    let stream =
        SampleStream::at(1, tail_lab_core::tail::request::REQUEST_STREAM, 400, 7, 0).next_bits();
    out += &format!(
        "  \"stream_bits\": {{ \"seed\": 1, \"request\": 400, \"leaf\": 7, \"attempt\": 0, \"bits\": {} }},\n",
        hex(stream)
    );
    let mut leaves = Vec::new();
    for (profile, _) in LEAF_BITS {
        for &(seed, k, i, a) in &LEAF_ADDRESSES {
            let b = leaf_bits_now(profile, (seed, k, i, a));
            leaves.push(format!(
                "    {{ \"profile\": \"{profile}\", \"seed\": {seed}, \"request\": {k}, \"leaf\": {i}, \"attempt\": {a}, \"bits\": {}, \"value\": {} }}",
                hex(b),
                value(b)
            ));
        }
    }
    out += &format!("  \"leaf_samples\": [\n{}\n  ],\n", leaves.join(",\n"));
    let (k, i, _) = PAUSED_LEAF;
    let b = leaf_bits_now("default", (1, k, i, 0));
    out += &format!(
        "  \"paused_leaf\": {{ \"profile\": \"default\", \"seed\": 1, \"request\": {k}, \"leaf\": {i}, \"attempt\": 0, \"bits\": {}, \"value\": {} }},\n",
        hex(b),
        value(b)
    );
    let (delay, parent, waited) = hedged_request_now();
    out += &format!(
        "  \"hedged_request\": {{ \"fanout\": 100, \"profile\": \"default\", \"fix\": \"hedge-p95\", \"seed\": 3, \"calibration\": 65536, \"request\": 17, \"delay_bits\": {}, \"parent_bits\": {}, \"waited_on\": {waited} }},\n",
        hex(delay),
        hex(parent)
    );
    let delay = tail_hedge_delay_now();
    out += &format!(
        "  \"tail_hedge_delay\": {{ \"fanout\": 100, \"profile\": \"default\", \"fix\": \"hedge-p95\", \"seed\": 1, \"delay_bits\": {}, \"delay\": {} }},\n",
        hex(delay),
        value(delay)
    );
    let (delay, first, completion) = idle_hedge_now();
    out += &format!(
        "  \"idle_hedge\": {{ \"q\": 0.95, \"seed\": 11, \"request\": 12345, \"delay_bits\": {}, \"first_bits\": {}, \"completion_bits\": {} }},\n",
        hex(delay),
        hex(first),
        hex(completion)
    );
    let (k, first, completion, work) = idle_hedge_fired_now();
    out += &format!(
        "  \"idle_hedge_fired\": {{ \"q\": 0.95, \"seed\": 11, \"request\": {k}, \"first_bits\": {}, \"completion_bits\": {}, \"backup_work_bits\": {} }},\n",
        hex(first),
        hex(completion),
        hex(work)
    );
    let digests: Vec<String> = model_digests_now()
        .into_iter()
        .map(|(name, d)| format!("    \"{name}\": {}", hex(d)))
        .collect();
    out += &format!(
        "  \"model_digests\": {{\n{}\n  }}\n}}\n",
        digests.join(",\n")
    );
    out
}
