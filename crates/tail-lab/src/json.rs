//! The report as JSON. Keys are stable and documented in the README; times are ms, fractions
//! are 0..1. Only this crate knows JSON: the core's types carry no serde derives.

use serde_json::{Value, json};
use tail_lab_core::report::Report;

/// The whole report as one JSON object.
pub fn report(r: &Report) -> Value {
    let h = &r.hedge_idle;
    let t = &r.tail;
    json!({
        "seed": r.seed,
        "requests": r.requests,
        "fanout": {
            "p": r.fanout.p, "n": r.fanout.n, "sim": r.fanout.sim, "theory": r.fanout.theory,
        },
        "hedge_idle": {
            "delay_q": h.delay_quantile,
            "delay_ms": h.delay_ms,
            "p50_before": h.before.p50, "p99_before": h.before.p99, "p999_before": h.before.p999,
            "p50_after": h.after.p50, "p99_after": h.after.p99, "p999_after": h.after.p999,
            "theory_p999_before": h.theory_p999_before,
            "theory_p999_after": h.theory_p999_after,
            "extra_requests": h.extra_requests,
            "theory_extra_requests": h.theory_extra_requests,
            "extra_work": h.extra_work,
            "theory_extra_work": h.theory_extra_work,
        },
        "tail": {
            "n": t.n,
            "leaf_p99": t.leaf_p99,
            "parent_p50": t.parent_p50,
            "parent_p99": t.parent_p99,
            "parent_p50_leaf_level": t.parent_p50_leaf_level,
            "parent_p99_leaf_level": t.parent_p99_leaf_level,
            "theory_parent_p50": t.theory_parent_p50,
            "theory_parent_p99": t.theory_parent_p99,
            "hedge_parent_p99": t.hedge_parent_p99,
            "hedge_extra_requests": t.hedge_cost.extra_requests,
            "hedge_extra_work": t.hedge_cost.extra_work,
            "drop1_parent_p99": t.drop1_parent_p99,
            "drop5_parent_p99": t.drop5_parent_p99,
            "gc_parent_p99": t.gc_parent_p99,
            "gc_hedge_parent_p99": t.gc_hedge_parent_p99,
            "tight_leaf_p99": t.tight_leaf_p99,
            "tight_parent_p99": t.tight_parent_p99,
            "crossover_n": t.crossover_n,
        },
        "loaded": r.loaded.iter().map(|l| json!({
            "load": l.load,
            "policy": l.policy,
            "cancellation": l.cancellation,
            "delay_ms": l.delay_ms,
            "p50": l.latency.map(|p| p.p50),
            "p99": l.latency.map(|p| p.p99),
            "p999": l.latency.map(|p| p.p999),
            "mean": l.mean_ms,
            "extra_requests": l.extra_requests,
            "extra_work": l.extra_work,
            "capacity_cost": l.capacity_cost,
            "utilisation": l.utilisation,
            "stable": l.stable,
            "at_capacity": l.at_capacity(),
        })).collect::<Vec<Value>>(),
        "balance": r.balance.iter().map(|b| json!({
            "lambda": b.lambda,
            "d": b.d,
            "mean_time": b.mean_time,
            "theory": b.theory,
            "p99": b.p99,
            "stable": b.stable,
        })).collect::<Vec<Value>>(),
    })
}
