//! The standard normal distribution: tail probabilities and quantiles to near machine precision.
//!
//! Everything here goes through the `libm` crate, one software implementation on every target,
//! so a quantile computed natively and in wasm is the same `f64` bit for bit (the platform's own
//! `exp`/`ln` may differ in the last bit between targets).

use std::f64::consts::{FRAC_1_SQRT_2, PI};

/// `P(Z > z)` for a standard normal `Z`.
pub fn upper_tail(z: f64) -> f64 {
    0.5 * libm::erfc(z * FRAC_1_SQRT_2)
}

/// `P(Z ≤ z)` for a standard normal `Z`.
pub fn cdf(z: f64) -> f64 {
    upper_tail(-z)
}

/// The density of a standard normal at `z`.
pub fn density(z: f64) -> f64 {
    libm::exp(-0.5 * z * z) / libm::sqrt(2.0 * PI)
}

/// `z` with `P(Z ≤ z) = p`, for `p` in `(0, 1)`.
///
/// Accurate in relative terms deep in both tails only when the caller passes the small tail
/// probability itself: prefer [`upper_quantile`]`(v)` to `quantile(1 - v)` for tiny `v`.
pub fn quantile(p: f64) -> f64 {
    if p <= 0.5 {
        lower_quantile(p)
    } else {
        -lower_quantile(1.0 - p)
    }
}

/// `z` with `P(Z > z) = v`, for `v` in `(0, 1)`.
pub fn upper_quantile(v: f64) -> f64 {
    -quantile(v)
}

/// `z ≤ 0` with `Φ(z) = p` for `p` in `(0, 0.5]`: Acklam's rational approximation (relative error
/// about 1e-9) followed by two Halley steps against `erfc`, which bring it to a few ulps.
fn lower_quantile(p: f64) -> f64 {
    if p.is_nan() || p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let mut x = if p < 0.024_25 {
        let q = libm::sqrt(-2.0 * libm::log(p));
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    for _ in 0..2 {
        // Halley's method on Φ(x) − p, written relative to p so the deep tail stays accurate.
        let e = cdf(x) - p;
        let u = e * libm::sqrt(2.0 * PI) * libm::exp(0.5 * x * x);
        x -= u / (1.0 + 0.5 * x * u);
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_quantiles() {
        assert!((quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-14);
        assert!((quantile(0.5)).abs() < 1e-15);
        assert!((quantile(0.99) - 2.326_347_874_040_841).abs() < 1e-14);
        assert!((upper_quantile(1e-4) - 3.719_016_485_455_68).abs() < 1e-12);
    }

    #[test]
    fn round_trips_deep_into_both_tails() {
        let mut v = 0.5;
        while v > 1e-300 {
            let z = upper_quantile(v);
            let back = upper_tail(z);
            assert!(
                ((back - v) / v).abs() < 1e-12,
                "v={v:e} z={z} back={back:e}"
            );
            assert!((quantile(1.0 - v) - z).abs() < 1e-6 * z.abs().max(1.0) || v < 1e-10);
            v *= 0.37;
        }
    }

    #[test]
    fn quantile_is_monotone() {
        let mut last = f64::NEG_INFINITY;
        for i in 1..10_000 {
            let z = quantile(i as f64 / 10_000.0);
            assert!(z > last);
            last = z;
        }
    }
}
