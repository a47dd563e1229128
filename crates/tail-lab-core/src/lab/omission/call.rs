//! `simulateOmission`: its options, each defaulting to the classic worked example
//! ([`OmissionParams::classic`]; a test holds the two together).

use super::clients::OmissionResult;
use super::probe::{PROBE_LOAD, PROBES, ProbeParams};
use super::{Gaps, OmissionParams, POSITIVE_MS, STALL_MS, WORK_MS, Work};
use crate::api::{Call, Kind, OptionSpec, OptionValues, Prepared, SEED_OPTION, Work as CallWork};
use crate::describe::{Describe, Unit};
use crate::error::ParamError;

/// `simulateOmission`: coordinated omission, and a probe of a loaded replica.
pub const CALL: Call = Call {
    name: "simulateOmission",
    doc: "Coordinated omission: one stalling server measured four ways (closed loop raw, with \
          HdrHistogram's expected-interval fills, from the intended send time, and open loop), \
          the open loop's closed form with random gaps, and a probe of one of the Lab's loaded \
          replicas.",
    options_type: "OmissionOptions",
    options_doc: "Options of `simulateOmission`: a load generator that means to send every \
                  `intervalMs` to a server that stalls for `stallMs` every `everyMs` on average; \
                  and a probe of one of the Lab's loaded replicas. Every option defaults to the \
                  classic worked example (1 ms answers, one 100 s stall after 100 s, a send \
                  every 10 ms for 200 s) and a probe at load 0.5.",
    options: &[
        OptionSpec::number(
            "intervalMs",
            "How often the generator means to send.",
            Unit::Ms,
            POSITIVE_MS,
            10.0,
        ),
        OptionSpec::number(
            "stallMs",
            "How long each stall lasts.",
            Unit::Ms,
            STALL_MS,
            100_000.0,
        ),
        OptionSpec::number(
            "everyMs",
            "How often a stall starts, start to start, on average (longer than `stallMs`).",
            Unit::Ms,
            POSITIVE_MS,
            200_000.0,
        ),
        OptionSpec::choice(
            "gaps",
            "\"fixed\" gaps between stalls (the first after one gap) or \"random\" \
             (exponential, in equilibrium from the start).",
            &["fixed", "random"],
            "\"fixed\", \"random\"",
        ),
        OptionSpec::number(
            "durationMs",
            "How long the generator runs (at most 1e7 sends).",
            Unit::Ms,
            POSITIVE_MS,
            200_000.0,
        ),
        OptionSpec {
            name: "workMs",
            doc: "Each request's work: a fixed time, or \"service\" for a draw from the service \
                  model.",
            unit: Unit::Ms,
            kind: Kind::NumberOr {
                range: WORK_MS,
                word: "service",
                expected: "a time in ms, or \"service\"",
                default: Some(1.0),
            },
        },
        OptionSpec::number(
            "probeLoad",
            "The probed replica's utilisation.",
            Unit::Fraction,
            PROBE_LOAD,
            0.5,
        ),
        OptionSpec::number(
            "probeMs",
            "How often the probe client means to probe.",
            Unit::Ms,
            POSITIVE_MS,
            100.0,
        ),
        OptionSpec::count(
            "probes",
            "Probes made, the first tenth warm-up.",
            Unit::Count,
            PROBES,
            200_000,
        ),
        OptionSpec {
            name: "service",
            doc: "The service model of the probed replica (and of the work when `workMs` is \
                  \"service\"); absent, the Lab's.",
            unit: Unit::None,
            kind: Kind::Service,
        },
        SEED_OPTION,
    ],
    exclusive: &[],
    result_type: <OmissionResult as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| -> Result<Prepared, ParamError> {
        let params = params(o);
        params.check()?;
        // Three clients a send, and the probe's two walks over its probes and arrivals.
        let work = CallWork {
            units: 3.0 * params.sends() as f64
                + 2.0 * (params.probe.probes as f64 + params.probe.arrivals()),
            counted_as: "3 × sends + 2 × (probes + arrivals)".into(),
        };
        Ok(Prepared::new(work, move || {
            Ok(super::simulate(params)?.describe())
        }))
    },
};

fn params(o: &OptionValues) -> OmissionParams {
    let number = |name| o.number(name).expect("declared with a default");
    let model = o.service("service");
    let work = match o.number_or_word("workMs").expect("workMs has a default") {
        Ok(ms) => Work::Constant(ms),
        Err(_service) => Work::Model(model.clone()),
    };
    OmissionParams {
        interval_ms: number("intervalMs"),
        stall_ms: number("stallMs"),
        every_ms: number("everyMs"),
        gaps: match o.name("gaps") {
            Some("random") => Gaps::Random,
            _ => Gaps::Fixed,
        },
        duration_ms: number("durationMs"),
        work,
        seed: o.seed("seed"),
        probe: ProbeParams {
            load: number("probeLoad"),
            interval_ms: number("probeMs"),
            probes: o.count("probes"),
            service: model,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_options_default_to_the_classic_example() {
        let defaults = OptionValues::complete(CALL.options, Vec::new());
        assert_eq!(params(&defaults), OmissionParams::classic());
    }
}
