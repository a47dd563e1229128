//! Fan-out latency: the parent's mean, median and p99 when it waits for all `n` leaves, each
//! drawn from the Lab's service model ([`crate::lab::service`]) with slow probability `p`.
//!
//! The parent answers when its last leaf does, so its latency is the maximum of `n`
//! independent leaf latencies. With the leaf's CDF `F` (survival `S = 1 − F`):
//! - the parent's CDF is `F(t)^n`, its survival `1 − (1 − S(t))^n` ([`parent_survival`]);
//! - its `q`-quantile is the leaf's `q^(1/n)`-quantile ([`crate::theory::parent_level`]),
//!   found here by inverting the leaf survival at `1 − q^(1/n)` ([`parent_quantile`]);
//! - its mean is `∫₀^∞ (1 − F(t)^n) dt` ([`parent_mean_ms`]).
//!
//! The point the Lab makes with it (seed 004, "the average lies"): at `p` = 1% and `n` = 100
//! the leaf's mean (about 19 ms) is 2.5 times its median (7.7 ms), and the parent's mean sits
//! *below* the parent's median. A mixture of a fast mode and a slow one has a mean that
//! describes neither.
//!
//! The simulation draws every leaf from [`STREAM`], addressed by (request, leaf), with the
//! service model's fast sampler, and measures the parent's and the leaves' percentiles on the
//! shared histogram bins, as every Lab model does: memory does not grow with the run (a call
//! may run 10^7 parents; exact order statistics would hold all of them), merged counts are
//! exact, and the error of a percentile is at most one bin (2%) and far less where the
//! density is smooth. The means are exact sums, with their standard errors.

use crate::api::{Call, OptionSpec, OptionValues, Prepared, SEED_OPTION, Work};
use crate::describe::{Describe, Field, Unit};
use crate::error::{CountRange, ParamError, check_range};
use crate::lab::service::{ServiceModel, ServiceSampler};
use crate::model::{Model, RunOutput, each_described};
use crate::sampling::address::{RequestKey, Stream};
use crate::sampling::histogram::{BinTally, Histogram, shared_bins};
use crate::theory::{check_fanout, invert_survival, log_time_trapezoid};

/// The random stream of the fan-out latency experiment's leaves (id 11).
pub const STREAM: Stream = Stream::new(11);

/// Requests one run may simulate: at least two, so that the means have a standard error
/// (a binding's call is bounded further by its work limit, 2 × requests × n).
pub const REQUESTS: CountRange = crate::count_range!(2, 1000000000);

/// Requests one call of a binding may simulate (the work bound applies too).
pub const REQUESTS_PER_CALL: CountRange = crate::count_range!(2, 10000000);

// Each leaf is called once: its one attempt.
const ONLY_ATTEMPT: u32 = 0;

/// The Lab's service model with slow probability `p` (0..=1): body median 7.7 ms, σ 0.5; slow
/// mode median 1 s, σ 0.35 ([`ServiceModel::default`]'s, with its 1% replaced by `p`).
pub fn service_model(p: f64) -> Result<ServiceModel, ParamError> {
    check_range("p", p, 0.0, 1.0, "a probability in 0..=1")?;
    let d = ServiceModel::default();
    let (body, slow) = (d.body(), d.slow());
    ServiceModel::new(body.expect("a mixture"), p, slow.expect("a mixture"))
}

/// `P(parent > t)` for `t` in ms: `1 − (1 − S(t))^n`, computed as `−expm1(n · log1p(−S))` so
/// that a tiny leaf survival keeps its digits.
pub fn parent_survival(model: &ServiceModel, n: u32, t_ms: f64) -> f64 {
    let s = model.survival(t_ms);
    if s >= 1.0 {
        return 1.0;
    }
    -libm::expm1(f64::from(n) * libm::log1p(-s))
}

/// The parent's exact `q`-quantile (ms, `q` in (0, 1)) over `n` leaves: the leaf survival
/// inverted at `1 − q^(1/n) = −expm1(ln q / n)` (exact near 1, where `q^(1/n)` is).
pub fn parent_quantile(model: &ServiceModel, n: u32, q: f64) -> f64 {
    let target = -libm::expm1(libm::log(q) / f64::from(n));
    invert_survival(|t| model.survival(t), target)
}

/// Points per decade of the parent mean's quadrature.
const POINTS_PER_DECADE: u32 = 100;

/// The parent's exact mean (ms) over `n` leaves: `∫₀^∞ P(parent > t) dt`, integrated with the
/// trapezoid rule in log time (`∫ P(parent > e^u) e^u du`), 100 points a decade, as
/// [`crate::theory::idle_hedge_extra_work`] integrates its survival product (both are
/// [`log_time_trapezoid`]). The range widens while either cut-off piece could exceed 10⁻¹² of
/// the leaf mean; below it the parent survival is 1. The integrand is smooth and
/// decays past the top, and the bottom end's error term is added back, so the rule converges
/// far faster than its step: four times the points move the answer by less than 10⁻¹²
/// relative (a test checks), and at n = 1 it is the leaf's mean in closed form to 10⁻¹².
pub fn parent_mean_ms(model: &ServiceModel, n: u32) -> f64 {
    parent_mean_with(model, n, POINTS_PER_DECADE)
}

/// [`parent_mean_ms`] with `points_per_decade` points a decade.
fn parent_mean_with(model: &ServiceModel, n: u32, points_per_decade: u32) -> f64 {
    let survival = |t| parent_survival(model, n, t);
    let q = log_time_trapezoid(
        survival,
        survival,
        1e-12 * model.mean_ms(),
        points_per_decade,
    );
    // Below `lo` the survival is 1 and the integral `lo`. At `lo` the log-time integrand is
    // still `e^u · lo`, not flat, so the trapezoid rule there is off by `−h²/12 · lo` (the
    // Euler–Maclaurin end term; the next one, `h⁴/720 · lo`, is under 10⁻¹⁸ ms): added back.
    q.integral + q.lo + q.h * q.h / 12.0 * q.lo
}

/// The closed forms at one `(p, n)`: the parent's and the leaf's mean, median and p99 (ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyTheory {
    /// The parent's mean (ms): `∫₀^∞ (1 − F(t)^n) dt`.
    pub parent_mean_ms: f64,
    /// The parent's median (ms): the leaf's `0.5^(1/n)`-quantile.
    pub parent_p50_ms: f64,
    /// The parent's p99 (ms): the leaf's `0.99^(1/n)`-quantile.
    pub parent_p99_ms: f64,
    /// The leaf's mean (ms): `(1 − p) · body mean + p · slow mean`.
    pub leaf_mean_ms: f64,
    /// The leaf's median (ms).
    pub leaf_p50_ms: f64,
    /// The leaf's p99 (ms).
    pub leaf_p99_ms: f64,
}

/// The closed forms at slow probability `p` (0..=1) and fan-out `n` (1..=1024).
///
/// ```
/// use tail_lab_core::lab::fanout_latency::theory;
/// let t = theory(0.01, 100).unwrap();
/// // The mean describes neither mode: the leaf's is 2.5× its median, the parent's is below
/// // the parent's median.
/// assert!(t.leaf_mean_ms > 2.4 * t.leaf_p50_ms);
/// assert!(t.parent_mean_ms < t.parent_p50_ms);
/// assert_eq!(theory(0.01, 0).unwrap_err().param(), "n");
/// ```
pub fn theory(p: f64, n: u32) -> Result<LatencyTheory, ParamError> {
    let model = service_model(p)?;
    check_fanout("n", n)?;
    Ok(theory_of(&model, n))
}

/// [`theory`] for leaves drawn from `model`.
pub fn theory_on(model: &ServiceModel, n: u32) -> Result<LatencyTheory, ParamError> {
    check_fanout("n", n)?;
    Ok(theory_of(model, n))
}

fn theory_of(model: &ServiceModel, n: u32) -> LatencyTheory {
    LatencyTheory {
        parent_mean_ms: parent_mean_ms(model, n),
        parent_p50_ms: parent_quantile(model, n, 0.5),
        parent_p99_ms: parent_quantile(model, n, 0.99),
        leaf_mean_ms: model.mean_ms(),
        leaf_p50_ms: model.quantile(0.5),
        leaf_p99_ms: model.quantile(0.99),
    }
}

/// The named parameters of a fan-out latency run, for [`simulate`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FanoutLatencyParams {
    /// Probability (0..=1) that a leaf takes the slow mode.
    pub p: f64,
    /// Leaves per request, 1..=1024.
    pub n: u32,
    /// Parent requests simulated, 2..=10^9.
    pub requests: u64,
    /// The seed.
    pub seed: u64,
}

impl FanoutLatencyParams {
    /// The run's work in the bindings' units (about 10 ns of wasm each): two per leaf draw,
    /// `2 × requests × n`. A leaf here is a service draw, a histogram count, two sums and a
    /// max, measured in node at about twice one Tail leaf draw (one unit).
    pub fn work_units(&self) -> f64 {
        2.0 * self.requests as f64 * f64::from(self.n)
    }
}

/// A mean with its standard error, summed around a shift (the closed-form mean) so the
/// sums of squares lose no digits.
#[derive(Debug, Clone, Copy)]
struct ShiftedSums {
    shift: f64,
    sum: f64,
    sum_sq: f64,
    count: f64,
}

impl ShiftedSums {
    fn new(shift: f64) -> Self {
        ShiftedSums {
            shift,
            sum: 0.0,
            sum_sq: 0.0,
            count: 0.0,
        }
    }

    #[inline(always)]
    fn add(&mut self, x: f64) {
        let d = x - self.shift;
        self.sum += d;
        self.sum_sq += d * d;
        self.count += 1.0;
    }

    /// The mean and its standard error, `sqrt(s² / count)` with the sample variance `s²`
    /// (at least two values were added).
    fn mean_and_std_err(&self) -> (f64, f64) {
        let c = self.count;
        let var = ((self.sum_sq - self.sum * self.sum / c) / (c - 1.0)).max(0.0);
        (self.shift + self.sum / c, libm::sqrt(var / c))
    }
}

/// The simulated parent and leaf latencies beside their closed forms (ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FanoutLatencyResult {
    /// Probability (0..1) that a leaf takes the slow mode (0 for your own latencies, which
    /// have no slow mode of their own).
    pub p: f64,
    /// Leaves per request.
    pub n: u32,
    /// Parent requests simulated.
    pub requests: u64,
    /// The parents' mean latency (ms).
    pub parent_mean: f64,
    /// Standard error of `parent_mean` (ms): the sample standard deviation over `√requests`.
    pub parent_mean_std_err: f64,
    /// The parents' median (ms), from the shared histogram bins.
    pub parent_p50: f64,
    /// The parents' p99 (ms), from the shared histogram bins.
    pub parent_p99: f64,
    /// The leaves' mean latency over every leaf of every request (ms).
    pub leaf_mean: f64,
    /// Standard error of `leaf_mean` (ms), over `requests × n` independent leaves.
    pub leaf_mean_std_err: f64,
    /// The leaves' median (ms), from the shared histogram bins.
    pub leaf_p50: f64,
    /// The leaves' p99 (ms), from the shared histogram bins. Near `p` = 1% it falls in the gap
    /// between the two modes, where the CDF is nearly flat (at the defaults it moves by 10⁻⁵
    /// from 65 ms to 159 ms), so the simulated value may land anywhere in the gap.
    pub leaf_p99: f64,
    /// The closed forms.
    pub theory: LatencyTheory,
}

/// Simulates `requests` parents, each waiting for `n` leaves drawn from the Lab's service model
/// with slow probability `p`, under `seed`: the parents' and the leaves' mean, median and p99
/// beside their closed forms ([`theory`]).
///
/// ```
/// use tail_lab_core::lab::fanout_latency::{FanoutLatencyParams, simulate};
/// let r = simulate(FanoutLatencyParams { p: 0.01, n: 100, requests: 20_000, seed: 1 }).unwrap();
/// assert!((r.parent_mean - r.theory.parent_mean_ms).abs() < 5.0 * r.parent_mean_std_err);
/// // The parent's mean is below its median, in the simulation as in the closed form.
/// assert!(r.parent_mean < r.parent_p50);
/// let bad = FanoutLatencyParams { p: 1.5, n: 100, requests: 100, seed: 1 };
/// assert_eq!(simulate(bad).unwrap_err().param(), "p");
/// ```
pub fn simulate(params: FanoutLatencyParams) -> Result<FanoutLatencyResult, ParamError> {
    let FanoutLatencyParams {
        p,
        n,
        requests,
        seed,
    } = params;
    simulate_on(service_model(p)?, n, requests, seed)
}

/// [`simulate`] with every leaf drawn from `model` (a reader's own latencies, say) instead of
/// the Lab's model at a slow probability: the same draws, streams and closed forms.
pub fn simulate_on(
    model: ServiceModel,
    n: u32,
    requests: u64,
    seed: u64,
) -> Result<FanoutLatencyResult, ParamError> {
    check_fanout("n", n)?;
    let p = model.slow_probability();
    REQUESTS.check("requests", requests)?;
    let theory = theory_of(&model, n);
    let sampler = ServiceSampler::new(model);
    let bins = shared_bins();
    let (mut parent_h, mut leaf_h) = (Histogram::new(), Histogram::new());
    // The leaves are counted in a tally (integer adds), emptied before it could overflow.
    let mut leaf_tally = BinTally::new();
    let mut in_tally = 0u64;
    let mut parent = ShiftedSums::new(theory.parent_mean_ms);
    let mut leaf = ShiftedSums::new(theory.leaf_mean_ms);
    for k in 0..requests {
        if in_tally + u64::from(n) > BinTally::CAPACITY {
            leaf_h.take_tally(&mut leaf_tally);
            in_tally = 0;
        }
        let key = RequestKey::new(seed, STREAM, k);
        let mut slowest = 0.0f64;
        for i in 0..n {
            let ms = sampler.sample(key.sample(i, ONLY_ATTEMPT)).ms;
            leaf_tally.record_bin(bins.bin_of(ms));
            leaf.add(ms);
            slowest = slowest.max(ms);
        }
        leaf_tally.add_to_total(n);
        in_tally += u64::from(n);
        parent_h.record(bins, slowest);
        parent.add(slowest);
    }
    leaf_h.take_tally(&mut leaf_tally);
    let (parent_mean, parent_mean_std_err) = parent.mean_and_std_err();
    let (leaf_mean, leaf_mean_std_err) = leaf.mean_and_std_err();
    Ok(FanoutLatencyResult {
        p,
        n,
        requests,
        parent_mean,
        parent_mean_std_err,
        parent_p50: parent_h.percentile(bins, 0.5),
        parent_p99: parent_h.percentile(bins, 0.99),
        leaf_mean,
        leaf_mean_std_err,
        leaf_p50: leaf_h.percentile(bins, 0.5),
        leaf_p99: leaf_h.percentile(bins, 0.99),
        theory,
    })
}

impl Describe for FanoutLatencyResult {
    const TYPE_NAME: &'static str = "FanoutLatencyResult";
    const DOC: &'static str = "The parent's latency when it waits for all n leaves (the max), \
        and the leaf's: mean, median and p99, simulated beside the closed forms.";

    fn describe(&self) -> Vec<Field> {
        let t = &self.theory;
        vec![
            Field::fraction("p", "Probability that a leaf takes the slow mode.", self.p),
            Field::count("n", "Leaves per request.", u64::from(self.n)),
            Field::count("requests", "Parent requests simulated.", self.requests),
            Field::ms(
                "parent_mean",
                "The parents' mean latency (the max of n leaves).",
                self.parent_mean,
            ),
            Field::ms(
                "theory_parent_mean",
                "Closed form: ∫₀^∞ (1 − F(t)^n) dt.",
                t.parent_mean_ms,
            ),
            Field::ms(
                "parent_mean_std_err",
                "Standard error of parent_mean: sample standard deviation over √requests.",
                self.parent_mean_std_err,
            ),
            Field::ms(
                "parent_p50",
                "The parents' median, from the shared histogram bins.",
                self.parent_p50,
            ),
            Field::ms(
                "theory_parent_p50",
                "Closed form: F⁻¹(0.5^(1/n)).",
                t.parent_p50_ms,
            ),
            Field::ms(
                "parent_p99",
                "The parents' p99, from the shared histogram bins.",
                self.parent_p99,
            ),
            Field::ms(
                "theory_parent_p99",
                "Closed form: F⁻¹(0.99^(1/n)).",
                t.parent_p99_ms,
            ),
            Field::ms(
                "leaf_mean",
                "The leaves' mean latency, over every leaf of every request.",
                self.leaf_mean,
            ),
            Field::ms(
                "theory_leaf_mean",
                "Closed form: (1 − p) · body mean + p · slow-mode mean.",
                t.leaf_mean_ms,
            ),
            Field::ms(
                "leaf_mean_std_err",
                "Standard error of leaf_mean, over requests × n independent leaves.",
                self.leaf_mean_std_err,
            ),
            Field::ms(
                "leaf_p50",
                "The leaves' median, from the shared histogram bins.",
                self.leaf_p50,
            ),
            Field::ms("theory_leaf_p50", "Closed form: F⁻¹(0.5).", t.leaf_p50_ms),
            Field::ms(
                "leaf_p99",
                "The leaves' p99, from the shared histogram bins. Near p = 1% it falls in the \
                 gap between the modes, where the CDF is nearly flat, so it may land anywhere \
                 in the gap.",
                self.leaf_p99,
            ),
            Field::ms("theory_leaf_p99", "Closed form: F⁻¹(0.99).", t.leaf_p99_ms),
        ]
    }
}

/// The report's fan-out latency: p = 1%, n = 100 (seed 001's fan-out, seed 004's point).
const REPORT_P: f64 = 0.01;
const REPORT_N: u32 = 100;

fn run(_: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    let params = FanoutLatencyParams {
        p: REPORT_P,
        n: REPORT_N,
        // The report may ask for one request; the means need two for a standard error.
        requests: requests.max(REQUESTS.lo),
        seed,
    };
    Ok(Box::new(simulate(params)?))
}

/// Fan-out latency in the report and the API (`simulateFanoutLatency`).
pub const MODEL: Model = Model {
    key: "fanout_latency",
    title: "Fan-out latency: the parent waits for all n leaves (p = 1%, n = 100)",
    note: "the average lies: the leaf's mean is 2.5 times its median, and the parent's mean \
           sits below the parent's median; the mean describes neither mode. The leaf's p99 \
           falls in the gap between the modes, where almost no mass lies, so its simulated \
           value may land anywhere in the gap",
    call: Some("simulateFanoutLatency"),
    api: Some(&CALL),
    closed_forms: &["fanoutLatencyTheory"],
    result_type: <FanoutLatencyResult as Describe>::TYPE_NAME,
    result_doc: <FanoutLatencyResult as Describe>::DOC,
    streams: &[STREAM],
    sweep: false,
    runs: 1,
    run,
    entries: each_described::<FanoutLatencyResult>,
    example: || {
        simulate(FanoutLatencyParams {
            p: REPORT_P,
            n: REPORT_N,
            requests: 100,
            seed: 1,
        })
        .expect("valid")
        .describe()
    },
};

/// `simulateFanoutLatency`: the parent's latency when it waits for all its leaves.
pub const CALL: Call = Call {
    name: "simulateFanoutLatency",
    doc: "The parent's latency when it waits for all `n` leaves, each from the Lab's service \
          model with slow probability `p` (or your own `service`): the parents' and the leaves' \
          mean, median and p99, beside the closed forms.",
    options_type: "FanoutLatencyOptions",
    options_doc: "Options of `simulateFanoutLatency`: the Lab's service model, its slow mode \
                  taken with probability `p`, at every one of `n` leaves; the parent waits for \
                  all of them.",
    options: &[
        OptionSpec::number(
            "p",
            "Probability that a leaf takes the slow mode.",
            Unit::Fraction,
            crate::error::PROBABILITY,
            0.01,
        ),
        OptionSpec {
            name: "service",
            doc: "Draw every leaf from this model instead (your own latencies, say).",
            unit: Unit::None,
            kind: crate::api::Kind::Service,
        },
        OptionSpec::count(
            "n",
            "Leaves per request.",
            Unit::Count,
            crate::theory::FANOUT,
            100,
        ),
        OptionSpec::count(
            "requests",
            "Parent requests simulated (2 × requests × n at most the work limit).",
            Unit::Count,
            REQUESTS_PER_CALL,
            20_000,
        ),
        SEED_OPTION,
    ],
    exclusive: &[["p", "service"]],
    result_type: <FanoutLatencyResult as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| {
        let params = FanoutLatencyParams {
            p: o.number("p").expect("p has a default"),
            n: o.count("n") as u32,
            requests: o.count("requests"),
            seed: o.seed("seed"),
        };
        let work = Work {
            units: params.work_units(),
            counted_as: "2 × requests × n".into(),
        };
        let model = o.given_service("service");
        Ok(Prepared::new(work, move || {
            let result = match model {
                Some(m) => simulate_on(m, params.n, params.requests, params.seed),
                None => simulate(params),
            };
            Ok(result?.describe())
        }))
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_leaf_is_the_leaf() {
        let m = service_model(0.01).unwrap();
        let t = theory(0.01, 1).unwrap();
        assert!(
            (t.parent_mean_ms / m.mean_ms() - 1.0).abs() < 1e-12,
            "{t:?}"
        );
        assert!((t.parent_p50_ms / t.leaf_p50_ms - 1.0).abs() < 1e-12);
        assert!((t.parent_p99_ms / t.leaf_p99_ms - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_quadrature_has_converged() {
        for (p, n) in [(0.0, 1), (0.01, 100), (0.2, 1024), (1.0, 7), (0.001, 3)] {
            let m = service_model(p).unwrap();
            let a = parent_mean_with(&m, n, POINTS_PER_DECADE);
            let b = parent_mean_with(&m, n, 4 * POINTS_PER_DECADE);
            assert!((a / b - 1.0).abs() < 1e-12, "p={p} n={n}: {a} vs {b}");
        }
    }

    #[test]
    fn bad_arguments_name_themselves() {
        let ok = FanoutLatencyParams {
            p: 0.01,
            n: 10,
            requests: 10,
            seed: 1,
        };
        for (bad, name) in [
            (FanoutLatencyParams { p: -0.1, ..ok }, "p"),
            (FanoutLatencyParams { p: f64::NAN, ..ok }, "p"),
            (FanoutLatencyParams { n: 0, ..ok }, "n"),
            (FanoutLatencyParams { n: 1025, ..ok }, "n"),
            (FanoutLatencyParams { requests: 1, ..ok }, "requests"),
        ] {
            let e = simulate(bad).unwrap_err();
            assert_eq!(e.param(), name, "{bad:?}");
            assert!(!e.to_string().is_empty());
        }
        assert!(simulate(ok).is_ok());
    }
}
