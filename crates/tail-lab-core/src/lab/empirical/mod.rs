//! Your own latencies (issue 21, item 3): a reader's measurements as a service model that every
//! section taking one runs on.
//!
//! - [`parse`] reads the formats engineers have (latencies one per line or in a CSV column, an
//!   HdrHistogram percentile table as wrk2 prints it, a Prometheus histogram's buckets, typed
//!   percentiles), refusing bad input by line.
//! - Samples become their interpolated empirical CDF
//!   ([`EmpiricalDistribution::from_samples`]); percentiles and buckets become a monotone fit
//!   through their points ([`fit::fit_points`]).
//! - [`model_of`] turns either into a [`ServiceModel`], so the fan-out, the hedge on idle and on
//!   loaded replicas, the request graph, correlated stragglers and the Tail page draw from it.
//!
//! The check, in the report and through `simulateEmpirical`: the sampler reproduces the
//! distribution. Its draws' empirical CDF is within the Dvoretzky–Kiefer–Wolfowitz bound of
//! the fitted CDF (`P(sup |F_m − F| > ε) ≤ 2·exp(−2mε²)` for `m` draws), and a fan-out of `n`
//! leaves drawn from it has the parent quantiles `F⁻¹(q^(1/n))` of the closed form. The report
//! runs on a bundled sample ([`EXAMPLE`]): 5,000 latencies of a cached service.

mod call;
pub mod fit;
pub mod parse;

pub use call::{CALL, COLUMN, FANOUT, FORMAT_NAMES, PARSE_OPTIONS, UNIT_NAMES, parse_options};

use crate::describe::{Describe, Field, Unit, Value};
use crate::error::{CountRange, ParamError};
use crate::lab::service::{ServiceModel, ServiceSampler};
use crate::model::{Model, RunOutput, each_described};
use crate::sampling::address::{RequestKey, Stream};
use crate::sampling::empirical::EmpiricalDistribution;
use crate::theory::check_fanout;
use parse::{InputError, Values};
use std::sync::Arc;

/// The random stream of the empirical check's draws and parents (id 16).
pub const STREAM: Stream = Stream::new(16);

/// The bundled example: 5,000 request latencies (ms) of a cached service, one per line (hits
/// near 1.9 ms, misses near 14 ms, rare stalls near 180 ms).
pub const EXAMPLE: &str = include_str!("example.txt");

/// Draws one check may make (leaves in all: `requests · (1 + n)`, bounded by the binding's
/// work limit as well).
pub const REQUESTS: CountRange = crate::count_range!(2, 10000000);

/// The fan-out the report's check uses.
pub const REPORT_FANOUT: u32 = 100;

/// The distribution a parsed input describes: the interpolated ECDF of samples, or the fit
/// through a summary's points. Refused, in words, when the values have no spread (every
/// latency the same) or the points are too few to fit.
pub fn distribution_of(values: Values) -> Result<EmpiricalDistribution, InputError> {
    let whole = |message: String| InputError { line: 0, message };
    match values {
        Values::Samples(s) => {
            if let Some(&first) = s.first()
                && s.len() > 1
                && s.iter().all(|&x| x == first)
            {
                return Err(whole(format!(
                    "every latency is {} ms: a distribution needs at least two different values",
                    crate::error::readable(first)
                )));
            }
            if s.len() < 2 {
                return Err(whole(
                    "there is one latency: a distribution needs at least two different values"
                        .into(),
                ));
            }
            EmpiricalDistribution::from_samples(s)
                .map_err(|e| whole(format!("the latencies do not make a distribution: {e}")))
        }
        Values::Points(p) => {
            let points: Vec<_> = p.iter().map(|&(_, point)| point).collect();
            fit::fit_points(&points).map_err(|e| {
                whole(match e.param() {
                    "points" => format!(
                        "{} point{} cannot be fitted: give at least two percentiles strictly \
                         between p0 and p100 (say p50 and p99; a minimum or a maximum only \
                         bounds the fit), or a histogram with buckets below its +Inf",
                        points.len(),
                        if points.len() == 1 { "" } else { "s" }
                    ),
                    _ if points.windows(2).all(|w| w[0].ms == w[1].ms) => format!(
                        "every point is at {} ms: a distribution needs a spread",
                        crate::error::readable(points[0].ms)
                    ),
                    _ => format!("the points do not make a distribution: {e}"),
                })
            })
        }
    }
}

/// The service model of a distribution, under the Lab's limits ([`ServiceModel::empirical`]).
pub fn model_of(distribution: EmpiricalDistribution) -> Result<ServiceModel, ParamError> {
    ServiceModel::empirical(Arc::new(distribution))
}

/// [`model_of`], refused in a reader's words: which of their figures the Lab cannot measure.
pub fn measurable(distribution: EmpiricalDistribution) -> Result<ServiceModel, InputError> {
    let (p50, p9999) = (distribution.quantile(0.5), distribution.quantile(0.9999));
    model_of(distribution).map_err(|_| {
        let ms = short;
        InputError {
            line: 0,
            message: if p9999 > crate::lab::service::MAX_SERVICE_P9999_MS {
                format!(
                    "these latencies reach {} ms at their p99.99; the Lab measures up to \
                     100000 ms (100 s): check the unit (seconds read as ms?)",
                    ms(p9999)
                )
            } else {
                format!(
                    "these latencies have a median of {} ms; the Lab measures from 0.125 ms: \
                     check the unit (ns or µs read as ms?)",
                    ms(p50)
                )
            },
        }
    })
}

/// A time (ms) to four significant digits, with no trailing zeros.
fn short(ms: f64) -> String {
    significant(ms, 4)
}

/// `ms` to `digits` significant digits (1..=17), with no trailing zeros: plain decimals from
/// 10⁻⁴ to below 10¹⁰, an exponent outside them (`1e-320`, `2.5e12`), so that no positive time
/// is written as 0. The percentile reader reads either back.
fn significant(ms: f64, digits: usize) -> String {
    let digits = digits.clamp(1, 17);
    if !ms.is_finite() || ms == 0.0 {
        return format!("{ms}");
    }
    let exponent = libm::floor(libm::log10(ms.abs())) as i32;
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..10).contains(&exponent) {
        let decimals = (digits as i32 - 1 - exponent).max(0) as usize;
        trim(&format!("{ms:.decimals$}"))
    } else {
        let text = format!("{ms:.prec$e}", prec = digits - 1);
        match text.split_once('e') {
            Some((mantissa, power)) => format!("{}e{power}", trim(mantissa)),
            None => text,
        }
    }
}

/// The longest summary a link carries (characters): the page's limit on its `data` setting.
pub const SUMMARY_MAX_CHARS: usize = 300;

/// A short summary of a distribution, as typed percentiles the [`parse`] reader reads back:
/// `min:…,p50:…,p90:…,p99:…,p99.9:…,max:…` (ms). This is what a link carries instead of a
/// reader's data; read back, it is fitted through those points.
///
/// Four significant digits where they suffice; more where four would write a summary that does
/// not read back into a distribution the Lab accepts (1,000 latencies from 10.0000 to
/// 10.0039 ms are all "10" to four digits, and a fit needs a spread), up to the 17 that write
/// every f64 exactly. Where no six points read back, the p99.99 is added: the fit between the
/// p99.9 and a far maximum (99,999 latencies of 5–10 ms and one of 1,000 s) can pass the Lab's
/// limit at its p99.99, which the data itself keeps. `None` only when no summary of at most
/// [`SUMMARY_MAX_CHARS`] reads back: then no link may carry the data, and the page must say so
/// rather than write a link it refuses.
pub fn summary(d: &EmpiricalDistribution) -> Option<String> {
    let (min, max) = d.range_ms();
    let six = [
        ("min", min),
        ("p50", d.quantile(0.5)),
        ("p90", d.quantile(0.9)),
        ("p99", d.quantile(0.99)),
        ("p99.9", d.quantile(0.999)),
        ("max", max),
    ];
    let mut seven = six.to_vec();
    seven.insert(5, ("p99.99", d.quantile(0.9999)));
    [&six[..], &seven[..]].into_iter().find_map(|points| {
        (4..=17).find_map(|digits| {
            let text = points
                .iter()
                .map(|(label, v)| format!("{label}:{}", significant(*v, digits)))
                .collect::<Vec<_>>()
                .join(",");
            (text.len() <= SUMMARY_MAX_CHARS && reads_back(&text)).then_some(text)
        })
    })
}

/// Whether a link's summary reads as the page reads it: typed percentiles, fitted, and a
/// service model the Lab measures.
fn reads_back(text: &str) -> bool {
    let options = parse::ParseOptions {
        format: Some(parse::Format::Percentiles),
        ..parse::ParseOptions::default()
    };
    parse::parse(text.as_bytes(), &options)
        .and_then(|input| distribution_of(input.values))
        .and_then(measurable)
        .is_ok()
}

/// The bundled example, read and fitted.
pub fn example() -> EmpiricalDistribution {
    let input = parse::parse(EXAMPLE.as_bytes(), &parse::ParseOptions::default())
        .expect("the bundled example parses");
    distribution_of(input.values).expect("the bundled example fits")
}

/// What the check is run on.
#[derive(Debug, Clone)]
pub struct EmpiricalParams {
    /// The distribution under test.
    pub distribution: Arc<EmpiricalDistribution>,
    /// Single draws for the distribution check, and parent requests for the fan-out check.
    pub requests: u64,
    /// Leaves per parent in the fan-out check (1..=1024; 1..=1000 through the API,
    /// [`FANOUT`]).
    pub fanout: u32,
    /// The seed.
    pub seed: u64,
}

impl EmpiricalParams {
    /// The check's work in the bindings' units (about 10 ns of wasm each): one a draw,
    /// `requests × (1 + fanout)` (the single draws and the parents' leaves).
    pub fn work_units(&self) -> f64 {
        self.requests as f64 * (1.0 + f64::from(self.fanout))
    }
}

/// The check of a distribution's sampler: its quantiles and KS distance, and a fan-out on it.
#[derive(Debug, Clone, PartialEq)]
pub struct EmpiricalResult {
    /// Knots of the distribution (its size).
    pub knots: u64,
    /// Draws made for the distribution check (also the parents of the fan-out check).
    pub requests: u64,
    /// The distribution's mean (ms), exact.
    pub mean_ms: f64,
    /// Quantiles (ms) at 0.5, 0.9, 0.99, 0.999: the distribution's exact ones.
    pub theory: [f64; 4],
    /// The same quantiles of the draws (interpolated order statistics, as the distribution
    /// interpolates its own knots).
    pub sim: [f64; 4],
    /// `sup_t |F_draws(t) − F(t)|`, on both sides of every draw.
    pub ks_distance: f64,
    /// The DKW bound at 95%: `√(ln(2/0.05) / (2m))` for `m` draws.
    pub dkw_bound_95: f64,
    /// Leaves per parent in the fan-out check.
    pub fanout: u32,
    /// Parent (the slowest of `fanout` leaves) p50 and p99 (ms) of the simulated parents.
    pub parent_sim: [f64; 2],
    /// Their closed forms: the leaf quantiles at `0.5^(1/n)` and `0.99^(1/n)`.
    pub parent_theory: [f64; 2],
}

const LEVELS: [f64; 4] = [0.5, 0.9, 0.99, 0.999];

/// The `q`-quantile of sorted values, interpolated at rank `q·(m − 1)`.
fn sorted_quantile(sorted: &[f64], q: f64) -> f64 {
    let rank = q * (sorted.len() - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (rank - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Runs the check.
pub fn simulate(params: EmpiricalParams) -> Result<EmpiricalResult, ParamError> {
    let EmpiricalParams {
        distribution,
        requests,
        fanout,
        seed,
    } = params;
    REQUESTS.check("requests", requests)?;
    check_fanout("fanout", fanout)?;
    let model = ServiceModel::empirical(Arc::clone(&distribution))?;
    let sampler = ServiceSampler::new(model);
    let mut draws: Vec<f64> = (0..requests)
        .map(|k| {
            sampler
                .sample(RequestKey::new(seed, STREAM, k).sample(0, 0))
                .ms
        })
        .collect();
    draws.sort_unstable_by(f64::total_cmp);
    let m = draws.len() as f64;
    let mut ks = 0.0f64;
    let mut i = 0;
    while i < draws.len() {
        let x = draws[i];
        let mut j = i;
        while j < draws.len() && draws[j] == x {
            j += 1;
        }
        // Below x the draws' ECDF is i/m, at x it is j/m.
        ks = ks
            .max((distribution.cdf_below(x) - i as f64 / m).abs())
            .max((distribution.cdf(x) - j as f64 / m).abs());
        i = j;
    }
    let mut parents: Vec<f64> = (0..requests)
        .map(|k| {
            let key = RequestKey::new(seed, STREAM, k);
            (1..=fanout)
                .map(|leaf| sampler.sample(key.sample(leaf, 0)).ms)
                .fold(0.0, f64::max)
        })
        .collect();
    parents.sort_unstable_by(f64::total_cmp);
    let n = f64::from(fanout);
    Ok(EmpiricalResult {
        knots: distribution.levels().len() as u64,
        requests,
        mean_ms: distribution.mean_ms(),
        theory: LEVELS.map(|q| distribution.quantile(q)),
        sim: LEVELS.map(|q| sorted_quantile(&draws, q)),
        ks_distance: ks,
        dkw_bound_95: (libm::log(2.0 / 0.05) / (2.0 * m)).sqrt(),
        fanout,
        parent_sim: [0.5, 0.99].map(|q| sorted_quantile(&parents, q)),
        parent_theory: [0.5, 0.99].map(|q: f64| distribution.quantile(libm::pow(q, 1.0 / n))),
    })
}

impl Describe for EmpiricalResult {
    const TYPE_NAME: &'static str = "EmpiricalResult";
    const DOC: &'static str = "Your own latencies as a model: the distribution's exact \
        quantiles beside its sampler's, their Kolmogorov–Smirnov distance beside the DKW bound, \
        and a fan-out drawn from it beside its closed form.";

    fn describe(&self) -> Vec<Field> {
        let q = |key, doc, v| Field::ms(key, doc, v);
        vec![
            Field::count(
                "knots",
                "Knots of the distribution (its quantile function is linear between them).",
                self.knots,
            ),
            Field::count(
                "requests",
                "Draws made for the distribution check, and parents for the fan-out check.",
                self.requests,
            ),
            q("mean_ms", "The distribution's mean, exact.", self.mean_ms),
            q(
                "theory_p50",
                "The distribution's median, exact.",
                self.theory[0],
            ),
            q(
                "theory_p90",
                "The distribution's p90, exact.",
                self.theory[1],
            ),
            q(
                "theory_p99",
                "The distribution's p99, exact.",
                self.theory[2],
            ),
            q(
                "theory_p999",
                "The distribution's p99.9, exact.",
                self.theory[3],
            ),
            q("p50", "Median of the draws.", self.sim[0]),
            q("p90", "p90 of the draws.", self.sim[1]),
            q("p99", "p99 of the draws.", self.sim[2]),
            q("p999", "p99.9 of the draws.", self.sim[3]),
            Field::fraction(
                "ks_distance",
                "sup |F_draws(t) − F(t)| over t: how far the draws' CDF strays from the distribution's.",
                self.ks_distance,
            ),
            Field::fraction(
                "dkw_bound_95",
                "The DKW bound at 95% for this many draws, √(ln 40 / 2m): a correct sampler's distance exceeds it one run in twenty.",
                self.dkw_bound_95,
            ),
            Field::new(
                "fanout",
                Unit::Count,
                "Leaves per parent in the fan-out check.",
                Value::Integer(u64::from(self.fanout)),
            ),
            q(
                "parent_p50",
                "Median of the parents (each the slowest of its leaves).",
                self.parent_sim[0],
            ),
            q("parent_p99", "p99 of the parents.", self.parent_sim[1]),
            q(
                "theory_parent_p50",
                "The parent median in closed form: the leaf quantile at 0.5^(1/n).",
                self.parent_theory[0],
            ),
            q(
                "theory_parent_p99",
                "The parent p99 in closed form: the leaf quantile at 0.99^(1/n).",
                self.parent_theory[1],
            ),
        ]
    }
}

fn run(_: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    Ok(Box::new(simulate(EmpiricalParams {
        distribution: Arc::new(example()),
        // Each parent draws 100 leaves: a tenth of the report's requests keeps the run short.
        requests: (requests / 10).max(REQUESTS.lo),
        fanout: REPORT_FANOUT,
        seed,
    })?))
}

/// Your own latencies in the report (on the bundled example) and the API
/// (`simulateEmpirical`).
pub const MODEL: Model = Model {
    key: "empirical",
    title: "Your own latencies: the bundled example (5,000 latencies of a cached service) as a model",
    note: "the sampler reproduces the data: its draws stay within the DKW bound of the \
           interpolated empirical CDF, and a fan-out of 100 on it has the parent quantiles \
           F⁻¹(q^(1/100)) of the closed form",
    call: Some("simulateEmpirical"),
    api: Some(&CALL),
    closed_forms: &[],
    result_type: <EmpiricalResult as Describe>::TYPE_NAME,
    result_doc: <EmpiricalResult as Describe>::DOC,
    streams: &[STREAM],
    sweep: false,
    runs: 1,
    run,
    entries: each_described::<EmpiricalResult>,
    example: || {
        simulate(EmpiricalParams {
            distribution: Arc::new(example()),
            requests: 100,
            fanout: 10,
            seed: 1,
        })
        .expect("valid")
        .describe()
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    /// A text of latencies, read, fitted and measured as the page does.
    fn accepted(text: &str) -> EmpiricalDistribution {
        let input = parse::parse(text.as_bytes(), &parse::ParseOptions::default()).unwrap();
        let d = distribution_of(input.values).unwrap();
        measurable(d.clone()).unwrap();
        d
    }

    /// Issue 32 item 5: every link written from accepted data reads back. Four digits wrote
    /// 1,000 latencies from 10.0000 to 10.0039 ms as `min:10,…,max:10`, which the page then
    /// refused ("every point is at 10 ms"), and a latency of 1e-320 ms as `min:0`.
    #[test]
    fn a_summary_always_reads_back() {
        let narrow: String = (0..1000)
            .map(|i| format!("{:.7}\n", 10.0 + 0.0039 * f64::from(i) / 999.0))
            .collect();
        let tiny = format!("1e-320\n{}", "5\n7\n".repeat(50));
        let huge_spread = "0.2\n0.3\n90000\n".repeat(40);
        // 99,999 latencies of 5–10 ms and one of 1,000 s: fitted through six points, the tail
        // past the p99.9 passes the Lab's p99.99 limit, so the p99.99 is carried too.
        let outlier: String = (0..99_999)
            .map(|i| format!("{}\n", 5.0 + f64::from(i % 500) / 100.0))
            .chain(std::iter::once("1000000\n".to_string()))
            .collect();
        for text in [
            narrow.as_str(),
            tiny.as_str(),
            huge_spread.as_str(),
            outlier.as_str(),
            EXAMPLE,
        ] {
            let d = accepted(text);
            let s = summary(&d).expect("a summary that reads back");
            assert!(!s.contains(":0,"), "no positive time is written as 0: {s}");
        }
        let narrow = summary(&accepted(&narrow)).unwrap();
        assert!(narrow.starts_with("min:10,p50:10.00"), "{narrow}");
        let tiny = summary(&accepted(&tiny)).unwrap();
        assert!(tiny.starts_with("min:1e-320,"), "{tiny}");
        let outlier = summary(&accepted(&outlier)).unwrap();
        assert!(outlier.contains(",p99.99:"), "{outlier}");
    }

    #[test]
    fn significant_digits_keep_every_positive_time_positive() {
        assert_eq!(significant(2.1049, 4), "2.105");
        assert_eq!(significant(12345.6, 4), "12346");
        assert_eq!(significant(0.00012346, 4), "0.0001235");
        assert_eq!(significant(1e-320, 4), "1e-320");
        assert_eq!(significant(2.5e12, 4), "2.5e12");
        assert_eq!(significant(10.00195, 6), "10.002");
        for x in [1e-300, 3.3e-7, 0.5, 7.0, 1e9, 9.99e9, 1e15] {
            let back: f64 = significant(x, 17).parse().unwrap();
            assert_eq!(back, x, "17 digits write {x} exactly");
        }
    }

    #[test]
    fn the_example_is_what_it_says() {
        let d = example();
        // 5,000 samples: every order statistic is a knot (ties included).
        assert_eq!(d.levels().len(), 5000);
        // Its modes: a median among the hits, a p90 among the misses, a p99.9 in the stalls.
        assert!((1.5..3.0).contains(&d.quantile(0.5)), "{}", d.quantile(0.5));
        assert!(
            (10.0..25.0).contains(&d.quantile(0.9)),
            "{}",
            d.quantile(0.9)
        );
        assert!(d.quantile(0.999) > 100.0, "{}", d.quantile(0.999));
        assert_eq!(
            summary(&d).as_deref(),
            Some("min:0.738,p50:2.11,p90:14.77,p99:25.97,p99.9:225.3,max:472.2")
        );
        assert!(model_of(d).is_ok());
    }
}
