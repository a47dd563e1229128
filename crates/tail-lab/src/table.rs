//! The report as a plain-text table: simulated value, closed form, and the seed's figure.

use std::fmt::Write;
use tail_lab_core::report::{Report, seed_figures as seed};

fn ms(v: f64) -> String {
    match v {
        v if !v.is_finite() => "—".into(),
        v if v >= 100.0 => format!("{v:.0} ms"),
        v if v >= 10.0 => format!("{v:.1} ms"),
        v => format!("{v:.2} ms"),
    }
}

fn pct(v: f64) -> String {
    format!("{:.2}%", 100.0 * v)
}

/// One line: what, simulated, theory, seed figure (empty cells allowed).
struct Row(String, String, String, String);

fn row(what: impl Into<String>, sim: String, theory: Option<String>, seed: Option<String>) -> Row {
    Row(
        what.into(),
        sim,
        theory.unwrap_or_default(),
        seed.unwrap_or_default(),
    )
}

/// The whole report as text.
pub fn report(r: &Report) -> String {
    let (h, t) = (&r.hedge_idle, &r.tail);
    let sections: [(String, Vec<Row>); 3] = [
        (
            "1 Fan-out".into(),
            vec![row(
                format!("slow share, p={} n={}", r.fanout.p, r.fanout.n),
                format!("{:.4}", r.fanout.sim),
                Some(format!("{:.4}", r.fanout.theory)),
                Some(format!("{:.3}", seed::SLOW_SHARE)),
            )],
        ),
        (
            format!(
                "2 Hedge on idle replicas (delay = p{:.0} = {})",
                100.0 * h.delay_quantile,
                ms(h.delay_ms)
            ),
            vec![
                row(
                    "p99.9 without hedge",
                    ms(h.before.p999),
                    Some(ms(h.theory_p999_before)),
                    Some(ms(seed::IDLE_P999_BEFORE)),
                ),
                row(
                    "p99.9 with hedge  [S(t)·S(t−d)]",
                    ms(h.after.p999),
                    Some(ms(h.theory_p999_after)),
                    Some(ms(seed::IDLE_P999_AFTER)),
                ),
                row("p50 without hedge", ms(h.before.p50), None, None),
                row("p50 with hedge", ms(h.after.p50), None, None),
                row("p99 without hedge", ms(h.before.p99), None, None),
                row("p99 with hedge", ms(h.after.p99), None, None),
                row(
                    "extra requests",
                    pct(h.extra_requests),
                    Some(pct(h.theory_extra_requests)),
                    Some(pct(seed::IDLE_EXTRA_REQUESTS)),
                ),
                row(
                    "extra work",
                    pct(h.extra_work),
                    Some(pct(h.theory_extra_work)),
                    Some(pct(seed::IDLE_EXTRA_WORK)),
                ),
            ],
        ),
        (
            format!(
                "3 Tail, fan-out {} (theory: F(t)^n on measured leaves)",
                t.n
            ),
            vec![
                row("leaf p99", ms(t.leaf_p99), None, Some(ms(seed::LEAF_P99))),
                row(
                    format!(
                        "parent p50  [leaf {:.2}th pct]",
                        100.0 * t.parent_p50_leaf_level
                    ),
                    ms(t.parent_p50),
                    Some(ms(t.theory_parent_p50)),
                    None,
                ),
                row(
                    format!(
                        "parent p99  [leaf {:.2}th pct]",
                        100.0 * t.parent_p99_leaf_level
                    ),
                    ms(t.parent_p99),
                    Some(ms(t.theory_parent_p99)),
                    Some(ms(seed::PARENT_P99)),
                ),
                row(
                    "parent p99, hedge after leaf p95",
                    ms(t.hedge_parent_p99),
                    None,
                    Some(ms(seed::HEDGE_PARENT_P99)),
                ),
                row(
                    "  extra leaf requests",
                    pct(t.hedge_cost.extra_requests),
                    None,
                    None,
                ),
                row("  extra work", pct(t.hedge_cost.extra_work), None, None),
                row(
                    "parent p99, drop slowest 1%",
                    ms(t.drop1_parent_p99),
                    None,
                    Some(ms(seed::DROP1_PARENT_P99)),
                ),
                row(
                    "parent p99, drop slowest 5%",
                    ms(t.drop5_parent_p99),
                    None,
                    Some(ms(seed::DROP5_PARENT_P99)),
                ),
                row(
                    "GC pause: parent p99",
                    ms(t.gc_parent_p99),
                    None,
                    Some(ms(seed::GC_PARENT_P99)),
                ),
                row(
                    "GC pause: parent p99 with hedge",
                    ms(t.gc_hedge_parent_p99),
                    None,
                    Some(ms(seed::GC_HEDGE_PARENT_P99)),
                ),
                row(
                    "tight: leaf p99",
                    ms(t.tight_leaf_p99),
                    None,
                    Some(ms(seed::TIGHT_LEAF_P99)),
                ),
                row(
                    "tight: parent p99",
                    ms(t.tight_parent_p99),
                    None,
                    Some(ms(seed::TIGHT_PARENT_P99)),
                ),
                row(
                    "crossover: parent p50 reaches leaf p99",
                    String::new(),
                    Some(format!("n = {}", t.crossover_n)),
                    Some("n = 69".into()),
                ),
            ],
        ),
    ];
    let mut out = format!(
        "Tail Latency Lab · seed {} · {} requests per experiment\n\n  {:<40} {:>11} {:>11} {:>11}\n",
        r.seed, r.requests, "", "simulated", "theory", "seed doc"
    );
    for (title, rows) in sections {
        let _ = writeln!(out, "{title}");
        for Row(what, sim, theory, seed) in rows {
            let _ = writeln!(out, "  {what:<40} {sim:>11} {theory:>11} {seed:>11}");
        }
    }
    out.push_str(&loaded(r));
    out.push_str(&balance(r));
    out
}

fn opt_ms(v: Option<f64>) -> String {
    v.map(ms).unwrap_or_else(|| "unstable".into())
}

/// Section 4: one line per (load, policy).
fn loaded(r: &Report) -> String {
    let mut out = String::from(
        "4 Hedging on 10 loaded FIFO replicas (hedge after the p95 of no-backup latency at the same\n  load; a backup is cancelled when the primary answers, the primary always runs; seed: the\n  hedge costs ~3% at every load, duplicating wins at 20% load and pushes the median up ~26x\n  at 70%, where it is at capacity: its numbers there grow with the run's length)\n",
    );
    let _ = writeln!(
        out,
        "  {:>5} {:<10} {:>9} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>6}",
        "load", "policy", "delay", "p50", "p99", "p99.9", "requests", "work", "capacity", "util"
    );
    for l in &r.loaded {
        let p = |f: fn(&tail_lab_core::lab::hedge_idle::Percentiles) -> f64| {
            opt_ms(l.latency.as_ref().map(f))
        };
        let _ = writeln!(
            out,
            "  {:>5.1} {:<10} {:>9} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>6.3}{}",
            l.load,
            l.policy,
            l.delay_ms.map_or("-".into(), ms),
            p(|x| x.p50),
            p(|x| x.p99),
            p(|x| x.p999),
            pct(l.extra_requests),
            pct(l.extra_work),
            pct(l.capacity_cost),
            l.utilisation,
            if l.at_capacity() { "  at capacity" } else { "" },
        );
    }
    out
}

/// Section 5: supermarket model against the fixed point.
fn balance(r: &Report) -> String {
    let mut out = String::from(
        "5 Power of d choices, 100 servers (seed: λ=0.9 random 10.0, best of two 2.63 vs 2.61)\n",
    );
    let _ = writeln!(
        out,
        "  {:>6} {:>3} {:>12} {:>12} {:>10}",
        "lambda", "d", "mean time", "fixed point", "p99"
    );
    let num = |v: Option<f64>| {
        v.map(|x| format!("{x:.3}"))
            .unwrap_or_else(|| "unstable".into())
    };
    for b in &r.balance {
        let _ = writeln!(
            out,
            "  {:>6.2} {:>3} {:>12} {:>12} {:>10}",
            b.lambda,
            b.d,
            num(b.mean_time),
            num(b.theory),
            num(b.p99)
        );
    }
    out
}
