//! The API's calls, each declared once beside its model: its name, its options (name, type,
//! unit, valid range, default, one sentence each, and which may not be given together), the
//! work it may do, and how its options become a run.
//!
//! A binding reads a call's options by walking [`Call::options`]: it converts each value from
//! its own types (a JS number, string, bigint) and hands it to the option's [`Kind`], which
//! checks it and says what is wrong in the core's words. Its option interfaces, its defaults
//! and the options page of the docs are rendered from the same declarations
//! ([`Call::typescript`], [`Call::defaults`], [`markdown`]), so no binding holds a model's
//! default, range or message of its own.
//!
//! ```
//! use tail_lab_core::api::{OptionValue, OptionValues};
//! use tail_lab_core::lab::queue;
//!
//! let call = &queue::CALL;
//! // What a binding does: every given value checked by its option, the rest defaulted.
//! let load = call.option("load").unwrap().kind.number("load", 0.8).unwrap();
//! let values = OptionValues::complete(call.options, vec![("load", load)]);
//! let prepared = (call.prepare)(&values).unwrap();
//! assert!(prepared.work.check().is_ok());
//! let fields = prepared.run().unwrap();
//! assert!(fields.iter().any(|f| f.key == "p99"));
//! // Out of range: refused by name, in the same words as the model's constructor.
//! let bad = call.option("load").unwrap().kind.number("load", 1.5).unwrap_err();
//! assert_eq!(bad.to_string(), "load must be a per-server utilisation in 0.01..=0.99 (got 1.5)");
//! # let _ = OptionValue::Flag(true);
//! ```

#[cfg(test)]
use crate::describe::camel_case;
use crate::describe::{Field, Unit};
use crate::error::{CountRange, NumberRange, ParamError, readable};
use crate::lab::precision::{LengthChoice, RunLength};
use crate::lab::service::{SERVICE_FORMS, ServiceModel};

/// The most work one call may do, in work units of about 10 ns of wasm in Chromium on a
/// 2-core machine (one Tail leaf draw is one unit; each model counts its events): about 2 s,
/// so no single call freezes a tab for long.
pub const WORK_LIMIT: f64 = 150_000_000.0;

/// One call of the API that runs a model (`simulateQueue`).
pub struct Call {
    /// The call's name in the API (`"simulateQueue"`).
    pub name: &'static str,
    /// One sentence on what the call runs.
    pub doc: &'static str,
    /// The name of its options' interface (`"QueueOptions"`).
    pub options_type: &'static str,
    /// One sentence on the options as a whole (their time unit, say).
    pub options_doc: &'static str,
    /// Its options, in the order they are read and documented.
    pub options: &'static [OptionSpec],
    /// Pairs of options that say the same thing two ways: at most one of each may be given.
    pub exclusive: &'static [[&'static str; 2]],
    /// The name of its result's interface (`"QueueResult"`).
    pub result_type: &'static str,
    /// The options of the model's other calls that have an interface of their own (a trace's,
    /// say), rendered beside this call's.
    pub more: &'static [OptionSet],
    /// Builds the run from complete, checked options ([`OptionValues::complete`]): the
    /// model's own checks (those that involve more than one option) happen here.
    pub prepare: fn(&OptionValues) -> Result<Prepared, ParamError>,
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call").field("name", &self.name).finish()
    }
}

/// The options of a call that is not a [`Call`] (one whose result is typed arrays, say): its
/// interface is rendered from them all the same.
#[derive(Debug, Clone, Copy)]
pub struct OptionSet {
    /// The name of the interface (`"LoadedTraceOptions"`).
    pub type_name: &'static str,
    /// One sentence on the options as a whole.
    pub doc: &'static str,
    /// The options.
    pub options: &'static [OptionSpec],
}

/// One option of a call.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    /// Its key as the API spells it (`"delayMs"`).
    pub name: &'static str,
    /// One sentence: what it sets.
    pub doc: &'static str,
    /// Its unit.
    pub unit: Unit,
    /// Its type, valid values and default.
    pub kind: Kind,
}

impl OptionSpec {
    /// A whole-number option.
    pub const fn count(
        name: &'static str,
        doc: &'static str,
        unit: Unit,
        range: CountRange,
        default: u64,
    ) -> Self {
        OptionSpec {
            name,
            doc,
            unit,
            kind: Kind::Count {
                range,
                default: Some(default),
            },
        }
    }

    /// A number option.
    pub const fn number(
        name: &'static str,
        doc: &'static str,
        unit: Unit,
        range: NumberRange,
        default: f64,
    ) -> Self {
        OptionSpec {
            name,
            doc,
            unit,
            kind: Kind::Number {
                range,
                default: Some(default),
            },
        }
    }

    /// A name option; `names` holds the default first.
    pub const fn choice(
        name: &'static str,
        doc: &'static str,
        names: &'static [&'static str],
        expected: &'static str,
    ) -> Self {
        OptionSpec {
            name,
            doc,
            unit: Unit::None,
            kind: Kind::Name {
                names,
                expected,
                default: Some(names[0]),
            },
        }
    }
}

/// A record: a small object inside an option (one stage of a graph), its fields declared like
/// options, each with its own kind, range and words.
#[derive(Debug, Clone, Copy)]
pub struct Record {
    /// Its TypeScript interface (`"GraphStageOptions"`).
    pub type_name: &'static str,
    /// One sentence on what one record is.
    pub doc: &'static str,
    /// Its fields, in the order they are read and documented (no two records of one
    /// option's forms share a field's name: [`Kind::forms`]).
    pub fields: &'static [OptionSpec],
    /// The fields every record must give (the others have a default, or are left to the
    /// model, as their sentences say).
    pub required: &'static [&'static str],
}

impl Record {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&'static OptionSpec> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The error for a required field not given: its name and what it accepts, or its own
    /// fields for a record (a binding's `TypeError`).
    pub fn missing(&self, field: &OptionSpec) -> ParamError {
        let message = match field.kind {
            Kind::Record(record) => format!("{} ({}) is required", field.name, record.shape()),
            other => format!("{} is required ({})", field.name, other.accepted()),
        };
        ParamError::Shape {
            param: field.name,
            message,
        }
    }

    /// Its fields' names as an object's (`"{ medianMs, sigma }"`).
    pub fn shape(&self) -> String {
        let names: Vec<&str> = self.fields.iter().map(|f| f.name).collect();
        format!("{{ {} }}", names.join(", "))
    }
}

/// The `seed` option every call has: the seed of every draw, 1 unless told.
pub const SEED_OPTION: OptionSpec = OptionSpec {
    name: "seed",
    doc: "The seed of every draw.",
    unit: Unit::None,
    kind: Kind::Seed { default: 1 },
};

/// The `service` option of the calls that take a service model.
pub const SERVICE_OPTION: OptionSpec = OptionSpec {
    name: "service",
    doc: "Your own service-time model; absent, the Lab's.",
    unit: Unit::None,
    kind: Kind::Service,
};

/// An option's type, the values it accepts and its default (`None`: absent means the model
/// decides, and the option's sentence says how).
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A number in a range.
    Number {
        /// The values accepted.
        range: NumberRange,
        /// Used when the option is absent.
        default: Option<f64>,
    },
    /// A whole number in a range.
    Count {
        /// The values accepted.
        range: CountRange,
        /// Used when the option is absent.
        default: Option<u64>,
    },
    /// One of a list of names.
    Name {
        /// The names accepted, the default first when there is one.
        names: &'static [&'static str],
        /// The names in an error's words (`"none, hedge, duplicate"`).
        expected: &'static str,
        /// Used when the option is absent.
        default: Option<&'static str>,
    },
    /// A number in a range, or one word that stands for something else (`workMs` is a time
    /// or `"service"`).
    NumberOr {
        /// The numbers accepted.
        range: NumberRange,
        /// The word accepted.
        word: &'static str,
        /// Both forms in an error's words (`"a time in ms, or \"service\""`).
        expected: &'static str,
        /// Used when the option is absent.
        default: Option<f64>,
    },
    /// A whole number in a range, or one word that stands for something else (`maxTokens` is
    /// a count or `"unlimited"`).
    CountOr {
        /// The whole numbers accepted.
        range: CountRange,
        /// The word accepted.
        word: &'static str,
        /// Both forms in an error's words.
        expected: &'static str,
        /// Used when the option is absent.
        default: Option<u64>,
    },
    /// A whole number in a range, or any text (a CSV column by its number or its header's
    /// name); absent, the model decides.
    CountOrText {
        /// The whole numbers accepted.
        range: CountRange,
        /// What the text names, in words (`"a header's name"`).
        text: &'static str,
    },
    /// Another kind's values, or `null` for none (absent is the other kind's default).
    Nullable(&'static Kind),
    /// True or false.
    Flag {
        /// Used when the option is absent.
        default: bool,
    },
    /// The seed of every draw: a whole number in `0..2^64`.
    Seed {
        /// Used when the option is absent.
        default: u64,
    },
    /// A run's length: a whole number in `range`, or `"auto"` (planned for the model's
    /// precision targets, [`crate::lab::precision`]) or `"pilot"`.
    RunLength {
        /// The lengths accepted.
        range: CountRange,
        /// Used when the option is absent.
        default: u64,
        /// The model's run-length rule.
        rule: &'static RunLength,
    },
    /// A service-time model (the Lab's mixture or an empirical distribution); absent means
    /// the Lab's ([`ServiceModel::default`]).
    Service,
    /// A service-time model ([`Kind::Service`]), or a record that stands for a service of its
    /// own (a graph stage's `{ exponentialMs }`), told apart by the record's field names: a
    /// service model has none of them. Absent, the model decides.
    ServiceOr(&'static Record),
    /// One record inside another (a service model's `body`).
    Record(&'static Record),
    /// A list of numbers (a `Float64Array` in JS), its length in `length`.
    Series {
        /// The lengths accepted.
        length: CountRange,
    },
    /// A list of records (a graph's stages), in order.
    Records {
        /// The records' fields.
        record: &'static Record,
        /// How many the list may hold.
        length: CountRange,
    },
}

impl Kind {
    /// A given number, checked.
    pub fn number(&self, param: &'static str, x: f64) -> Result<OptionValue, ParamError> {
        match self {
            Kind::Number { range, .. } | Kind::NumberOr { range, .. } => {
                range.check(param, x).map(OptionValue::Number)
            }
            Kind::Count { range, .. }
            | Kind::CountOr { range, .. }
            | Kind::CountOrText { range, .. } => {
                range.check_number(param, x).map(OptionValue::Count)
            }
            Kind::RunLength { range, .. } => range
                .check_number(param, x)
                .map(|n| OptionValue::Length(n, LengthChoice::Fixed))
                .map_err(|_| self.length_refused(param, readable(x))),
            // A kind that takes no numbers (as above).
            _ => Err(ParamError::NotAccepted {
                param,
                got: readable(x),
                expected: self.type_words().to_string(),
            }),
        }
    }

    /// A given name, checked: one of the option's names, or a run length's `"auto"` or
    /// `"pilot"`.
    pub fn name(&self, param: &'static str, text: &str) -> Result<OptionValue, ParamError> {
        match self {
            Kind::Name {
                names, expected, ..
            } => names
                .iter()
                .find(|n| **n == text)
                .map(|n| OptionValue::Name(n))
                .ok_or_else(|| ParamError::UnknownName {
                    param,
                    got: text.to_string(),
                    expected,
                }),
            Kind::NumberOr { word, expected, .. } | Kind::CountOr { word, expected, .. } => {
                if text == *word {
                    Ok(OptionValue::Name(word))
                } else {
                    Err(ParamError::NotAccepted {
                        param,
                        got: crate::error::echoed(text),
                        expected: expected.to_string(),
                    })
                }
            }
            Kind::RunLength { rule, .. } => match LengthChoice::from_name(text) {
                Some(LengthChoice::Pilot) => {
                    Ok(OptionValue::Length(rule.pilot, LengthChoice::Pilot))
                }
                Some(choice) => Ok(OptionValue::Length(rule.pilot + rule.cap, choice)),
                None => Err(self.length_refused(param, crate::error::echoed(text))),
            },
            Kind::CountOrText { .. } => Ok(OptionValue::Text(text.to_string())),
            // A kind that takes no words: a binding that hands it one gets the error a reader
            // would, never a panic.
            _ => Err(ParamError::NotAccepted {
                param,
                got: crate::error::echoed(text),
                expected: self.type_words().to_string(),
            }),
        }
    }

    /// A list's length ([`Kind::Records`], [`Kind::Series`]), checked and named `param`.
    pub fn length(&self, param: &'static str, n: f64) -> Result<usize, ParamError> {
        match self {
            Kind::Records { length, .. } | Kind::Series { length } => {
                length.check_number(param, n).map(|n| n as usize)
            }
            _ => Err(ParamError::NotAccepted {
                param,
                got: readable(n),
                expected: "the length of a list option".into(),
            }),
        }
    }

    /// The records a service option may be ([`Kind::Service`]: [`SERVICE_FORMS`];
    /// [`Kind::ServiceOr`]: those, then its own record), told apart by their fields' names (the
    /// first when it has none of them); none for the other kinds.
    pub fn forms(&self) -> Vec<&'static Record> {
        match self {
            Kind::Service => SERVICE_FORMS.to_vec(),
            Kind::ServiceOr(own) => SERVICE_FORMS.into_iter().chain([*own]).collect(),
            _ => Vec::new(),
        }
    }

    /// The error for an object that mixes the keys of two of [`Kind::forms`] (`service`'s
    /// `body` and `empirical`): each form's fields, and that only one may be given.
    pub fn forms_mixed(&self, param: &'static str, a: &Record, b: &Record) -> ParamError {
        let words = |r: &Record| {
            let names: Vec<&str> = r.fields.iter().map(|f| f.name).collect();
            names.join(" and ")
        };
        ParamError::Shape {
            param,
            message: format!("{param}: give {}, or {}, not both", words(a), words(b)),
        }
    }

    /// A run length neither in range nor named: the error says every form it may take.
    fn length_refused(&self, param: &'static str, got: String) -> ParamError {
        let Kind::RunLength { range, .. } = self else {
            unreachable!("{param} is not a run length")
        };
        ParamError::NotAccepted {
            param,
            got,
            expected: format!(
                "a whole number in {}..={}, \"auto\" or \"pilot\"",
                range.lo, range.hi
            ),
        }
    }

    /// The JS types accepted, in words, for a value of the wrong type (`"a number"`).
    pub fn type_words(&self) -> &'static str {
        match self {
            Kind::Number { .. } | Kind::Count { .. } => "a number",
            Kind::Name { .. } => "a string",
            Kind::NumberOr { .. } | Kind::CountOr { .. } | Kind::CountOrText { .. } => {
                "a number or a string"
            }
            Kind::Nullable(inner) => inner.type_words(),
            Kind::Flag { .. } => "true or false",
            Kind::Seed { .. } => "a number or a bigint",
            Kind::RunLength { .. } => "a number, \"auto\" or \"pilot\"",
            Kind::Service | Kind::ServiceOr(_) => "a service model object",
            Kind::Records { .. } => "an array",
            Kind::Record(_) => "an object",
            Kind::Series { .. } => "a Float64Array",
        }
    }

    /// The value used when the option is absent, if any.
    pub fn default_value(&self) -> Option<OptionValue> {
        match *self {
            Kind::Number { default, .. } | Kind::NumberOr { default, .. } => {
                default.map(OptionValue::Number)
            }
            Kind::Count { default, .. } | Kind::CountOr { default, .. } => {
                default.map(OptionValue::Count)
            }
            Kind::Name { default, .. } => default.map(OptionValue::Name),
            Kind::Nullable(inner) => inner.default_value(),
            Kind::Flag { default } => Some(OptionValue::Flag(default)),
            Kind::Seed { default } => Some(OptionValue::Seed(default)),
            Kind::RunLength { default, .. } => {
                Some(OptionValue::Length(default, LengthChoice::Fixed))
            }
            // Absent, a call runs the Lab's model or its own default (`OptionValues::service`).
            Kind::Service
            | Kind::ServiceOr(_)
            | Kind::Records { .. }
            | Kind::Record(_)
            | Kind::Series { .. }
            | Kind::CountOrText { .. } => None,
        }
    }

    /// The option's TypeScript type.
    pub fn typescript(&self) -> String {
        match self {
            Kind::Number { .. } | Kind::Count { .. } => "number".into(),
            Kind::Name { names, .. } => names
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(" | "),
            Kind::NumberOr { word, .. } | Kind::CountOr { word, .. } => {
                format!("number | {word:?}")
            }
            Kind::CountOrText { .. } => "number | string".into(),
            Kind::Nullable(inner) => format!("{} | null", inner.typescript()),
            Kind::Flag { .. } => "boolean".into(),
            Kind::Seed { .. } => "number | bigint".into(),
            Kind::RunLength { .. } => "number | \"auto\" | \"pilot\"".into(),
            Kind::Service => "ServiceOptions".into(),
            Kind::ServiceOr(record) => format!("ServiceOptions | {}", record.type_name),
            Kind::Records { record, .. } => format!("{}[]", record.type_name),
            Kind::Record(record) => record.type_name.into(),
            Kind::Series { .. } => "Float64Array".into(),
        }
    }

    /// The values accepted, in words (`"an integer in 1..=64"`).
    pub fn accepted(&self) -> String {
        match self {
            Kind::Number { range, .. } => range.expected.into(),
            Kind::Count { range, .. } => range.expected.into(),
            Kind::Name { expected, .. } => format!("one of {expected}"),
            Kind::NumberOr { range, word, .. } => format!("{}, or {word:?}", range.expected),
            Kind::CountOr { range, word, .. } => format!("{}, or {word:?}", range.expected),
            Kind::CountOrText { range, text } => format!("{}, or {text}", range.expected),
            Kind::Nullable(inner) => format!("{}, or null (none)", inner.accepted()),
            Kind::Flag { .. } => "true or false".into(),
            Kind::Seed { .. } => "an integer in 0..=2^53-1, or a bigint below 2^64".into(),
            Kind::RunLength { range, .. } => format!(
                "{}, \"auto\" (as long as the precision targets need, planned from a pilot on \
                 its own seed: runLengths()) or \"pilot\" (that pilot)",
                range.expected
            ),
            Kind::Service => "a service model: the Lab's mixture, or your own latencies".into(),
            Kind::ServiceOr(record) => {
                format!("{}, or `{}`", Kind::Service.accepted(), record.type_name)
            }
            Kind::Records { record, length } => format!(
                "an array of {}..={} `{}`",
                length.lo, length.hi, record.type_name
            ),
            Kind::Record(record) => format!("`{}`", record.type_name),
            Kind::Series { length } => format!("a Float64Array, {}", length.expected),
        }
    }

    /// The default in words, for the documentation (`None` when the model decides).
    pub fn default_words(&self) -> Option<String> {
        match self.default_value()? {
            OptionValue::Number(x) => Some(readable(x)),
            OptionValue::Count(n) | OptionValue::Seed(n) | OptionValue::Length(n, _) => {
                Some(n.to_string())
            }
            OptionValue::Name(n) => Some(format!("{n:?}")),
            OptionValue::Flag(b) => Some(b.to_string()),
            OptionValue::Service(_)
            | OptionValue::Null
            | OptionValue::Text(_)
            | OptionValue::Series(_)
            | OptionValue::Record(_)
            | OptionValue::Records(_) => None,
        }
    }
}

/// One checked option value.
#[derive(Debug, Clone)]
pub enum OptionValue {
    /// A number.
    Number(f64),
    /// A whole number.
    Count(u64),
    /// One of the option's names.
    Name(&'static str),
    /// True or false.
    Flag(bool),
    /// A seed.
    Seed(u64),
    /// A run length: the length the call's work is bounded by (the number given; the pilot's
    /// for `"pilot"`; the pilot's and the cap's together for `"auto"`, the most it may run)
    /// and the choice.
    Length(u64, LengthChoice),
    /// A service model.
    Service(ServiceModel),
    /// `null`: none ([`Kind::Nullable`]).
    Null,
    /// Any text ([`Kind::CountOrText`]).
    Text(String),
    /// A list of numbers ([`Kind::Series`]).
    Series(Vec<f64>),
    /// A record's fields, read as options ([`Kind::Record`], [`Kind::ServiceOr`]).
    Record(OptionValues),
    /// A list of records, each read as options ([`Kind::Records`]).
    Records(Vec<OptionValues>),
}

/// A call's options after reading: every given value checked, every absent one with a
/// default filled in.
#[derive(Debug, Clone)]
pub struct OptionValues {
    values: Vec<(&'static str, OptionValue)>,
    /// The first `given` values were given; the rest are defaults.
    given: usize,
}

impl OptionValues {
    /// The given values (each checked by its option's [`Kind`]) completed with the defaults
    /// of the options not given.
    pub fn complete(
        options: &[OptionSpec],
        given: Vec<(&'static str, OptionValue)>,
    ) -> OptionValues {
        let mut values = given;
        let given = values.len();
        for spec in options {
            if !values.iter().any(|(k, _)| *k == spec.name)
                && let Some(v) = spec.kind.default_value()
            {
                values.push((spec.name, v));
            }
        }
        OptionValues { values, given }
    }

    /// Whether `name` was given or has a default.
    pub fn has(&self, name: &str) -> bool {
        self.values.iter().any(|(k, _)| *k == name)
    }

    /// Whether `name` was given (not defaulted).
    pub fn given(&self, name: &str) -> bool {
        self.values[..self.given].iter().any(|(k, _)| *k == name)
    }

    fn get(&self, name: &str) -> Option<&OptionValue> {
        self.values.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// A number option's value, if given or defaulted.
    pub fn number(&self, name: &str) -> Option<f64> {
        match self.get(name)? {
            OptionValue::Number(x) => Some(*x),
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A whole-number option's value (the model declares a default for it).
    pub fn count(&self, name: &str) -> u64 {
        match self.get(name) {
            Some(OptionValue::Count(n)) => *n,
            other => wrong_kind(name, other),
        }
    }

    /// A whole-number option's value, if given or defaulted (for one that may be left to the
    /// model).
    pub fn given_count(&self, name: &str) -> Option<u64> {
        match self.get(name)? {
            OptionValue::Count(n) => Some(*n),
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A number-or-word option's value ([`Kind::NumberOr`]), if given or defaulted: the number,
    /// or `Err` with the word.
    pub fn number_or_word(&self, name: &str) -> Option<Result<f64, &'static str>> {
        match self.get(name)? {
            OptionValue::Number(x) => Some(Ok(*x)),
            OptionValue::Name(w) => Some(Err(w)),
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A nullable number's value: `None` for `null` or absent with no default.
    pub fn nullable_number(&self, name: &str) -> Option<f64> {
        match self.get(name)? {
            OptionValue::Number(x) => Some(*x),
            OptionValue::Null => None,
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A nullable whole number's value: `None` for `null` or absent with no default.
    pub fn nullable_count(&self, name: &str) -> Option<u64> {
        match self.get(name)? {
            OptionValue::Count(n) => Some(*n),
            OptionValue::Null => None,
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A count-or-word option's value ([`Kind::CountOr`]), if given or defaulted: the count, or
    /// `Err` with the word.
    pub fn count_or_word(&self, name: &str) -> Option<Result<u64, &'static str>> {
        match self.get(name)? {
            OptionValue::Count(n) => Some(Ok(*n)),
            OptionValue::Name(w) => Some(Err(w)),
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A name option's value, if given or defaulted.
    pub fn name(&self, name: &str) -> Option<&'static str> {
        match self.get(name)? {
            OptionValue::Name(n) => Some(n),
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A flag's value.
    pub fn flag(&self, name: &str) -> bool {
        match self.get(name) {
            Some(OptionValue::Flag(b)) => *b,
            other => wrong_kind(name, other),
        }
    }

    /// The seed.
    pub fn seed(&self, name: &str) -> u64 {
        match self.get(name) {
            Some(OptionValue::Seed(s)) => *s,
            other => wrong_kind(name, other),
        }
    }

    /// A run length and its choice.
    pub fn length(&self, name: &str) -> (u64, LengthChoice) {
        match self.get(name) {
            Some(OptionValue::Length(n, c)) => (*n, *c),
            other => wrong_kind(name, other),
        }
    }

    /// The service model given, or the Lab's ([`ServiceModel::default`]).
    pub fn service(&self, name: &str) -> ServiceModel {
        self.given_service(name).unwrap_or_default()
    }

    /// The service model given, if one was.
    pub fn given_service(&self, name: &str) -> Option<ServiceModel> {
        match self.get(name)? {
            OptionValue::Service(m) => Some(m.clone()),
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A [`Kind::ServiceOr`] option's value, if given: the service model, or `Err` with the
    /// record's fields.
    pub fn service_or_record(&self, name: &str) -> Option<Result<ServiceModel, &OptionValues>> {
        match self.get(name)? {
            OptionValue::Service(m) => Some(Ok(m.clone())),
            OptionValue::Record(r) => Some(Err(r)),
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A count-or-text option's value ([`Kind::CountOrText`]), if given: the count, or `Err`
    /// with the text.
    pub fn count_or_text(&self, name: &str) -> Option<Result<u64, &str>> {
        match self.get(name)? {
            OptionValue::Count(n) => Some(Ok(*n)),
            OptionValue::Text(t) => Some(Err(t)),
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A [`Kind::Record`] option's fields, if given.
    pub fn record(&self, name: &str) -> Option<&OptionValues> {
        match self.get(name)? {
            OptionValue::Record(r) => Some(r),
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A [`Kind::Series`] option's numbers, if given.
    pub fn series(&self, name: &str) -> Option<&[f64]> {
        match self.get(name)? {
            OptionValue::Series(xs) => Some(xs),
            other => wrong_kind(name, Some(other)),
        }
    }

    /// A [`Kind::Records`] option's records, if given.
    pub fn records(&self, name: &str) -> Option<&[OptionValues]> {
        match self.get(name)? {
            OptionValue::Records(r) => Some(r),
            other => wrong_kind(name, Some(other)),
        }
    }
}

/// A model's `prepare` asked for an option its call does not declare with that kind: a fault
/// of the declarations, which the core's tests find (every call is prepared from its defaults
/// and from every option given), never a reader's input.
fn wrong_kind(name: &str, got: Option<&OptionValue>) -> ! {
    panic!("the call declares no option {name:?} of this kind (holds {got:?})")
}

impl Call {
    /// The option named `name`.
    pub fn option(&self, name: &str) -> Option<&'static OptionSpec> {
        self.options.iter().find(|o| o.name == name)
    }

    /// The option names, in order.
    pub fn option_names(&self) -> Vec<&'static str> {
        self.options.iter().map(|o| o.name).collect()
    }

    /// Its options' TypeScript interface (and those of [`Call::more`]), each option's
    /// sentence, unit, accepted values and default in its doc comment.
    pub fn typescript(&self) -> String {
        let mut doc = self.options_doc.to_string();
        for [a, b] in self.exclusive {
            doc.push_str(&format!(" Give `{a}` or `{b}`, not both."));
        }
        let mut out = String::new();
        for record in self.records() {
            out.push_str(&interface(
                record.type_name,
                record.doc,
                record.fields,
                record.required,
            ));
        }
        out.push_str(&interface(self.options_type, &doc, self.options, &[]));
        for set in self.more {
            out.push_str(&interface(set.type_name, set.doc, set.options, &[]));
        }
        out
    }

    /// The records its options and those of [`Call::more`] hold ([`Kind::Records`],
    /// [`Kind::ServiceOr`]), and the records those hold, each once, outer ones first.
    pub fn records(&self) -> Vec<&'static Record> {
        let mut out = Vec::new();
        for options in std::iter::once(self.options).chain(self.more.iter().map(|s| s.options)) {
            records_in(options, &mut out);
        }
        out
    }

    /// The defaults as described fields (options with no default are left out): what
    /// `labDefaults().calls` holds for this call.
    pub fn defaults(&self) -> Vec<Field> {
        use crate::describe::Value;
        self.options
            .iter()
            .filter_map(|o| {
                let value = match o.kind.default_value()? {
                    OptionValue::Number(x) => Value::Number(x),
                    OptionValue::Count(n) | OptionValue::Seed(n) | OptionValue::Length(n, _) => {
                        Value::Integer(n)
                    }
                    OptionValue::Name(n) => Value::Name {
                        value: n,
                        choices: match o.kind {
                            Kind::Name { names, .. } => names,
                            _ => &[],
                        },
                    },
                    OptionValue::Flag(b) => Value::Flag(b),
                    OptionValue::Service(_)
                    | OptionValue::Null
                    | OptionValue::Text(_)
                    | OptionValue::Series(_)
                    | OptionValue::Record(_)
                    | OptionValue::Records(_) => return None,
                };
                // The option's name is already camelCase, which the rendering keeps as is.
                Some(Field::new(o.name, o.unit, o.doc, value))
            })
            .collect()
    }
}

impl OptionSpec {
    /// Its documentation sentence: what it sets, its unit, the values accepted and the default.
    pub fn sentence(&self) -> String {
        let unit = self.unit.describe();
        let unit = if unit.is_empty() {
            String::new()
        } else {
            format!(" ({unit})")
        };
        let default = self
            .kind
            .default_words()
            .map_or(String::new(), |d| format!(" Default {d}."));
        format!(
            "{}{unit}: {}.{default}",
            self.doc.trim_end_matches('.'),
            self.kind.accepted()
        )
    }
}

/// The first pair of `exclusive` options both `given`, as the error that says so.
pub fn check_exclusive(
    exclusive: &'static [[&'static str; 2]],
    given: &[&str],
) -> Result<(), ExclusiveError> {
    match exclusive
        .iter()
        .find(|[a, b]| given.contains(a) && given.contains(b))
    {
        Some([a, b]) => Err(ExclusiveError {
            first: a,
            second: b,
        }),
        None => Ok(()),
    }
}

/// The records `options` hold, and those they hold, added to `out` once each, outer first.
fn records_in(options: &[OptionSpec], out: &mut Vec<&'static Record>) {
    for o in options {
        let record = match o.kind {
            Kind::Records { record, .. } | Kind::ServiceOr(record) | Kind::Record(record) => record,
            _ => continue,
        };
        if !out.iter().any(|r| r.type_name == record.type_name) {
            out.push(record);
            records_in(record.fields, out);
        }
    }
}

/// `options` as `export interface name { … }`, each documented; those `required` have no `?`.
fn interface(name: &str, doc: &str, options: &[OptionSpec], required: &[&str]) -> String {
    let mut out = format!("/** {doc} */\nexport interface {name} {{\n");
    for o in options {
        let optional = if required.contains(&o.name) { "" } else { "?" };
        out.push_str(&format!(
            "  /** {} */\n  {}{optional}: {};\n",
            o.sentence(),
            o.name,
            o.kind.typescript()
        ));
    }
    out.push_str("}\n");
    out
}

/// Two options given that say the same thing two ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExclusiveError {
    /// The first of the pair, as declared.
    pub first: &'static str,
    /// The second.
    pub second: &'static str,
}

impl std::fmt::Display for ExclusiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "give {} or {}, not both", self.first, self.second)
    }
}

/// The work a prepared call will do, and how it is counted.
#[derive(Debug, Clone, PartialEq)]
pub struct Work {
    /// The most work units the run may take.
    pub units: f64,
    /// How they are counted, in the options' names (`"requests × (28 + 0.55 a server)"`).
    pub counted_as: String,
}

impl Work {
    /// `Ok` when the work is at most [`WORK_LIMIT`]; otherwise the message that refuses it,
    /// with the bound and how to stay under it.
    pub fn check(&self) -> Result<(), String> {
        if self.units <= WORK_LIMIT {
            Ok(())
        } else {
            Err(format!(
                "{} must be at most {} work units per call, about 2 s (got {}); split the work \
                 over several calls",
                self.counted_as,
                WORK_LIMIT as u64,
                readable(self.units)
            ))
        }
    }
}

/// A run made from checked options, not yet run: its work is known first, so a caller can
/// refuse it before any of it is done.
pub struct Prepared {
    /// What the run will cost.
    pub work: Work,
    run: Box<dyn FnOnce() -> Result<Vec<Field>, ParamError>>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("work", &self.work)
            .finish()
    }
}

impl Prepared {
    /// A run of `work`.
    pub fn new(work: Work, run: impl FnOnce() -> Result<Vec<Field>, ParamError> + 'static) -> Self {
        Prepared {
            work,
            run: Box::new(run),
        }
    }

    /// Runs it: the result's described fields.
    pub fn run(self) -> Result<Vec<Field>, ParamError> {
        (self.run)()
    }
}

/// How a work bound names a run-length option: the option itself for a fixed length, or what
/// a named choice counts (`requests ("auto": a pilot and the cap, 320000)`).
pub fn length_words(param: &str, choice: LengthChoice, length: u64) -> String {
    match choice {
        LengthChoice::Fixed => param.to_string(),
        LengthChoice::Pilot => format!("{param} (\"pilot\": {length})"),
        LengthChoice::Planned => format!("{param} (\"auto\": a pilot and the cap, {length})"),
    }
}

/// `options` as a Markdown table: name, type, what it sets (with its unit), what it accepts and
/// its default ("—" where the call decides, as the sentence says; "required" for those in
/// `required`).
fn table(options: &[OptionSpec], required: &[&str]) -> String {
    let mut out =
        String::from("| option | type | what | accepts | default |\n|---|---|---|---|---|\n");
    for o in options {
        let unit = o.unit.describe();
        let what = if unit.is_empty() {
            o.doc.to_string()
        } else {
            format!("{} ({unit}).", o.doc.trim_end_matches('.'))
        };
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} |\n",
            o.name,
            o.kind.typescript().replace('|', "\\|"),
            what,
            o.kind.accepted(),
            if required.contains(&o.name) {
                "required".into()
            } else {
                o.kind.default_words().unwrap_or_else(|| "—".into())
            }
        ));
    }
    out
}

/// The forms a service option takes ([`SERVICE_FORMS`]) and the records they hold, each once,
/// outer first: every [`Kind::Service`] option's, rendered once for all calls.
pub fn service_records() -> Vec<&'static Record> {
    let mut out = Vec::new();
    for form in SERVICE_FORMS {
        if !out.iter().any(|r: &&Record| r.type_name == form.type_name) {
            out.push(form);
            records_in(form.fields, &mut out);
        }
    }
    out
}

/// One sentence on a service option's forms.
const SERVICE_DOC: &str = "A service-time model: the Lab's mixture, or your own latencies, told \
                           apart by their keys.";

/// The TypeScript of a service option ([`Kind::Service`]): its forms' interfaces and
/// `ServiceOptions`, their union. One for the whole API: a call's own interfaces
/// ([`Call::typescript`]) refer to it.
pub fn service_typescript() -> String {
    let mut out = String::new();
    for r in service_records() {
        out.push_str(&interface(r.type_name, r.doc, r.fields, r.required));
    }
    let names: Vec<&str> = SERVICE_FORMS.iter().map(|r| r.type_name).collect();
    out.push_str(&format!(
        "/** {SERVICE_DOC} */\nexport type ServiceOptions = {};\n",
        names.join(" | ")
    ));
    out
}

/// Every registered call ([`crate::model::Model::api`]), in model order.
pub fn calls() -> impl Iterator<Item = &'static Call> {
    crate::model::MODELS.iter().filter_map(|m| m.api)
}

/// The options reference (`docs/options.md`): every registered call's options as a table.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Options of the API's calls\n\n\
         Generated from the core's declarations (`tail_lab_core::api`, each model's `CALL`): \
         do not edit by hand. `cargo test -p tail-lab-core --lib options_page` checks this file; \
         with `TAIL_LAB_WRITE_GOLDEN=1` it rewrites it. Every option may be left out; a call \
         refuses an unknown key, a value of the wrong type (`TypeError`) or out of range \
         (`RangeError`), naming the option and what it accepts, and any call whose work is \
         over the limit (about 2 s).\n",
    );
    for call in calls() {
        out.push_str(&format!(
            "\n## `{}(options?: {}): {}`\n\n{}",
            call.name, call.options_type, call.result_type, call.doc
        ));
        if !call.options_doc.is_empty() {
            out.push_str(&format!(" {}", call.options_doc));
        }
        for [a, b] in call.exclusive {
            out.push_str(&format!(" Give `{a}` or `{b}`, not both."));
        }
        out.push_str("\n\n");
        out.push_str(&table(call.options, &[]));
        for set in call.more {
            out.push_str(&format!("\n### `{}`\n\n{}\n\n", set.type_name, set.doc));
            out.push_str(&table(set.options, &[]));
        }
        for record in call.records() {
            out.push_str(&format!(
                "\n### `{}`\n\n{}\n\n",
                record.type_name, record.doc
            ));
            out.push_str(&table(record.fields, record.required));
        }
    }
    let forms: Vec<String> = SERVICE_FORMS
        .iter()
        .map(|r| format!("`{}`", r.type_name))
        .collect();
    out.push_str(&format!(
        "\n## `ServiceOptions`\n\n{SERVICE_DOC} Every `service` option is one of {} (the first \
         when it has none of their keys); an error names the field as written \
         (`service.body.medianMs`).\n",
        forms.join(" or ")
    ));
    for record in service_records() {
        out.push_str(&format!(
            "\n### `{}`\n\n{}\n\n",
            record.type_name, record.doc
        ));
        out.push_str(&table(record.fields, record.required));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_is_prepared_from_its_defaults_and_names_its_options_once() {
        for call in calls() {
            let names = call.option_names();
            for (i, n) in names.iter().enumerate() {
                assert!(!names[i + 1..].contains(n), "{}: {n} twice", call.name);
                assert_eq!(
                    camel_case(n),
                    *n,
                    "{}: option names are camelCase",
                    call.name
                );
            }
            for [a, b] in call.exclusive {
                assert!(names.contains(a) && names.contains(b), "{}", call.name);
            }
            let values = OptionValues::complete(call.options, Vec::new());
            let prepared = (call.prepare)(&values)
                .unwrap_or_else(|e| panic!("{}: defaults refused: {e}", call.name));
            assert!(prepared.work.units > 0.0, "{}", call.name);
        }
    }

    /// Every option of every record a call holds, its `more` sets' and the service forms'.
    fn every_option() -> Vec<&'static OptionSpec> {
        let mut out = Vec::new();
        for call in calls() {
            out.extend(call.options);
            out.extend(call.more.iter().flat_map(|s| s.options));
            out.extend(call.records().iter().flat_map(|r| r.fields));
        }
        out.extend(service_records().iter().flat_map(|r| r.fields));
        out
    }

    #[test]
    fn a_service_options_forms_are_told_apart_by_their_own_keys() {
        for o in every_option() {
            if matches!(o.kind, Kind::Service | Kind::ServiceOr(_)) {
                // A form is told by its keys: no key in two forms.
                let forms = o.kind.forms();
                let mut keys: Vec<&str> = forms
                    .iter()
                    .flat_map(|f| f.fields)
                    .map(|f| f.name)
                    .collect();
                let n = keys.len();
                keys.sort_unstable();
                keys.dedup();
                assert_eq!(keys.len(), n, "{keys:?}");
            }
            assert_eq!(camel_case(o.name), o.name);
        }
        for r in service_records() {
            for req in r.required {
                assert!(r.field(req).is_some(), "{}: {req}", r.type_name);
            }
        }
    }

    #[test]
    fn a_service_is_read_from_its_forms_and_refused_by_where() {
        use crate::lab::service::{MIXTURE, service_of};
        let lognormal = |median: f64, sigma: f64| {
            OptionValue::Record(OptionValues::complete(
                crate::lab::service::LOGNORMAL.fields,
                vec![
                    ("medianMs", OptionValue::Number(median)),
                    ("sigma", OptionValue::Number(sigma)),
                ],
            ))
        };
        let mixture = |body| OptionValues::complete(MIXTURE.fields, vec![("body", body)]);
        let m = service_of("service", &mixture(lognormal(8.0, 0.5))).unwrap();
        assert_eq!(m.slow_probability(), 0.0);
        // A model the histogram could not measure names the option itself.
        let e = service_of("leaves", &mixture(lognormal(0.01, 0.5))).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("leaves must be a model whose median"),
            "{e}"
        );
        let missing = MIXTURE.missing(MIXTURE.field("body").unwrap());
        assert_eq!(
            missing.to_string(),
            "body ({ medianMs, sigma }) is required"
        );
        assert_eq!(
            Kind::Service
                .forms_mixed("service", SERVICE_FORMS[0], SERVICE_FORMS[1])
                .to_string(),
            "service: give body and slow, or empirical, not both"
        );
    }

    #[test]
    fn the_options_page_is_what_the_declarations_render() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/options.md");
        let rendered = markdown();
        if std::env::var_os("TAIL_LAB_WRITE_GOLDEN").is_some() {
            std::fs::write(&path, &rendered).expect("docs/ is writable");
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == rendered,
            "docs/options.md is not what the declarations render: rewrite it with \
             TAIL_LAB_WRITE_GOLDEN=1 cargo test -p tail-lab-core --lib options_page"
        );
    }

    #[test]
    fn work_over_the_limit_is_refused_in_the_options_words() {
        let over = Work {
            units: 2.0 * WORK_LIMIT,
            counted_as: "requests × n".into(),
        };
        assert_eq!(
            over.check().unwrap_err(),
            "requests × n must be at most 150000000 work units per call, about 2 s (got \
             300000000); split the work over several calls"
        );
        let at = Work {
            units: WORK_LIMIT,
            counted_as: String::new(),
        };
        assert!(at.check().is_ok());
    }

    #[test]
    fn exclusive_options_are_refused_together_only() {
        let pairs = &[["delayQ", "delayMs"]];
        assert!(check_exclusive(pairs, &["delayQ", "seed"]).is_ok());
        assert_eq!(
            check_exclusive(pairs, &["delayMs", "delayQ"])
                .unwrap_err()
                .to_string(),
            "give delayQ or delayMs, not both"
        );
    }
}
