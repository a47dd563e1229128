//! What a model's result holds, described once: every field's name, unit, meaning and value.
//!
//! Each result type implements [`Describe`]. Everything that shows a result renders this
//! description and nothing else: the wasm binding builds the JS object and generates the
//! TypeScript declaration from it, and `tail-lab report` prints it as JSON and as a table. So a
//! field is written down in one place, next to the model, and the three renderings cannot
//! disagree. Keys are `snake_case` here (and in JSON); [`camel_case`] is the one place that
//! turns them into JS keys.
//!
//! The core has no serde: this is plain data, and the renderers live with their formats.

use crate::sampling::batch::RunIntervals;

/// What a number measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Milliseconds.
    Ms,
    /// A fraction in 0..=1 (a share, a probability, a quantile level).
    Fraction,
    /// A count of things (requests, servers, leaves).
    Count,
    /// Multiples of the mean service time (the queueing models' time unit).
    ServiceTimes,
    /// A rate or load: arrivals per mean service time, per server.
    Rate,
    /// No unit: a name, a flag, a sentence.
    None,
}

impl Unit {
    /// How the unit reads in documentation.
    pub fn describe(self) -> &'static str {
        match self {
            Unit::Ms => "ms",
            Unit::Fraction => "fraction 0..1",
            Unit::Count => "count",
            Unit::ServiceTimes => "mean service times",
            Unit::Rate => "per mean service time, per server",
            Unit::None => "",
        }
    }
}

/// A field's value, and so its type in every rendering.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A finite number (JS `number`).
    Number(f64),
    /// A number, or nothing when it does not exist (JS `number | null`).
    MaybeNumber(Option<f64>),
    /// An integer up to 2^53 (JS `number`, exact).
    Integer(u64),
    /// JS `boolean`.
    Flag(bool),
    /// One of a fixed set of names (JS a union of string literals).
    Name {
        /// The name.
        value: &'static str,
        /// Every name it can be.
        choices: &'static [&'static str],
    },
    /// A sentence, or nothing (JS `string | null`).
    MaybeText(Option<String>),
    /// A run of numbers (JS `Float64Array`, JSON an array).
    Series(Vec<f64>),
    /// A nested record, declared as its own TypeScript interface `name`.
    Record {
        /// The TypeScript interface name.
        name: &'static str,
        /// Its fields.
        fields: Vec<Field>,
    },
}

/// One field of a result.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The key, `snake_case`.
    pub key: &'static str,
    /// What the number measures.
    pub unit: Unit,
    /// One sentence on what it is (the TypeScript doc comment).
    pub doc: &'static str,
    /// The value.
    pub value: Value,
    /// The figure a seed document quotes for it, if any (same unit), shown beside it.
    pub quoted: Option<f64>,
}

impl Field {
    /// A field with no quoted figure.
    pub fn new(key: &'static str, unit: Unit, doc: &'static str, value: Value) -> Self {
        Field {
            key,
            unit,
            doc,
            value,
            quoted: None,
        }
    }

    /// The same field, with the figure a seed document quotes for it.
    pub fn quoting(mut self, figure: f64) -> Self {
        self.quoted = Some(figure);
        self
    }

    /// A number in ms.
    pub fn ms(key: &'static str, doc: &'static str, value: f64) -> Self {
        Field::new(key, Unit::Ms, doc, Value::Number(value))
    }

    /// A fraction 0..=1.
    pub fn fraction(key: &'static str, doc: &'static str, value: f64) -> Self {
        Field::new(key, Unit::Fraction, doc, Value::Number(value))
    }

    /// A count.
    pub fn count(key: &'static str, doc: &'static str, value: u64) -> Self {
        Field::new(key, Unit::Count, doc, Value::Integer(value))
    }

    /// A flag.
    pub fn flag(key: &'static str, doc: &'static str, value: bool) -> Self {
        Field::new(key, Unit::None, doc, Value::Flag(value))
    }
}

/// A result that can say what it holds.
pub trait Describe {
    /// The TypeScript interface the binding declares for it (`"HedgeResult"`).
    const TYPE_NAME: &'static str;
    /// One sentence on what the result is.
    const DOC: &'static str;
    /// Its fields, in order.
    fn describe(&self) -> Vec<Field>;
}

/// `snake_case` → `camelCase`: `theory_p999_after` → `theoryP999After`. The one place JS keys
/// come from.
pub fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The six fields of a run's 95% batch-means intervals ([`RunIntervals`]), in `unit`:
/// `mean_low`, `mean_high`, `p50_low`, `p50_high`, `p99_low` and `p99_high`, each `null` when
/// the run has none (it was not stable, or too short to fill every batch).
pub fn interval_fields(intervals: Option<RunIntervals>, unit: Unit) -> Vec<Field> {
    let end = |key, doc, f: fn(&RunIntervals) -> Option<f64>| {
        Field::new(
            key,
            unit,
            doc,
            Value::MaybeNumber(intervals.as_ref().and_then(f)),
        )
    };
    vec![
        end(
            "mean_low",
            "Lower end of the mean's 95% interval, by batch means over 5 batches of consecutive \
             measured requests.",
            |i| i.mean.map(|x| x.lo),
        ),
        end("mean_high", "Upper end of the mean's 95% interval.", |i| {
            i.mean.map(|x| x.hi)
        }),
        end(
            "p50_low",
            "Lower end of the median's 95% interval (batch means of the share of each batch \
             at or below the run's median, read back through its histogram).",
            |i| i.p50.map(|x| x.lo),
        ),
        end("p50_high", "Upper end of the median's 95% interval.", |i| {
            i.p50.map(|x| x.hi)
        }),
        end(
            "p99_low",
            "Lower end of the p99's 95% interval (as the median's); null below 2,500 measured \
             requests, where a batch expects fewer than 5 beyond its p99.",
            |i| i.p99.map(|x| x.lo),
        ),
        end("p99_high", "Upper end of the p99's 95% interval.", |i| {
            i.p99.map(|x| x.hi)
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_is_the_js_spelling() {
        assert_eq!(camel_case("theory_p999_after"), "theoryP999After");
        assert_eq!(camel_case("p50"), "p50");
        assert_eq!(camel_case("at_capacity"), "atCapacity");
        assert_eq!(camel_case("delay_q"), "delayQ");
    }
}
