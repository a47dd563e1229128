//! The report as JSON, rendered from each entry's description (`tail_lab_core::describe`):
//! keys are the described `snake_case` keys, each number in its described unit (ms, mean
//! service times for the queueing models, fractions 0..1). Only this crate
//! knows JSON: the core's types carry no serde derives.

use serde_json::{Map, Value as Json};
use tail_lab_core::describe::{Field, Value};
use tail_lab_core::report::Report;

/// The whole report as one JSON object: the seed, the requests, and one key per model (an
/// object, or an array of them for a sweep).
pub fn report(r: &Report) -> Json {
    let mut out = Map::new();
    out.insert("seed".into(), r.seed.into());
    out.insert("requests".into(), r.requests.into());
    for section in &r.sections {
        let value = match (section.sweep, section.entries.first()) {
            (true, _) => Json::Array(section.entries.iter().map(|e| record(e)).collect()),
            (false, Some(entry)) => record(entry),
            (false, None) => Json::Null,
        };
        out.insert(section.key.into(), value);
    }
    Json::Object(out)
}

/// One described entry as a JSON object.
pub fn record(fields: &[Field]) -> Json {
    Json::Object(
        fields
            .iter()
            .map(|f| (f.key.to_string(), value(&f.value)))
            .collect(),
    )
}

fn value(v: &Value) -> Json {
    match v {
        Value::Number(x) => number(*x),
        Value::MaybeNumber(x) => x.map_or(Json::Null, number),
        Value::Integer(n) => (*n).into(),
        Value::Flag(b) => (*b).into(),
        Value::Name { value, .. } => (*value).into(),
        Value::MaybeText(t) => t.clone().map_or(Json::Null, Json::String),
        Value::Series(xs) => Json::Array(xs.iter().map(|&x| number(x)).collect()),
        Value::Record { fields, .. } => record(fields),
    }
}

/// A number as JSON; a non-finite one (which no result should hold) as null, never a panic.
fn number(x: f64) -> Json {
    serde_json::Number::from_f64(x).map_or(Json::Null, Json::Number)
}
