//! The closed forms the checks and the page draw beside the runs.

use crate::lab::supermarket::{fixed_point_mean_time, fixed_point_share_of};

/// Random assignment's mean sojourn time (mean service times) on `servers` servers at λ per
/// server, one of them `slow_factor` times slower: each server receives a Poisson stream at
/// rate λ, so the fast ones are M/M/1 at load λ (mean `1/(1 − λ)`) and the slow one M/M/1 at
/// load `λ·k` with mean service `k` (mean `k/(1 − λ·k)`); the mean is their average, weighted
/// by arrivals (each `1/servers`). `None` when λ ≥ 1 or `λ·k` ≥ 1 (the slow server's queue
/// grows without bound). With `k = 1` it is `1/(1 − λ)`.
pub fn random_mean(lambda: f64, servers: u32, slow_factor: f64) -> Option<f64> {
    let slow_load = lambda * slow_factor;
    if !(lambda > 0.0 && lambda < 1.0 && slow_load < 1.0 && servers >= 1) {
        return None;
    }
    let n = f64::from(servers);
    let fast = 1.0 / (1.0 - lambda);
    let slow = slow_factor / (1.0 - slow_load);
    Some(((n - 1.0) * fast + slow) / n)
}

/// How many of its relaxation times ([`relaxation_time`]) a run must last for its mean to have
/// settled from an empty start: the rule the page's run lengths follow, and the report's.
pub const SETTLED_RELAXATIONS: f64 = 5.0;

pub use crate::sampling::batch::BAR_RELAXATIONS;

/// The relaxation time (mean service times) of the slowest queue in a run: an M/M/1 queue at
/// load ρ with mean service `m` forgets its start over about `m/(1 − √ρ)²` (the spectral gap of
/// the birth–death chain, Morse 1955), so a fast server at λ takes `1/(1 − √λ)²` and the slow
/// one at the load it was measured to be offered, `slow_load`, `k/(1 − √slow_load)²`. It is
/// random assignment's exactly, and a bound for the signals that look at queues (they relax
/// faster); a stale view's herding has a rhythm of its own, which this does not measure.
/// `None` when a queue is offered a load of 1 or more (it never settles).
pub fn relaxation_time(lambda: f64, slow_factor: f64, slow_load: f64) -> Option<f64> {
    let one = |load: f64, mean: f64| {
        (0.0..1.0)
            .contains(&load)
            .then(|| mean / ((1.0 - load.sqrt()) * (1.0 - load.sqrt())))
    };
    let fast = one(lambda, 1.0)?;
    if slow_factor > 1.0 {
        Some(fast.max(one(slow_load, slow_factor)?))
    } else {
        Some(fast)
    }
}

/// The arrivals a run on `servers` identical servers at λ needs to last
/// [`SETTLED_RELAXATIONS`] relaxation times: `5 · λ · servers / (1 − √λ)²`, rounded up; `None`
/// at λ ≥ 1.
pub fn settling_arrivals(lambda: f64, servers: u32) -> Option<u64> {
    let t = relaxation_time(lambda, 1.0, 0.0)?;
    Some((SETTLED_RELAXATIONS * t * lambda * f64::from(servers)).ceil() as u64)
}

/// Random assignment's p99 sojourn time (mean service times), in the setting of
/// [`random_mean`]: a FIFO M/M/1 server at load ρ and mean service `m` has exponential sojourn
/// times of rate `(1 − ρ)/m`, so the sojourn time of a random arrival is a mixture, weight
/// `(servers − 1)/servers` at rate `1 − λ` and `1/servers` at rate `(1 − λ·k)/k`; the p99 is
/// where its survival function is 1%, found by bisection to 10⁻¹² relative. With `k = 1` it
/// is `ln 100/(1 − λ)`. `None` where [`random_mean`] is.
pub fn random_p99(lambda: f64, servers: u32, slow_factor: f64) -> Option<f64> {
    random_mean(lambda, servers, slow_factor)?;
    let n = f64::from(servers);
    let fast = 1.0 - lambda;
    let slow = (1.0 - lambda * slow_factor) / slow_factor;
    let survival = |t: f64| (n - 1.0) / n * libm::exp(-fast * t) + libm::exp(-slow * t) / n;
    let hi = libm::log(100.0) / fast.min(slow);
    Some(quantile_of_survival(survival, 0.01, hi))
}

/// The p99 sojourn time (mean service times) at the supermarket fixed point: fresh best of `d`
/// on identical FIFO servers with exponential service of mean 1, as servers → ∞. An arrival
/// sees (PASTA) each sampled server holding at least `j` jobs with probability `s_j` (the
/// fixed point's shares, [`fixed_point_share_of`]), independently in the limit, so it joins a
/// queue of at least `j` with probability `s_j^d`; its sojourn is then `j + 1` unit
/// exponentials, and summing by parts the survival function is
/// `P(T > t) = Σ_{j≥0} e^{−t} t^j/j! · s_j^d`. (Its integral is `Σ s_j^d`, the fixed point's
/// mean.) With `d = 1` it is M/M/1's `ln 100/(1 − λ)`. `None` when λ ∉ (0, 1) or `d = 0`.
pub fn fixed_point_p99(lambda: f64, d: u32) -> Option<f64> {
    fixed_point_mean_time(lambda, d)?;
    if d == 1 {
        return Some(libm::log(100.0) / (1.0 - lambda));
    }
    // s_j^d for j = 0, 1, …, until it is below 10⁻³⁰⁰ (doubly exponential: a dozen terms).
    let tails: Vec<f64> = (0..64u32)
        .map(|j| {
            if j == 0 {
                1.0
            } else {
                libm::pow(
                    fixed_point_share_of(lambda, d, j).unwrap_or(0.0),
                    f64::from(d),
                )
            }
        })
        .take_while(|&q| q > 1e-300)
        .collect();
    let survival = |t: f64| {
        let mut pmf = libm::exp(-t);
        let mut sum = 0.0;
        for (j, q) in tails.iter().enumerate() {
            if j > 0 {
                pmf *= t / j as f64;
            }
            sum += pmf * q;
        }
        sum
    };
    // The sojourn is at most that of a server whose queue is stochastically M/M/1's, so the
    // p99 is below M/M/1's.
    Some(quantile_of_survival(
        survival,
        0.01,
        libm::log(100.0) / (1.0 - lambda),
    ))
}

/// The `t` in `[0, hi]` where a decreasing survival function (1 at 0, at most `level` at `hi`)
/// crosses `level`, by bisection to 10⁻¹² of `hi`.
fn quantile_of_survival(survival: impl Fn(f64) -> f64, level: f64, hi: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, hi);
    while hi - lo > 1e-12 * hi {
        let mid = 0.5 * (lo + hi);
        if survival(mid) > level {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Whether a run's queues grow for as long as it lasts, so that its mean measures the run's
/// length rather than a steady state (and its p50 and p99 estimate nothing), in any of three
/// cases:
/// - the servers together cannot serve the arrivals: `λ·servers ≥ (servers − 1) + 1/k`,
///   whatever the signal;
/// - the slow server's share of the arrivals does not respond to its queue (`fixed_share`:
///   random, round robin, `d = 1`, or a stale view never refreshed during the arrivals) and
///   that share, `1/servers`, offers it a load `λ·k` of 1 or more;
/// - over the second half of the measured arrivals (after any start-up backlog has been
///   built), the load the slow server was sent, `late_load`, exceeds 1 by more than
///   [`OVERLOAD_T`] of its standard errors (`late_se`, by batch means): a signal that reads the
///   servers may still send it more than it serves (a peak-EWMA whose cost fades before the
///   slow server answers does), while one that settles near its capacity reads 1 or less give
///   or take its noise.
pub fn unbounded(
    fixed_share: bool,
    lambda: f64,
    servers: u32,
    slow_factor: f64,
    late_load: f64,
    late_se: f64,
) -> bool {
    let n = f64::from(servers);
    let overloaded = lambda * n >= (n - 1.0) + 1.0 / slow_factor;
    overloaded
        || (fixed_share && lambda * slow_factor >= 1.0)
        || late_load > 1.0 + OVERLOAD_T * late_se
}

/// Standard errors by which the late load must exceed 1 to count as overload: Student's t with
/// 19 degrees of freedom (20 batches) at 10⁻⁴ one-sided.
pub const OVERLOAD_T: f64 = 4.6;

/// The load the slow server was sent over batches of arrivals (`(arrivals, to the slow
/// server)` each), and its standard error by batch means: each batch's share, their mean and
/// `s/√batches` (the sample standard deviation), both scaled by `λ · servers · k`. Batch means
/// rather than a binomial error, because a signal that reads the queue spreads its picks far
/// more evenly than independent draws would. `(NaN, NaN)` with fewer than two batches.
pub fn late_load(
    batches: &[(u32, u32)],
    lambda: f64,
    servers: u32,
    slow_factor: f64,
) -> (f64, f64) {
    let shares: Vec<f64> = batches
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|&(n, slow)| f64::from(slow) / f64::from(n))
        .collect();
    if shares.len() < 2 {
        return (f64::NAN, f64::NAN);
    }
    let b = shares.len() as f64;
    let (arrivals, slow) = batches.iter().fold((0.0, 0.0), |(a, s), &(n, k)| {
        (a + f64::from(n), s + f64::from(k))
    });
    let share = slow / arrivals;
    let mean = shares.iter().sum::<f64>() / b;
    let var = shares.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (b - 1.0);
    let scale = lambda * f64::from(servers) * slow_factor;
    (share * scale, libm::sqrt(var / b) * scale)
}

/// The best of `d` on fresh queue lengths as servers → ∞ on identical servers: the
/// supermarket model's fixed point ([`crate::lab::supermarket::fixed_point_mean_time`]),
/// reused as it is.
pub fn fixed_point(lambda: f64, d: u32) -> Option<f64> {
    fixed_point_mean_time(lambda, d)
}

/// The load the slow server is offered when it receives `share` of the arrivals: `share ·
/// λ · servers · k`. Averaged over a whole run, 1 or more need not mean growth (a signal may
/// build a backlog once and then send what the server serves); [`unbounded`] decides that.
pub fn slow_offered_load(share: f64, lambda: f64, servers: u32, slow_factor: f64) -> f64 {
    share * lambda * f64::from(servers) * slow_factor
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_on_identical_servers_is_mm1() {
        for lambda in [0.1, 0.5, 0.9] {
            let m = random_mean(lambda, 100, 1.0).unwrap();
            assert!((m - 1.0 / (1.0 - lambda)).abs() < 1e-12);
        }
        // λ·k ≥ 1: the slow server is overloaded.
        assert_eq!(random_mean(0.5, 100, 2.0), None);
        assert_eq!(random_mean(1.0, 100, 1.0), None);
        // 0.5 with k = 1.5: (99·2 + 1.5/0.25)/100 = 2.04.
        assert!((random_mean(0.5, 100, 1.5).unwrap() - 2.04).abs() < 1e-12);
        assert!((fixed_point(0.9, 1).unwrap() - 10.0).abs() < 1e-9);
        assert!((slow_offered_load(0.01, 0.5, 100, 5.0) - 2.5).abs() < 1e-12);
    }

    #[test]
    fn p99_closed_forms() {
        // Identical servers: M/M/1's exponential sojourn, ln 100/(1 − λ), both ways.
        for lambda in [0.1, 0.5, 0.9, 0.99] {
            let want = libm::log(100.0) / (1.0 - lambda);
            let r = random_p99(lambda, 100, 1.0).unwrap();
            assert!((r / want - 1.0).abs() < 1e-10, "{r} vs {want}");
            assert_eq!(fixed_point_p99(lambda, 1), Some(want));
        }
        // The mixture's survival at its p99 is 1%, computed independently.
        let (lambda, k, n) = (0.5, 1.5, 100.0);
        let t = random_p99(lambda, 100, k).unwrap();
        let s = (n - 1.0) / n * libm::exp(-(1.0 - lambda) * t)
            + libm::exp(-(1.0 - lambda * k) / k * t) / n;
        assert!((s - 0.01).abs() < 1e-12, "{s}");
        assert_eq!(random_p99(0.5, 100, 2.0), None);
        // The fixed point's survival, summed here in log space (theory sums the Poisson terms
        // by recurrence), is 1% at the p99, integrates to the fixed point's mean (Simpson's rule),
        // and the p99 is below one choice's and falls with d.
        for (lambda, d) in [(0.5, 2), (0.9, 2), (0.9, 3), (0.99, 2)] {
            let p99 = fixed_point_p99(lambda, d).unwrap();
            let mean = fixed_point_mean_time(lambda, d).unwrap();
            let tails: Vec<f64> = (0..64u32)
                .map(|j| {
                    fixed_point_share_of(lambda, d, j).map_or(if j == 0 { 1.0 } else { 0.0 }, |s| {
                        libm::pow(s, f64::from(d))
                    })
                })
                .collect();
            let log_fact: Vec<f64> = (0..64u32)
                .scan(0.0, |acc, j| {
                    if j > 0 {
                        *acc += libm::log(f64::from(j));
                    }
                    Some(*acc)
                })
                .collect();
            let survival = |t: f64| {
                (0..64)
                    .map(|j| {
                        let log_pmf = -t + j as f64 * libm::log(t.max(1e-300)) - log_fact[j];
                        libm::exp(log_pmf) * tails[j]
                    })
                    .sum::<f64>()
            };
            assert!((survival(p99) - 0.01).abs() < 1e-9, "λ={lambda} d={d}");
            // Simpson's rule on [0, 100] in steps of 0.01 (the survival at 100 is below 10⁻²⁰).
            let h = 0.01;
            let integral: f64 = (0..5_000)
                .map(|i| {
                    let a = 2.0 * i as f64 * h;
                    h / 3.0 * (survival(a) + 4.0 * survival(a + h) + survival(a + 2.0 * h))
                })
                .sum();
            assert!((integral / mean - 1.0).abs() < 1e-8, "{integral} vs {mean}");
            assert!(p99 < fixed_point_p99(lambda, 1).unwrap());
        }
        assert!(fixed_point_p99(0.9, 3).unwrap() < fixed_point_p99(0.9, 2).unwrap());
        assert_eq!(fixed_point_p99(1.0, 2), None);
    }

    #[test]
    fn only_a_fixed_share_past_capacity_is_unbounded() {
        let settled = |fixed, lambda, n, k| unbounded(fixed, lambda, n, k, 0.9, 0.05);
        assert!(settled(true, 0.5, 100, 2.0));
        assert!(!settled(true, 0.5, 100, 1.9));
        assert!(!settled(false, 0.9, 100, 100.0));
        // 10 servers at λ = 0.95 offer 9.5 against a capacity of 9 + 1/100: every signal.
        assert!(settled(false, 0.95, 10, 100.0));
        // 2 servers at λ = 0.9 offer 1.8 against 1 + 1/10.
        assert!(settled(false, 0.9, 2, 10.0));
        assert!(!settled(false, 0.5, 2, 10.0));
        // A late load of 1.05 ± 0.05 is a server at its capacity; 1.25 ± 0.05 is not.
        assert!(!unbounded(false, 0.9, 100, 5.0, 1.05, 0.05));
        assert!(unbounded(false, 0.9, 100, 5.0, 1.25, 0.05));
        // Batch means: shares 0.002 and 0.004 in alternate batches of 1,000, λ·n·k = 450.
        let batches: Vec<(u32, u32)> = (0..20)
            .map(|i| (1000, if i % 2 == 0 { 2 } else { 4 }))
            .collect();
        let (load, se) = late_load(&batches, 0.9, 100, 5.0);
        assert!((load - 0.003 * 450.0).abs() < 1e-12);
        // s² = 20·0.001²/19; se = s/√20.
        let want = (20.0f64 * 1e-6 / 19.0 / 20.0).sqrt() * 450.0;
        assert!((se - want).abs() < 1e-12, "{se} vs {want}");
        // An exact share (round robin) has no spread: se 0, up to rounding.
        assert!(late_load(&[(100, 1); 20], 0.9, 100, 5.0).1 < 1e-12);
        assert!(late_load(&[(100, 1)], 0.9, 100, 5.0).0.is_nan());
    }
}
