//! Addressed sampling: every random number in the lab is a pure function of its coordinates.
//!
//! The latency of attempt `a` at leaf `i` of request `k` under seed `s` is computed by hashing
//! `(s, stream, k, i, a)` into a small per-sample stream, instead of advancing one generator.
//! Leaf 7 of request 400 therefore has the same latency whether the request has 8 leaves or
//! 200, and dragging the fan-out never reshuffles the picture.
//!
//! The hash is SplitMix64's output function (Stafford's "Mix13"), a bijection on `u64` with full
//! avalanche; the per-sample stream is SplitMix64 started at the hashed address. Only integer
//! operations are used, so a stream is bit-identical on every target (native, wasm32).

/// SplitMix64's increment, `2^64 / φ` rounded to odd.
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's finaliser: a bijective, fully avalanching 64-bit mix.
#[inline(always)]
pub const fn mix64(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Independent families of samples drawn under one seed.
///
/// A model that needs numbers for two purposes (the run itself and the calibration of a hedge
/// delay, say) takes them from different streams, which is what "calibrated on a separate seed"
/// means throughout the lab: the calibration never reuses a number the run sees.
///
/// The type is open: each model declares its own streams as constants beside its code
/// (`tail::request::REQUEST_STREAM`, `lab::fanout::STREAM`, …) and lists them in its
/// registration ([`crate::model`]), where one test checks that no two models share an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Stream(u64);

impl Stream {
    /// The stream with id `id`. Ids are part of every value vector: a model keeps its ids
    /// forever, and a new model takes an unused one.
    pub const fn new(id: u64) -> Self {
        Stream(id)
    }

    /// The stream's id.
    pub const fn id(self) -> u64 {
        self.0
    }
}

/// The hashed address of one request: `(seed, stream, request)`.
///
/// Hash it once per request and derive each leaf's stream from it with [`RequestKey::sample`],
/// which keeps the per-leaf cost to one mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestKey(u64);

impl RequestKey {
    /// Hashes `(seed, stream, request)`.
    #[inline]
    pub fn new(seed: u64, stream: Stream, request: u64) -> Self {
        let s = mix64(seed ^ mix64(stream.0.wrapping_mul(GOLDEN_GAMMA)));
        RequestKey(mix64(s ^ request.wrapping_mul(0xD1B5_4A32_D192_ED03)))
    }

    /// The stream of attempt `attempt` at leaf `leaf` of this request.
    #[inline(always)]
    pub fn sample(self, leaf: u32, attempt: u32) -> SampleStream {
        let coordinate = (u64::from(leaf) << 32) | u64::from(attempt);
        SampleStream {
            state: mix64(self.0 ^ coordinate.wrapping_mul(0xAEF1_7502_108E_F2D9)),
        }
    }
}

/// A short SplitMix64 stream dedicated to one addressed sample.
///
/// Also implements [`rand::RngCore`], so any `rand_distr` distribution can be sampled at an
/// address (that is how the reference samplers in the tests are fed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleStream {
    state: u64,
}

impl SampleStream {
    /// A stream starting from an explicit state (tests and sequential simulations).
    pub fn from_state(state: u64) -> Self {
        SampleStream { state }
    }

    /// The stream for `(seed, stream, request, leaf, attempt)`.
    pub fn at(seed: u64, stream: Stream, request: u64, leaf: u32, attempt: u32) -> Self {
        RequestKey::new(seed, stream, request).sample(leaf, attempt)
    }

    /// The stream's starting state: the hashed address itself, 64 uniformly distributed bits
    /// that no `next_bits` call ever returns. The leaf sampler uses it as its first draw,
    /// which saves one mix per leaf on the hottest path in the lab.
    #[inline(always)]
    pub fn address_bits(&self) -> u64 {
        self.state
    }

    /// The next 64 uniformly distributed bits.
    #[inline(always)]
    pub fn next_bits(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        mix64(self.state)
    }

    /// A uniform number in `[0, 1)` with 53 random bits.
    #[inline(always)]
    pub fn next_unit(&mut self) -> f64 {
        (self.next_bits() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform number in `(0, 1)`: never exactly 0, so `ln` of it is finite.
    #[inline(always)]
    pub fn next_open_unit(&mut self) -> f64 {
        ((self.next_bits() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
    }
}

impl rand::RngCore for SampleStream {
    fn next_u32(&mut self) -> u32 {
        (self.next_bits() >> 32) as u32
    }

    fn next_u64(&mut self) -> u64 {
        self.next_bits()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            let bytes = self.next_bits().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

/// Converts a probability `p` in `[0, 1]` into a threshold on 64 uniform bits:
/// `bits < threshold` happens with probability `p` (exactly, up to 2^-64).
pub fn probability_threshold(p: f64) -> u64 {
    if p >= 1.0 {
        u64::MAX
    } else if p > 0.0 {
        // 2^64 · p, exact for the 53-bit mantissa of p.
        (p * 18_446_744_073_709_551_616.0) as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_streams_do_not_depend_on_how_many_leaves_exist() {
        // The address is the whole input: no hidden counter advances between leaves.
        let key = RequestKey::new(9, Stream::new(1), 400);
        let a = key.sample(7, 0).next_bits();
        for _ in 0..3 {
            let _ = key.sample(3, 0).next_bits();
        }
        assert_eq!(key.sample(7, 0).next_bits(), a);
        assert_eq!(
            SampleStream::at(9, Stream::new(1), 400, 7, 0).next_bits(),
            a
        );
    }

    #[test]
    fn coordinates_and_streams_give_different_numbers() {
        let base = SampleStream::at(1, Stream::new(1), 5, 2, 0).next_bits();
        for other in [
            SampleStream::at(2, Stream::new(1), 5, 2, 0),
            SampleStream::at(1, Stream::new(2), 5, 2, 0),
            SampleStream::at(1, Stream::new(1), 6, 2, 0),
            SampleStream::at(1, Stream::new(1), 5, 3, 0),
            SampleStream::at(1, Stream::new(1), 5, 2, 1),
        ] {
            assert_ne!(other.clone().next_bits(), base);
        }
    }

    #[test]
    fn probability_threshold_edges() {
        assert_eq!(probability_threshold(0.0), 0);
        assert_eq!(probability_threshold(-1.0), 0);
        assert_eq!(probability_threshold(1.0), u64::MAX);
        assert_eq!(probability_threshold(0.5), 1 << 63);
    }

    #[test]
    fn unit_draws_stay_in_range() {
        let mut s = SampleStream::from_state(0);
        for _ in 0..10_000 {
            let u = s.next_unit();
            assert!((0.0..1.0).contains(&u));
            let v = s.next_open_unit();
            assert!(v > 0.0 && v < 1.0);
        }
    }
}
