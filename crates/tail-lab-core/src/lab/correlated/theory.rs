//! The closed forms of the common-shock model, for any service model `F` (survival `S`).
//!
//! Condition on the request's shared draw `X₀ = Q(U₀)`. Given `X₀`, the leaves are independent,
//! and each is *late* at `t` (still out at `t`, after its fix) with a probability that depends
//! only on whether the episode itself is late, `X₀ > t` (probability `S(t)`), or not:
//!
//! | fix | episode on time (`X₀ ≤ t`) | episode late (`X₀ > t`) |
//! |---|---|---|
//! | none | `(1 − c)·S(t)` | `c + (1 − c)·S(t)` |
//! | hedge | `(1 − c)·H(t)` | `c·R(t) + (1 − c)·H(t)` |
//!
//! with `R(t) = c_r + (1 − c_r)·S(t − d)` the chance that a late primary's backup is late too
//! (it is the primary's own draw with probability `c_r`, else an independent one sent at `d`;
//! `S(t − d) = 1` while `t ≤ d`) and `H(t) = S(t)·R(t)` one hedged leaf's survival. The parent
//! that waits for all `n` leaves is late when at least one leaf is; the parent that drops its
//! slowest `j − 1` answers when `n − j + 1` are in, so it is late when at least `j` leaves are.
//! Integrating over the episode:
//!
//! `P(T > t) = F(t)·P(Bin(n, late | on time) ≥ j) + S(t)·P(Bin(n, late | late episode) ≥ j)`.
//!
//! With no fix and `j = 1` this is `1 − [F(t)·(c + (1 − c)F(t))^n + S(t)·((1 − c)F(t))^n]`, the
//! brief's `P(max ≤ t)`; at `c = 0` it is `1 − F(t)^n`, at `c = 1` it is `S(t)`. A single hedged
//! leaf (`n = 1`) gives `c_r·S(t) + (1 − c_r)·S(t)·S(t − d)` for every `c`.

use crate::lab::service::ServiceModel;
use crate::theory::invert_survival;

/// What the parent does about its slow leaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fix {
    /// Waits for every leaf: the maximum.
    None,
    /// Answers without its slowest `dropped` leaves: the `(n − dropped)`-th order statistic.
    Drop {
        /// Leaves dropped, `0..n`.
        dropped: u32,
    },
    /// Each leaf sends a backup at `delay_ms` if it has not answered; the first answer wins.
    Hedge {
        /// The hedge delay (ms).
        delay_ms: f64,
        /// Replica correlation (0..=1): the chance that the backup lands in its primary's
        /// episode and takes the primary's own time.
        cr: f64,
    },
}

/// One configuration of the model: fan-out `n`, leaf correlation `c` and the fix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Setting {
    /// Leaves per request.
    pub n: u32,
    /// Leaf correlation (0..=1): the chance that a leaf takes the request's shared draw.
    pub c: f64,
    /// The parent's fix.
    pub fix: Fix,
}

/// `P(one leaf's backup is late at t | its primary is)`: `c_r + (1 − c_r)·S(t − d)`.
fn backup_late(model: &ServiceModel, t_ms: f64, delay_ms: f64, cr: f64) -> f64 {
    let shifted = if t_ms > delay_ms {
        model.survival(t_ms - delay_ms)
    } else {
        1.0
    };
    cr + (1.0 - cr) * shifted
}

/// `P(X ≥ k)` for `X ~ Binomial(n, q)`: the same number as
/// [`crate::theory::binomial_at_least`], summed from the tail's largest term outwards (upwards
/// from `k` when `k` is past the mode, else `1 −` the sum downwards from `k − 1`) until a term
/// no longer moves the sum, with one `lgamma` triple for the first term and a ratio for each
/// next. At `n` = 1000 that is some tens of terms instead of a thousand `lgamma` triples, so the
/// closed forms stay fast enough for a page's main thread.
pub fn binomial_tail(k: u32, n: u32, q: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n || q <= 0.0 {
        return 0.0;
    }
    if q >= 1.0 {
        return 1.0;
    }
    let (nf, odds) = (f64::from(n), q / (1.0 - q));
    let pmf = |j: u32| {
        let j = f64::from(j);
        libm::exp(
            libm::lgamma(nf + 1.0) - libm::lgamma(j + 1.0) - libm::lgamma(nf - j + 1.0)
                + j * libm::log(q)
                + (nf - j) * libm::log1p(-q),
        )
    };
    let mode = libm::floor((nf + 1.0) * q);
    if f64::from(k) > mode {
        let (mut term, mut sum) = (pmf(k), 0.0);
        for j in k..=n {
            sum += term;
            if term <= 1e-17 * sum {
                break;
            }
            term *= f64::from(n - j) / f64::from(j + 1) * odds;
        }
        sum.min(1.0)
    } else {
        let (mut term, mut sum) = (pmf(k - 1), 0.0);
        for j in (0..k).rev() {
            sum += term;
            if term <= 1e-17 * sum || j == 0 {
                break;
            }
            term *= f64::from(j) / f64::from(n - j + 1) / odds;
        }
        (1.0 - sum).clamp(0.0, 1.0)
    }
}

/// One hedged leaf's survival: `c_r·S(t) + (1 − c_r)·S(t)·S(t − d)`.
pub fn hedged_leaf_survival(model: &ServiceModel, t_ms: f64, delay_ms: f64, cr: f64) -> f64 {
    model.survival(t_ms) * backup_late(model, t_ms, delay_ms, cr)
}

/// `P(T > t)` (a fraction) of the parent in `setting` at `t_ms`, from the episode mixture in
/// the module doc.
pub fn parent_survival(model: &ServiceModel, setting: Setting, t_ms: f64) -> f64 {
    let Setting { n, c, fix } = setting;
    let s = model.survival(t_ms);
    let (on_time, late, need) = match fix {
        Fix::None => ((1.0 - c) * s, c + (1.0 - c) * s, 1),
        Fix::Drop { dropped } => ((1.0 - c) * s, c + (1.0 - c) * s, dropped + 1),
        Fix::Hedge { delay_ms, cr } => {
            let r = backup_late(model, t_ms, delay_ms, cr);
            let h = s * r;
            ((1.0 - c) * h, c * r + (1.0 - c) * h, 1)
        }
    };
    let at_least = |q: f64| {
        if need == 1 {
            // 1 − (1 − q)^n with its digits when q is tiny.
            if q >= 1.0 {
                1.0
            } else {
                -libm::expm1(f64::from(n) * libm::log1p(-q))
            }
        } else {
            binomial_tail(need, n, q)
        }
    };
    ((1.0 - s) * at_least(on_time) + s * at_least(late)).clamp(0.0, 1.0)
}

/// The parent's `q`-quantile (ms, `q` in (0, 1)) in `setting`.
pub fn parent_quantile(model: &ServiceModel, setting: Setting, q: f64) -> f64 {
    invert_survival(|t| parent_survival(model, setting, t), 1.0 - q)
}

/// The share of parents that are slow, `P(T > t_p)`, where a leaf is slow above its own
/// `(1 − p)`-quantile `t_p` (`slow_ms`).
pub fn slow_share(model: &ServiceModel, setting: Setting, slow_ms: f64) -> f64 {
    parent_survival(model, setting, slow_ms)
}

/// The episode mixture for the parent that waits for all `n` leaves, each slow with
/// probability `p` (0..=1) on its own: `E[1 − (1 − p_leaf | episode)^n]`, with
/// `p_leaf = c + (1 − c)·p` in a slow episode (probability `p`) and `(1 − c)·p` otherwise.
/// Written independently of [`parent_survival`], which it equals at `t = t_p`.
pub fn episode_mixture(p: f64, n: u32, c: f64) -> f64 {
    let all = |p_leaf: f64| 1.0 - libm::pow(1.0 - p_leaf, f64::from(n));
    p * all(c + (1.0 - c) * p) + (1.0 - p) * all((1.0 - c) * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ends_of_the_correlation_slider() {
        let m = ServiceModel::default();
        let t_p = m.quantile(0.99);
        let none = |c| Setting {
            n: 100,
            c,
            fix: Fix::None,
        };
        // Fully shared: the parent is one leaf.
        assert!((slow_share(&m, none(1.0), t_p) - 0.01).abs() < 1e-12);
        // Independent: 1 − (1 − p)^n.
        let indep = crate::theory::slow_share(0.01, 100).unwrap();
        assert!((slow_share(&m, none(0.0), t_p) - indep).abs() < 1e-12);
        // In between: the episode mixture, written another way.
        for c in [0.1, 0.3, 0.5, 0.9] {
            let got = slow_share(&m, none(c), t_p);
            assert!((got - episode_mixture(0.01, 100, c)).abs() < 1e-12, "c={c}");
            // Positive dependence: never above the independent share.
            assert!(got <= indep);
        }
    }

    #[test]
    fn one_hedged_leaf() {
        let m = ServiceModel::default();
        let d = m.quantile(0.95);
        for c in [0.0, 0.4, 1.0] {
            for t in [5.0, 20.0, 60.0, 400.0, 1500.0] {
                let s = m.survival(t);
                let ind = Setting {
                    n: 1,
                    c,
                    fix: Fix::Hedge {
                        delay_ms: d,
                        cr: 0.0,
                    },
                };
                let shared = Setting {
                    fix: Fix::Hedge {
                        delay_ms: d,
                        cr: 1.0,
                    },
                    ..ind
                };
                let want = if t > d { s * m.survival(t - d) } else { s };
                assert!((parent_survival(&m, ind, t) - want).abs() < 1e-15, "{t}");
                assert!((parent_survival(&m, shared, t) - s).abs() < 1e-15, "{t}");
            }
        }
    }

    #[test]
    fn the_fast_binomial_tail_is_the_lab_one() {
        use crate::theory::binomial_at_least;
        for n in [1, 2, 10, 100, 1000] {
            for q in [1e-9, 1e-4, 0.01, 0.3, 0.5, 0.9, 0.999] {
                for k in [0, 1, 2, 3, 5, 10, 50, 100, 500, 999, 1000] {
                    let (a, b) = (binomial_tail(k, n, q), binomial_at_least(k, n, q));
                    // Relative 1e-9 where the tail is not tiny, absolute 1e-15 where it is.
                    assert!(
                        (a - b).abs() <= 1e-9 * b.max(1e-6),
                        "n={n} q={q} k={k}: {a} vs {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn dropping_nothing_is_the_maximum() {
        let m = ServiceModel::default();
        for c in [0.0, 0.5, 1.0] {
            for t in [10.0, 100.0, 1000.0] {
                let a = parent_survival(
                    &m,
                    Setting {
                        n: 50,
                        c,
                        fix: Fix::None,
                    },
                    t,
                );
                let b = parent_survival(
                    &m,
                    Setting {
                        n: 50,
                        c,
                        fix: Fix::Drop { dropped: 0 },
                    },
                    t,
                );
                assert!((a - b).abs() < 1e-12, "c={c} t={t}: {a} vs {b}");
            }
        }
    }
}
