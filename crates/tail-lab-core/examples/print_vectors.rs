//! Prints what the code produces now at the addresses pinned in `tests/it/common/vectors.rs`
//! (run it after an intended change of stream, review the diff, then update that file).
//!
//! `cargo run -p tail-lab-core --example print_vectors -- --write` also rewrites the generated
//! golden vectors, `tests/golden/vectors.json` at the repository root, which the JS tests read
//! and the `golden` integration test checks against the code.

#[path = "../tests/it/common/vectors.rs"]
mod vectors;

use tail_lab_core::sampling::address::SampleStream;
use tail_lab_core::tail::profile::{LeafSampler, ProfileId};

fn hex(x: f64) -> String {
    format!("{:#018x}", x.to_bits())
}

fn main() {
    if std::env::args().skip(1).any(|a| a == "--write") {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(vectors::GOLDEN_PATH);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("tests/golden");
        std::fs::write(&path, vectors::golden_json()).expect("write the golden vectors");
        println!("wrote {}", path.display());
    }
    let bits =
        SampleStream::at(1, tail_lab_core::tail::request::REQUEST_STREAM, 400, 7, 0).next_bits();
    println!("STREAM_BITS: {bits:#018x}");
    for p in ProfileId::ALL {
        let v: Vec<String> = vectors::LEAF_ADDRESSES
            .iter()
            .map(|&a| format!("{:#018x}", vectors::leaf_bits_now(p.name(), a)))
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
                s.sample(SampleStream::at(
                    1,
                    tail_lab_core::tail::request::REQUEST_STREAM,
                    k,
                    i,
                    0,
                )),
            )
        })
        .find(|&(_, _, t)| t > 40.0)
        .expect("a pause occurs");
    println!("PAUSED_LEAF: ({k}, {i}, {})", hex(t));
    let (delay, parent, waited) = vectors::hedged_request_now();
    println!("HEDGED_REQUEST: {delay:#018x}, {parent:#018x}, {waited}");
    let (delay, first, completion) = vectors::idle_hedge_now();
    println!("IDLE_HEDGE: {delay:#018x}, {first:#018x}, {completion:#018x}");
    let (k, first, completion, work) = vectors::idle_hedge_fired_now();
    println!("IDLE_HEDGE_FIRED: {k}, {first:#018x}, {completion:#018x}, {work:#018x}");
    for (name, digest) in vectors::model_digests_now() {
        println!("MODEL_DIGESTS {name}: {digest:#018x}");
    }
}
