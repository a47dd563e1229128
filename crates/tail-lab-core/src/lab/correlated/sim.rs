//! The simulation: every request's leaves at the chosen `c` and at `c = 0`, with each fix.

use super::theory::{self, Setting, parent_quantile, parent_survival};
use super::{
    COIN_STREAM, Checked, CorrelatedParams, CorrelatedResult, Curves, GainSweep, Outcome,
    SHARED_LEAF, SIM_CR, STREAM, THEORY_CR_POINTS,
};
use crate::error::ParamError;
use crate::lab::hedge_idle::{CURVE_EDGE_STEP, Percentiles};
use crate::lab::service::{ServiceModel, ServiceSampler};
use crate::sampling::address::{RequestKey, probability_threshold};
use crate::sampling::histogram::{Histogram, shared_bins};

// A leaf's attempts on the service stream: its own time, its backup's independent time.
const OWN: u32 = 0;
const BACKUP: u32 = 1;

/// One request's leaves at the chosen `c` (`leaves`), as [`simulate`] draws them: what a
/// test checks each leaf's own law on. `leaves` is cleared first.
pub fn request_leaves(checked: &Checked, sampler: &ServiceSampler, k: u64, leaves: &mut Vec<f64>) {
    let p = &checked.params;
    let key = RequestKey::new(p.seed, STREAM, k);
    let coins = RequestKey::new(p.seed, COIN_STREAM, k);
    let shared = sampler.sample(key.sample(SHARED_LEAF, OWN)).ms;
    let take = probability_threshold(p.c);
    leaves.clear();
    for i in 0..p.n {
        let own_bits = coins.sample(i, 0).next_bits();
        leaves.push(if own_bits < take {
            shared
        } else {
            sampler.sample(key.sample(i, OWN)).ms
        });
    }
}

/// The parent's per-request latencies for each fix, accumulated.
struct Parents {
    h: [Histogram; 3],
    slow: [u64; 3],
}

impl Parents {
    fn new() -> Self {
        Parents {
            h: [Histogram::new(), Histogram::new(), Histogram::new()],
            slow: [0; 3],
        }
    }

    fn record(&mut self, fix: usize, t_ms: f64, slow_ms: f64) {
        self.h[fix].record(shared_bins(), t_ms);
        self.slow[fix] += u64::from(t_ms > slow_ms);
    }
}

/// The `(n − dropped)`-th smallest of `v` (reordered), or the largest when nothing is dropped.
fn kept_last(v: &mut [f64], dropped: u32) -> f64 {
    let m = v.len() - dropped as usize;
    let (_, x, _) = v.select_nth_unstable_by(m - 1, f64::total_cmp);
    *x
}

/// The closed forms of one fix at leaf correlation `c` (the slow share at `slow_ms`).
pub fn closed_form(model: &ServiceModel, setting: Setting, slow_ms: f64) -> [f64; 4] {
    [
        parent_quantile(model, setting, 0.5),
        parent_quantile(model, setting, 0.99),
        parent_quantile(model, setting, 0.999),
        theory::slow_share(model, setting, slow_ms),
    ]
}

/// Simulates `requests` parents of `n` leaves under the common-shock model at the chosen `c`
/// and at `c = 0`, each with no fix, with the slowest leaves dropped and with a hedge, beside
/// their closed forms; the hedge's gain as `c_r` rises; and the leaves' own percentiles.
///
/// ```
/// use tail_lab_core::lab::correlated::{CorrelatedParams, Delay, simulate};
/// use tail_lab_core::lab::service::ServiceModel;
/// let params = CorrelatedParams {
///     model: ServiceModel::default(),
///     n: 100, c: 0.3, cr: 0.5, drop: 0.01, delay: Delay::Quantile(0.95), p: 0.01,
///     requests: 5_000, seed: 1,
/// };
/// let r = simulate(params.clone()).unwrap();
/// let [none, _, _] = r.correlated;
/// let [none_indep, _, _] = r.independent;
/// // Correlation improves the raw parent: fewer requests meet a slow leaf.
/// assert!(none.theory_slow_share < none_indep.theory_slow_share);
/// assert!((none.slow_share - none.theory_slow_share).abs() < 0.03);
/// let bad = CorrelatedParams { c: 1.5, ..params };
/// assert_eq!(simulate(bad).unwrap_err().param(), "c");
/// ```
pub fn simulate(params: CorrelatedParams) -> Result<CorrelatedResult, ParamError> {
    let checked = params.check()?;
    let p = &checked.params;
    let (n, d, slow_ms, dropped) = (p.n, checked.delay_ms, checked.slow_ms, checked.dropped);
    let sampler = ServiceSampler::shared(p.model.clone());
    let take = probability_threshold(p.c);
    let same = probability_threshold(p.cr);
    let sweep_same = SIM_CR.map(probability_threshold);
    let bins = shared_bins();
    let (mut corr, mut indep) = (Parents::new(), Parents::new());
    let mut sweep: Vec<Histogram> = SIM_CR.iter().map(|_| Histogram::new()).collect();
    let mut leaf_h = Histogram::new();
    let mut leaf_slow = 0u64;
    let (mut xs, mut owns) = (
        Vec::with_capacity(n as usize),
        Vec::with_capacity(n as usize),
    );
    for k in 0..p.requests {
        let key = RequestKey::new(p.seed, STREAM, k);
        let coins = RequestKey::new(p.seed, COIN_STREAM, k);
        let shared = sampler.sample(key.sample(SHARED_LEAF, OWN)).ms;
        xs.clear();
        owns.clear();
        let (mut hedge_c, mut hedge_i) = (0.0f64, 0.0f64);
        let mut sweep_max = [0.0f64; SIM_CR.len()];
        for i in 0..n {
            let mut coin = coins.sample(i, 0);
            let (take_bits, same_bits) = (coin.next_bits(), coin.next_bits());
            let own = sampler.sample(key.sample(i, OWN)).ms;
            let x = if take_bits < take { shared } else { own };
            leaf_h.record(bins, x);
            leaf_slow += u64::from(x > slow_ms);
            // The backup's independent time, drawn only for a primary still out at d.
            let backup = if x > d || own > d {
                d + sampler.sample(key.sample(i, BACKUP)).ms
            } else {
                f64::INFINITY
            };
            let hedged = |primary: f64, threshold: u64| {
                if primary <= d || same_bits < threshold {
                    primary
                } else {
                    primary.min(backup)
                }
            };
            hedge_c = hedge_c.max(hedged(x, same));
            hedge_i = hedge_i.max(hedged(own, same));
            for (m, &t) in sweep_max.iter_mut().zip(&sweep_same) {
                *m = m.max(hedged(x, t));
            }
            xs.push(x);
            owns.push(own);
        }
        let max_c = xs.iter().copied().fold(0.0, f64::max);
        let max_i = owns.iter().copied().fold(0.0, f64::max);
        corr.record(0, max_c, slow_ms);
        indep.record(0, max_i, slow_ms);
        let (drop_c, drop_i) = if dropped == 0 {
            (max_c, max_i)
        } else {
            (kept_last(&mut xs, dropped), kept_last(&mut owns, dropped))
        };
        corr.record(1, drop_c, slow_ms);
        indep.record(1, drop_i, slow_ms);
        corr.record(2, hedge_c, slow_ms);
        indep.record(2, hedge_i, slow_ms);
        for (h, &m) in sweep.iter_mut().zip(&sweep_max) {
            h.record(bins, m);
        }
    }
    let requests = p.requests as f64;
    let model = &p.model;
    let outcomes = |parents: &Parents, settings: [Setting; 3]| {
        [0, 1, 2].map(|f| {
            let [p50, p99, p999, slow] = closed_form(model, settings[f], slow_ms);
            Outcome {
                sim: Percentiles::of(&parents.h[f]),
                slow_share: parents.slow[f] as f64 / requests,
                theory_p50: p50,
                theory_p99: p99,
                theory_p999: p999,
                theory_slow_share: slow,
            }
        })
    };
    let correlated = outcomes(&corr, checked.settings(p.c));
    let independent = outcomes(&indep, checked.settings(0.0));

    let none_p99 = Percentiles::of(&corr.h[0]).p99;
    let hedge_at = |cr: f64| Setting {
        n,
        c: p.c,
        fix: theory::Fix::Hedge { delay_ms: d, cr },
    };
    let theory_cr: Vec<f64> = (0..THEORY_CR_POINTS)
        .map(|j| {
            let x = j as f64 / (THEORY_CR_POINTS - 1) as f64;
            x * x
        })
        .collect();
    let gain = GainSweep {
        cr: SIM_CR.to_vec(),
        sim_gain: sweep
            .iter()
            .map(|h| none_p99 / h.percentile(bins, 0.99))
            .collect(),
        theory_gain: theory_cr
            .iter()
            .map(|&cr| correlated[0].theory_p99 / parent_quantile(model, hedge_at(cr), 0.99))
            .collect(),
        theory_cr,
    };

    let t_ms: Vec<f64> = bins
        .edges()
        .iter()
        .step_by(CURVE_EDGE_STEP)
        .copied()
        .collect();
    let sim_curves = |parents: &Parents| {
        [0, 1, 2].map(|f| {
            t_ms.iter()
                .map(|&t| parents.h[f].survival(bins, t))
                .collect()
        })
    };
    let theory_curves = |settings: [Setting; 3]| {
        settings.map(|s| t_ms.iter().map(|&t| parent_survival(model, s, t)).collect())
    };
    let curves = Curves {
        sim: sim_curves(&corr),
        sim_independent: sim_curves(&indep),
        theory: theory_curves(checked.settings(p.c)),
        theory_independent: theory_curves(checked.settings(0.0)),
        leaf: t_ms.iter().map(|&t| model.survival(t)).collect(),
        t_ms,
    };
    Ok(CorrelatedResult {
        n,
        c: p.c,
        cr: p.cr,
        drop: p.drop,
        dropped,
        delay_ms: d,
        p: p.p,
        slow_ms,
        requests: p.requests,
        leaf: Percentiles::of(&leaf_h),
        theory_leaf_p50: model.quantile(0.5),
        theory_leaf_p99: model.quantile(0.99),
        theory_leaf_p999: model.quantile(0.999),
        leaf_slow_share: leaf_slow as f64 / (requests * f64::from(n)),
        correlated,
        independent,
        gain,
        curves,
    })
}
