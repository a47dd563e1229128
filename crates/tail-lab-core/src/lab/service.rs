//! The Lab's service-time model (seed 000/001): a lognormal body, *replaced* with a small
//! probability by a slow mode around one second (a hiccup).
//!
//! Unlike a [`crate::tail::profile::LeafProfile`], whose pause adds to the body, a slow request here
//! takes the slow mode's time instead of the body's. The default is calibrated so that a p95
//! hedge on idle replicas reproduces seed 000's figures: body median 7.7 ms, σ 0.5; slow mode
//! with probability 1%, median 1 s, σ 0.35.

use crate::api::{Kind as OptionKind, OptionSpec, OptionValues, Record};
use crate::describe::Unit;
use crate::error::{Ends, NumberRange, ParamError};
use crate::sampling::address::{SampleStream, Stream, probability_threshold};
use crate::sampling::empirical::{EmpiricalDistribution, KNOTS};
use crate::sampling::inverse_cdf::InverseCdfTable;
use crate::sampling::lognormal::{LogNormalMs, MEDIAN_MS, SIGMA};
use crate::theory::invert_survival;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// A service-time distribution: the Lab's mixture (a lognormal body replaced, with probability
/// `slow_probability`, by a slow mode), or a reader's own measured latencies.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceModel {
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Mixture {
        body: LogNormalMs,
        slow_probability: f64,
        slow: LogNormalMs,
    },
    /// Shared: every sampler and every clone of a model reads the same knots.
    Empirical(Arc<EmpiricalDistribution>),
}

impl Default for ServiceModel {
    fn default() -> Self {
        ServiceModel {
            kind: Kind::Mixture {
                body: LogNormalMs::new(7.7, 0.5).expect("valid"),
                slow_probability: 0.01,
                slow: LogNormalMs::new(1000.0, 0.35).expect("valid"),
            },
        }
    }
}

/// The longest p99.99 (ms) a service model may have: a tenth of the shared histogram's top
/// edge (2^20 ms, about 17 minutes), so that queueing on top of it still lands inside the
/// histogram, and no percentile is silently clamped at the top edge.
pub const MAX_SERVICE_P9999_MS: f64 = 100_000.0;

/// The shortest median (ms) a service model may have: twice the shared histogram's first edge
/// (2^-4 ms), so that no reported percentile (p50 and up) is silently clamped at the bottom.
pub const MIN_SERVICE_P50_MS: f64 = 0.125;

/// The chances of the slow mode accepted: a fraction in 0..=1.
pub const SLOW_PROBABILITY: NumberRange =
    NumberRange::new(0.0, 1.0, Ends::Closed, "a fraction in 0..=1");

const MEDIAN_OPTION: OptionSpec = OptionSpec {
    name: "medianMs",
    doc: "The median.",
    unit: Unit::Ms,
    kind: OptionKind::Number {
        range: MEDIAN_MS,
        default: None,
    },
};

const SIGMA_OPTION: OptionSpec = OptionSpec {
    name: "sigma",
    doc: "The log-spread: the standard deviation of the latency's logarithm.",
    unit: Unit::None,
    kind: OptionKind::Number {
        range: SIGMA,
        default: None,
    },
};

/// `{ medianMs, sigma }`: a lognormal.
pub const LOGNORMAL: Record = Record {
    type_name: "LogNormalOptions",
    doc: "A lognormal: its median and its log-spread.",
    fields: &[MEDIAN_OPTION, SIGMA_OPTION],
    required: &["medianMs", "sigma"],
};

/// `{ p, medianMs, sigma }`: the mixture's slow mode and its chance.
pub const SLOW_MODE: Record = Record {
    type_name: "SlowModeOptions",
    doc: "The slow mode of a mixture: a lognormal that replaces the body with probability `p`.",
    fields: &[
        OptionSpec {
            name: "p",
            doc: "The chance that a request takes the slow mode's time instead of the body's.",
            unit: Unit::Fraction,
            kind: OptionKind::Number {
                range: SLOW_PROBABILITY,
                default: None,
            },
        },
        MEDIAN_OPTION,
        SIGMA_OPTION,
    ],
    required: &["p", "medianMs", "sigma"],
};

/// `{ levels, ms }`: a distribution's knots.
pub const KNOTS_RECORD: Record = Record {
    type_name: "EmpiricalKnotsOptions",
    doc: "A distribution as its quantile function at knots, linear between them: `levels` rise \
          strictly from exactly 0 to exactly 1, `ms` never fall and are not all equal.",
    fields: &[
        OptionSpec {
            name: "levels",
            doc: "The knots' cumulative levels.",
            unit: Unit::Fraction,
            kind: OptionKind::Series { length: KNOTS },
        },
        OptionSpec {
            name: "ms",
            doc: "The knots' latencies.",
            unit: Unit::Ms,
            kind: OptionKind::Series { length: KNOTS },
        },
    ],
    required: &["levels", "ms"],
};

/// `{ body, slow }`: the Lab's kind of model, a mixture.
pub const MIXTURE: Record = Record {
    type_name: "MixtureServiceOptions",
    doc: "A service-time model: a lognormal body, replaced with probability `slow.p` by a slow \
          mode.",
    fields: &[
        OptionSpec {
            name: "body",
            doc: "The usual case.",
            unit: Unit::None,
            kind: OptionKind::Record(&LOGNORMAL),
        },
        OptionSpec {
            name: "slow",
            doc: "The slow mode; absent: none.",
            unit: Unit::None,
            kind: OptionKind::Record(&SLOW_MODE),
        },
    ],
    required: &["body"],
};

/// `{ empirical }`: your own latencies.
pub const EMPIRICAL: Record = Record {
    type_name: "EmpiricalServiceOptions",
    doc: "Your own latencies as a distribution (`parseLatencies(...).service` gives one).",
    fields: &[OptionSpec {
        name: "empirical",
        doc: "Its knots.",
        unit: Unit::None,
        kind: OptionKind::Record(&KNOTS_RECORD),
    }],
    required: &["empirical"],
};

/// The forms a `service` option takes ([`OptionKind::Service`]), told apart by their keys, the
/// first when none is given: the Lab's mixture, or your own latencies.
pub const SERVICE_FORMS: [&Record; 2] = [&MIXTURE, &EMPIRICAL];

/// The model the service option `param` (`"service"`) describes, from its values (read
/// against one of [`SERVICE_FORMS`], each field checked by its kind). An error names the part
/// of the option it is about as the caller writes it (`service.body.medianMs`), or the option
/// itself when the whole model is refused (a model the histogram could not measure).
pub fn service_of(param: &'static str, o: &OptionValues) -> Result<ServiceModel, ParamError> {
    let lognormal = |o: &OptionValues, part: &str| {
        LogNormalMs::new(
            o.number("medianMs").expect("a required field"),
            o.number("sigma").expect("a required field"),
        )
        .map_err(|e| {
            e.renamed(&[("median_ms", "medianMs")])
                .within(format!("{param}.{part}."))
        })
    };
    // The model's own refusals name the option as `service`.
    let whole = |e: ParamError| e.renamed(&[("service", param)]);
    if let Some(knots) = o.record("empirical") {
        let distribution = EmpiricalDistribution::from_knots(
            knots.series("levels").expect("a required field").to_vec(),
            knots.series("ms").expect("a required field").to_vec(),
        )
        .map_err(|e| match e.param() {
            "knots" => e
                .renamed(&[("knots", "empirical")])
                .within(format!("{param}.")),
            _ => e
                .renamed(&[("knots.levels", "levels"), ("knots.ms", "ms")])
                .within(format!("{param}.empirical.")),
        })?;
        return ServiceModel::empirical(Arc::new(distribution)).map_err(whole);
    }
    let body = lognormal(o.record("body").expect("a required field"), "body")?;
    match o.record("slow") {
        None => ServiceModel::new(body, 0.0, body).map_err(whole),
        Some(slow) => {
            let p = slow.number("p").expect("a required field");
            let mode = lognormal(slow, "slow")?;
            ServiceModel::new(body, p, mode).map_err(|e| match e.param() {
                "slow_probability" => e
                    .renamed(&[("slow_probability", "p")])
                    .within(format!("{param}.slow.")),
                _ => whole(e),
            })
        }
    }
}

impl ServiceModel {
    /// A model from its parts; `slow_probability` is a fraction in 0..=1. Refused when its
    /// p99.99 passes [`MAX_SERVICE_P9999_MS`] or its median is under [`MIN_SERVICE_P50_MS`].
    pub fn new(
        body: LogNormalMs,
        slow_probability: f64,
        slow: LogNormalMs,
    ) -> Result<Self, ParamError> {
        SLOW_PROBABILITY.check("slow_probability", slow_probability)?;
        ServiceModel {
            kind: Kind::Mixture {
                body,
                slow_probability,
                slow,
            },
        }
        .measurable()
    }

    /// A model that is a reader's own latencies ([`crate::lab::empirical`] builds the
    /// distribution), under the same limits as [`ServiceModel::new`].
    pub fn empirical(distribution: Arc<EmpiricalDistribution>) -> Result<Self, ParamError> {
        ServiceModel {
            kind: Kind::Empirical(distribution),
        }
        .measurable()
    }

    /// `self`, if the shared histogram can measure it: its p99.99 at most
    /// [`MAX_SERVICE_P9999_MS`] and its median at least [`MIN_SERVICE_P50_MS`].
    fn measurable(self) -> Result<Self, ParamError> {
        let p9999 = self.quantile(0.9999);
        if p9999.is_nan() || p9999 > MAX_SERVICE_P9999_MS {
            return Err(ParamError::OutOfRange {
                param: "service",
                got: p9999,
                expected: "a model whose p99.99 is at most 100000 ms (latencies past the \
                           histogram's top, 1048576 ms, could not be measured)",
            });
        }
        let p50 = self.quantile(0.5);
        if p50.is_nan() || p50 < MIN_SERVICE_P50_MS {
            return Err(ParamError::OutOfRange {
                param: "service",
                got: p50,
                expected: "a model whose median is at least 0.125 ms (shorter latencies fall \
                           under the histogram's first edge, 0.0625 ms, and could not be measured)",
            });
        }
        Ok(self)
    }

    /// The mixture's usual-case distribution (ms); `None` for a reader's data, which has no
    /// modes of its own.
    pub fn body(&self) -> Option<LogNormalMs> {
        match &self.kind {
            Kind::Mixture { body, .. } => Some(*body),
            Kind::Empirical(_) => None,
        }
    }
    /// Probability (0..=1) that a request hits the mixture's slow mode; 0 for a reader's data.
    pub fn slow_probability(&self) -> f64 {
        match &self.kind {
            Kind::Mixture {
                slow_probability, ..
            } => *slow_probability,
            Kind::Empirical(_) => 0.0,
        }
    }
    /// The mixture's slow mode (ms); `None` for a reader's data.
    pub fn slow(&self) -> Option<LogNormalMs> {
        match &self.kind {
            Kind::Mixture { slow, .. } => Some(*slow),
            Kind::Empirical(_) => None,
        }
    }

    /// The reader's distribution, when this model is one.
    pub fn as_empirical(&self) -> Option<&Arc<EmpiricalDistribution>> {
        match &self.kind {
            Kind::Mixture { .. } => None,
            Kind::Empirical(d) => Some(d),
        }
    }

    /// `P(service > t)` for `t` in ms, in closed form.
    pub fn survival(&self, t_ms: f64) -> f64 {
        match &self.kind {
            Kind::Mixture {
                body,
                slow_probability,
                slow,
            } => {
                (1.0 - slow_probability) * body.survival(t_ms)
                    + slow_probability * slow.survival(t_ms)
            }
            Kind::Empirical(d) => d.survival(t_ms),
        }
    }

    /// Mean service time (ms).
    pub fn mean_ms(&self) -> f64 {
        match &self.kind {
            Kind::Mixture {
                body,
                slow_probability,
                slow,
            } => (1.0 - slow_probability) * body.mean_ms() + slow_probability * slow.mean_ms(),
            Kind::Empirical(d) => d.mean_ms(),
        }
    }

    /// Second moment of the service time (ms²): for the mixture, its two modes' `E[S²]` mixed.
    /// With the Lab's default it is ≈ 12,873 ms², 99% of it from the 1% hiccups.
    pub fn second_moment_ms2(&self) -> f64 {
        match &self.kind {
            Kind::Mixture {
                body,
                slow_probability,
                slow,
            } => {
                (1.0 - slow_probability) * body.second_moment_ms2()
                    + slow_probability * slow.second_moment_ms2()
            }
            Kind::Empirical(d) => d.second_moment_ms2(),
        }
    }

    /// The exact `q`-quantile (ms).
    pub fn quantile(&self, q: f64) -> f64 {
        match &self.kind {
            Kind::Mixture { .. } => invert_survival(|t| self.survival(t), 1.0 - q),
            Kind::Empirical(d) => d.quantile(q),
        }
    }
}

/// The fast, addressed sampler of a [`ServiceModel`].
#[derive(Debug, Clone)]
pub struct ServiceSampler {
    model: ServiceModel,
    draw: Draw,
}

#[derive(Debug, Clone)]
enum Draw {
    Mixture {
        threshold: u64,
        body: InverseCdfTable,
        slow: InverseCdfTable,
    },
    Empirical(Arc<EmpiricalDistribution>),
}

impl ServiceSampler {
    /// The `q`-quantile (ms) of `draws` service times from the calibration stream `stream`
    /// under `seed`: sorted, interpolated between order statistics at rank `q · (draws − 1)`.
    /// This is how every hedge delay in the Lab is set ("calibrated on a separate seed").
    pub fn calibrated_quantile(&self, seed: u64, stream: Stream, q: f64, draws: usize) -> f64 {
        let draws = draws.max(2);
        let mut v: Vec<f64> = (0..draws as u64)
            .map(|j| self.sample(SampleStream::at(seed, stream, j, 0, 0)).ms)
            .collect();
        v.sort_unstable_by(f64::total_cmp);
        let rank = q.clamp(0.0, 1.0) * (draws - 1) as f64;
        let (lo, f) = (rank.floor() as usize, rank - rank.floor());
        v[lo] + f * (v[(lo + 1).min(draws - 1)] - v[lo])
    }
}

/// One service time and which mode produced it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServiceDraw {
    /// The service time (ms).
    pub ms: f64,
    /// True when the slow mode produced it.
    pub slow: bool,
}

impl ServiceSampler {
    /// Tabulates `model`.
    pub fn new(model: ServiceModel) -> Self {
        let draw = match &model.kind {
            Kind::Mixture {
                body,
                slow_probability,
                slow,
            } => Draw::Mixture {
                threshold: probability_threshold(*slow_probability),
                body: body.table(),
                slow: slow.table(),
            },
            Kind::Empirical(d) => Draw::Empirical(Arc::clone(d)),
        };
        ServiceSampler { model, draw }
    }

    /// `model`'s sampler, shared with the calls before it on this thread for the same model.
    ///
    /// Its tables (about 100 KB, some 12,000 quantiles by `erfc` and `exp`) depend only on the
    /// model, so a run can reuse the last run's instead of tabulating again: the loaded model
    /// builds one per run, and a hedge at the loaded p95 one more for its calibration. One
    /// sampler per thread is kept (the last model's), so memory stays bounded, and nothing
    /// but the time it saves can be observed.
    pub fn shared(model: ServiceModel) -> Rc<ServiceSampler> {
        thread_local! {
            static LAST: RefCell<Option<Rc<ServiceSampler>>> = const { RefCell::new(None) };
        }
        LAST.with(|last| {
            let mut last = last.borrow_mut();
            if let Some(sampler) = last.as_ref().filter(|s| s.model == model) {
                return Rc::clone(sampler);
            }
            let sampler = Rc::new(ServiceSampler::new(model));
            *last = Some(Rc::clone(&sampler));
            sampler
        })
    }

    /// The model this sampler draws from.
    pub fn model(&self) -> &ServiceModel {
        &self.model
    }

    /// One service time from an addressed stream; draw order for the mixture: mode decision,
    /// then the time; for a reader's data, the time from the first draw (never `slow`: measured
    /// latencies carry no mode).
    #[inline]
    pub fn sample(&self, mut stream: SampleStream) -> ServiceDraw {
        match &self.draw {
            Draw::Mixture {
                threshold,
                body,
                slow,
            } => {
                let is_slow = stream.next_bits() < *threshold;
                let table = if is_slow { slow } else { body };
                ServiceDraw {
                    ms: table.sample(stream.next_bits()),
                    slow: is_slow,
                }
            }
            Draw::Empirical(d) => ServiceDraw {
                ms: d.sample(stream.next_bits()),
                slow: false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_model_quantiles() {
        let m = ServiceModel::default();
        // p99.9 sits a tenth of the way into the slow mode: S(t) = 0.99·S_body(t) + 0.01·S_slow(t)
        // = 1e-3 gives S_slow(t) = 0.1 − 99·S_body(t), and at t ≈ 1566 ms the body is 10.6 σ
        // out (S_body ≈ 1e-26), far below f64 resolution of 0.1. So, exactly in f64 terms,
        // t = 1000 · exp(0.35 · Φ⁻¹(0.9)), with Φ⁻¹(0.9) = 1.28155156554460046697… (written as its nearest
        // f64, independent of the crate's normal quantile). `quantile` bisects ln t down to
        // a bracket of 1e-13 and returns its midpoint: relative error ≤ 5e-14 from that, plus
        // what the normal CDF's last bits move the root (dS/d ln t = 0.01·φ(1.28)/0.35 ≈ 0.005,
        // so 1e-16 in S is 2e-14 in ln t). Hence 1e-13 relative, nothing looser.
        let p999 = m.quantile(0.999);
        let exact = 1000.0 * libm::exp(0.35 * 1.281_551_565_544_600_4);
        assert!(
            ((p999 - exact) / exact).abs() < 1e-13,
            "{p999} vs {exact} (≈ 1566.0288935491)"
        );
        assert!((m.survival(p999) - 1e-3).abs() < 1e-12);
        // p95 is in the body: about 18.4 ms.
        assert!((m.quantile(0.95) - 18.4).abs() < 0.2);
        assert!(ServiceModel::new(m.body().unwrap(), 1.5, m.slow().unwrap()).is_err());
        // Its median is the body's 0.5/0.99 quantile: the 1% slow mode all lies above it.
        let z = crate::sampling::normal::quantile(0.5 / 0.99);
        assert!((m.quantile(0.5) / (7.7 * libm::exp(0.5 * z)) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn models_the_histogram_cannot_measure_are_refused() {
        let lognormal = |m, s| LogNormalMs::new(m, s).unwrap();
        // A median under 0.125 ms would put the median and below under the first edge.
        let err = ServiceModel::new(lognormal(0.1, 0.5), 0.0, lognormal(10.0, 0.5)).unwrap_err();
        assert_eq!(err.param(), "service");
        assert!(err.to_string().contains("at least 0.125 ms"), "{err}");
        assert!(ServiceModel::new(lognormal(0.13, 0.5), 0.0, lognormal(10.0, 0.5)).is_ok());
        // The floor is on the mixture's median, not the body's.
        assert!(ServiceModel::new(lognormal(0.1, 0.5), 0.6, lognormal(1.0, 0.5)).is_ok());
        // A wide spread's low quantiles sit far under 1 µs and are still exact.
        let wide = ServiceModel::new(lognormal(0.2, 3.0), 0.0, lognormal(1.0, 0.5)).unwrap();
        let want = 0.2 * libm::exp(3.0 * crate::sampling::normal::quantile(0.001));
        assert!((wide.quantile(0.001) / want - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_model_whose_tail_would_pass_the_histogram_is_refused() {
        let huge = LogNormalMs::new(1e5, 2.0).unwrap();
        let e = ServiceModel::new(huge, 0.0, huge).unwrap_err();
        assert_eq!(e.param(), "service");
        assert!(e.to_string().contains("100000 ms"), "{e}");
        // A slow mode that rare still counts at p99.99 only when it is that likely.
        let body = LogNormalMs::new(7.7, 0.5).unwrap();
        assert!(ServiceModel::new(body, 1e-6, huge).is_ok());
        assert!(ServiceModel::new(body, 1e-3, huge).is_err());
        let d = ServiceModel::default();
        assert!(
            ServiceModel::new(d.body().unwrap(), d.slow_probability(), d.slow().unwrap()).is_ok()
        );
    }
}
