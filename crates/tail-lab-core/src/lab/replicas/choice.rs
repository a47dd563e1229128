//! Which replica a copy goes to: a uniform integer below `n` from 64 random bits, and a
//! replica other than a given one.

/// `⌊bits · n / 2^64⌋`: a uniform integer below `n` from 64 random bits. Computed in two
/// 64-bit halves (`bits = a·2^32 + b`, so the result is `⌊(a·n + ⌊b·n / 2^32⌋) / 2^32⌋`,
/// exactly, and nothing overflows), because wasm has no 64 × 64 → 128-bit multiply and would
/// call a helper for one. Bit for bit the high half of the 128-bit product (a unit test).
#[inline(always)]
pub(crate) fn uniform_below(bits: u64, n: u32) -> u32 {
    let n = u64::from(n);
    let low = ((bits & 0xFFFF_FFFF) * n) >> 32;
    (((bits >> 32) * n + low) >> 32) as u32
}

/// A replica of `n` (≥ 2) other than `primary`, uniform over the `n − 1` others, from 64
/// random bits: `(primary + 1 + u) mod n` with `u` uniform below `n − 1`. Since
/// `primary + 1 + u < 2n`, the modulo is one subtraction, no division.
#[inline(always)]
pub(crate) fn elsewhere(primary: u32, bits: u64, n: u32) -> u32 {
    let b = primary + 1 + uniform_below(bits, n - 1);
    if b >= n { b - n } else { b }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_below_is_the_128_bit_product_high_half() {
        let mut s = crate::sampling::address::SampleStream::from_state(11);
        for n in [1u32, 2, 3, 9, 10, 999, 1000, u32::MAX] {
            for bits in [
                0,
                1,
                u64::MAX,
                u64::MAX - 1,
                1 << 63,
                (1 << 32) - 1,
                1 << 32,
            ] {
                let want = ((u128::from(bits) * u128::from(n)) >> 64) as u32;
                assert_eq!(uniform_below(bits, n), want, "{bits} {n}");
            }
            for _ in 0..100_000 {
                let bits = s.next_bits();
                let want = ((u128::from(bits) * u128::from(n)) >> 64) as u32;
                assert_eq!(uniform_below(bits, n), want, "{bits} {n}");
            }
        }
    }

    #[test]
    fn elsewhere_is_never_the_primary_and_reaches_every_other() {
        let mut s = crate::sampling::address::SampleStream::from_state(5);
        for n in [2u32, 3, 10] {
            for primary in 0..n {
                let mut seen = vec![0u32; n as usize];
                for _ in 0..2_000 {
                    seen[elsewhere(primary, s.next_bits(), n) as usize] += 1;
                }
                for (r, &count) in seen.iter().enumerate() {
                    assert_eq!(count == 0, r as u32 == primary, "n {n}, primary {primary}");
                }
            }
        }
    }
}
