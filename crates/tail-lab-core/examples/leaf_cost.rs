//! Breaks the per-leaf cost of the Tail hot loop into its parts (exploration aid).
use std::hint::black_box;
use std::time::Instant;
use tail_lab_core::sampling::address::{RequestKey, mix64};
use tail_lab_core::sampling::histogram::Histogram;
use tail_lab_core::sampling::histogram::shared_bins;
use tail_lab_core::tail::profile::{LeafSampler, ProfileId};

fn time(what: &str, f: impl Fn() -> f64) {
    f();
    let t = Instant::now();
    let v = f();
    println!(
        "{what:<40} {:6.2} ns/leaf ({v})",
        t.elapsed().as_secs_f64() * 1e9 / 1e7
    );
}

fn main() {
    let s = LeafSampler::new(ProfileId::Default.profile());
    let bins = shared_bins();
    time("address hash only", || {
        let mut acc = 0u64;
        for k in 0..100_000u64 {
            let key = RequestKey::new(1, tail_lab_core::tail::request::REQUEST_STREAM, k);
            for i in 0..100 {
                acc ^= key.sample(i, 0).next_bits();
            }
        }
        acc as f64
    });
    time("hash x3 (address + 2 draws)", || {
        let mut acc = 0u64;
        for k in 0..100_000u64 {
            let key = RequestKey::new(1, tail_lab_core::tail::request::REQUEST_STREAM, k);
            for i in 0..100 {
                let mut st = key.sample(i, 0);
                acc ^= st.next_bits() ^ st.next_bits();
            }
        }
        acc as f64
    });
    time("sample (max only)", || {
        let mut acc = 0.0;
        for k in 0..100_000u64 {
            let key = RequestKey::new(1, tail_lab_core::tail::request::REQUEST_STREAM, k);
            let mut m: f64 = 0.0;
            for i in 0..100 {
                m = m.max(s.sample(key.sample(i, 0)));
            }
            acc += m;
        }
        acc
    });
    time("sample + bin_of", || {
        let mut acc = 0.0;
        let mut b = 0usize;
        for k in 0..100_000u64 {
            let key = RequestKey::new(1, tail_lab_core::tail::request::REQUEST_STREAM, k);
            let mut m: f64 = 0.0;
            for i in 0..100 {
                let t = s.sample(key.sample(i, 0));
                b ^= bins.bin_of(t);
                m = m.max(t);
            }
            acc += m;
        }
        acc + b as f64
    });
    time("sample + record", || {
        let mut h = Histogram::new();
        let mut acc = 0.0;
        for k in 0..100_000u64 {
            let key = RequestKey::new(1, tail_lab_core::tail::request::REQUEST_STREAM, k);
            let mut m: f64 = 0.0;
            for i in 0..100 {
                let t = s.sample(key.sample(i, 0));
                h.record(bins, t);
                m = m.max(t);
            }
            acc += m;
        }
        acc + h.total()
    });
    black_box(mix64(1));
}
