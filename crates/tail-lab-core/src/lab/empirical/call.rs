//! `simulateEmpirical`, and the options of `parseLatencies` (how a text is read), declared
//! once ([`crate::api`]).

use super::parse::{Column, Format, ParseOptions, TimeUnit};
use super::{EmpiricalParams, EmpiricalResult, REQUESTS, example, simulate};
use crate::api::{
    Call, Kind, OptionSet, OptionSpec, OptionValues, Prepared, SEED_OPTION, SERVICE_OPTION, Work,
};
use crate::describe::{Describe, Unit};
use crate::error::{CountRange, ParamError};
use std::sync::Arc;

/// Leaves per parent one call's fan-out check may have.
pub const FANOUT: CountRange = crate::count_range!(1, 1000);

/// The formats a text may be read as, by name ([`Format::name`]).
pub const FORMAT_NAMES: [&str; 5] = ["lines", "csv", "hdrhistogram", "prometheus", "percentiles"];

/// The units of bare numbers, by name ([`TimeUnit::name`]).
pub const UNIT_NAMES: [&str; 4] = ["ns", "us", "ms", "s"];

/// The CSV columns a reader may name by number (from 1).
pub const COLUMN: CountRange = CountRange {
    lo: 1,
    hi: 1_000_000,
    expected: "a column number from 1",
};

/// The options of `parseLatencies`: how a text is read; each is detected when absent.
pub const PARSE_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "format",
        doc: "The text's format; absent: detected.",
        unit: Unit::None,
        kind: Kind::Name {
            names: &FORMAT_NAMES,
            expected: "\"lines\", \"csv\", \"hdrhistogram\", \"prometheus\", \"percentiles\"",
            default: None,
        },
    },
    OptionSpec {
        name: "column",
        doc: "The CSV column: its header's name, or its number from 1; absent: the column a \
              header names as latencies, else the last one holding numbers.",
        unit: Unit::None,
        kind: Kind::CountOrText {
            range: COLUMN,
            text: "a header's name",
        },
    },
    OptionSpec {
        name: "unit",
        doc: "The unit of bare numbers (a value's own suffix wins); absent: the column header's \
              or the format's (s for Prometheus), else ms.",
        unit: Unit::None,
        kind: Kind::Name {
            names: &UNIT_NAMES,
            expected: "\"ns\", \"us\", \"ms\", \"s\"",
            default: None,
        },
    },
];

/// How to read a text, from `o` (read against [`PARSE_OPTIONS`]).
pub fn parse_options(o: &OptionValues) -> ParseOptions {
    ParseOptions {
        format: o
            .name("format")
            .map(|n| Format::from_name(n).expect("the names are the formats'")),
        column: o.count_or_text("column").map(|c| match c {
            Ok(n) => Column::Number(n as usize),
            Err(name) => Column::Named(name.to_string()),
        }),
        unit: o.name("unit").map(|n| {
            TimeUnit::ALL
                .into_iter()
                .find(|u| u.name() == n)
                .expect("the names are the units'")
        }),
    }
}

/// `simulateEmpirical`: the check of a distribution's sampler.
pub const CALL: Call = Call {
    name: "simulateEmpirical",
    doc: "The check of a distribution's sampler (the report's `empirical` entry): its quantiles \
          and Kolmogorov–Smirnov distance beside the exact ones and the DKW bound, and a fan-out \
          on it.",
    options_type: "EmpiricalOptions",
    options_doc: "Options of `simulateEmpirical`.",
    options: &[
        OptionSpec {
            doc: "The distribution to check: your own latencies (`parseLatencies(...).service`); \
                  absent: the bundled example.",
            ..SERVICE_OPTION
        },
        OptionSpec::count(
            "requests",
            "Draws for the distribution check, and parents for the fan-out check.",
            Unit::Count,
            REQUESTS,
            20_000,
        ),
        OptionSpec::count(
            "fanout",
            "Leaves per parent in the fan-out check.",
            Unit::Count,
            FANOUT,
            100,
        ),
        SEED_OPTION,
    ],
    exclusive: &[],
    result_type: <EmpiricalResult as Describe>::TYPE_NAME,
    more: &[OptionSet {
        type_name: "ParseLatenciesOptions",
        doc: "How `parseLatencies` reads a text; every field is detected when absent.",
        options: PARSE_OPTIONS,
    }],
    prepare: |o: &OptionValues| -> Result<Prepared, ParamError> {
        let distribution = match o.given_service("service") {
            None => Arc::new(example()),
            Some(model) => Arc::clone(model.as_empirical().ok_or_else(|| {
                ParamError::Shape {
                    param: "service",
                    message:
                        "service must be your own latencies ({ empirical: { levels, ms } }, as \
                          parseLatencies gives): simulateEmpirical checks a distribution's \
                          sampler"
                            .into(),
                }
            })?),
        };
        let params = EmpiricalParams {
            distribution,
            requests: o.count("requests"),
            fanout: o.count("fanout") as u32,
            seed: o.seed("seed"),
        };
        let work = Work {
            units: params.work_units(),
            counted_as: "requests × (1 + fanout)".into(),
        };
        Ok(Prepared::new(
            work,
            move || Ok(simulate(params)?.describe()),
        ))
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::OptionValue;

    #[test]
    fn the_names_are_the_formats_and_the_units() {
        assert_eq!(FORMAT_NAMES.len(), Format::ALL.len());
        for f in Format::ALL {
            assert!(FORMAT_NAMES.contains(&f.name()), "{f:?}");
        }
        assert_eq!(
            UNIT_NAMES.to_vec(),
            TimeUnit::ALL.map(TimeUnit::name).to_vec()
        );
    }

    #[test]
    fn a_column_is_a_number_or_a_name_and_the_rest_is_detected() {
        let read = |given| parse_options(&OptionValues::complete(PARSE_OPTIONS, given));
        assert_eq!(read(vec![]), ParseOptions::default());
        let o = read(vec![
            ("column", OptionValue::Count(3)),
            ("format", OptionValue::Name("csv")),
            ("unit", OptionValue::Name("us")),
        ]);
        assert_eq!(
            o,
            ParseOptions {
                format: Some(Format::Csv),
                column: Some(Column::Number(3)),
                unit: Some(TimeUnit::Us),
            }
        );
        let named = read(vec![("column", OptionValue::Text("latency".into()))]);
        assert_eq!(named.column, Some(Column::Named("latency".into())));
        let e = PARSE_OPTIONS[1].kind.number("column", 0.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "column must be a column number from 1 (got 0)"
        );
    }

    #[test]
    fn only_your_own_latencies_are_checked() {
        let lab = OptionValues::complete(
            CALL.options,
            vec![("service", OptionValue::Service(Default::default()))],
        );
        let e = (CALL.prepare)(&lab).unwrap_err();
        assert!(
            e.is_shape() && e.to_string().starts_with("service must be your own"),
            "{e}"
        );
    }
}
