//! The report as a plain-text table, rendered from each entry's description: for one entry, a
//! line per field with the simulated value, its closed form (the field `theory_<key>`, or
//! `theory` beside `sim`) and the figure the seed documents quote; for a sweep, a column per
//! field and a line per point.

use std::fmt::Write;
use tail_lab_core::describe::{Field, Unit, Value};
use tail_lab_core::report::{Report, Section};

fn ms(v: f64) -> String {
    match v {
        v if !v.is_finite() => "—".into(),
        v if v >= 100.0 => format!("{v:.0} ms"),
        v if v >= 10.0 => format!("{v:.1} ms"),
        v => format!("{v:.2} ms"),
    }
}

/// A number in its unit, as the table shows it.
fn number(unit: Unit, x: f64) -> String {
    match unit {
        Unit::Ms => ms(x),
        Unit::Fraction => format!("{:.2}%", 100.0 * x),
        Unit::Count => format!("{x}"),
        Unit::ServiceTimes => format!("{x:.3}"),
        Unit::Rate => format!("{x:.2}"),
        Unit::None => format!("{x}"),
    }
}

/// A field's value as a table cell; `None` for values a table does not show (series,
/// records, sentences).
fn cell(f: &Field) -> Option<String> {
    Some(match &f.value {
        Value::Number(x) => number(f.unit, *x),
        Value::MaybeNumber(x) => x.map_or_else(|| "—".into(), |x| number(f.unit, x)),
        Value::Integer(n) => n.to_string(),
        Value::Flag(b) => if *b { "yes" } else { "no" }.into(),
        Value::Name { value, .. } => (*value).into(),
        Value::MaybeText(_) | Value::Series(_) | Value::Record { .. } => return None,
    })
}

/// The closed form shown beside `f`: `theory_<key>`, or `theory` beside `sim`.
fn partner<'a>(f: &Field, fields: &'a [Field]) -> Option<&'a Field> {
    let key = if f.key == "sim" {
        "theory".to_string()
    } else {
        format!("theory_{}", f.key)
    };
    fields.iter().find(|g| g.key == key)
}

fn is_partner(f: &Field, fields: &[Field]) -> bool {
    fields
        .iter()
        .any(|g| partner(g, fields).is_some_and(|p| p.key == f.key))
}

/// The whole report as text.
pub fn report(r: &Report) -> String {
    let mut out = format!(
        "Tail Latency Lab · seed {} · {} requests per experiment\n",
        r.seed, r.requests
    );
    for (number, section) in (1..).zip(&r.sections) {
        let _ = writeln!(out, "\n{number} {}", section.title);
        if !section.note.is_empty() {
            for line in wrap(&format!("({})", section.note), 94) {
                let _ = writeln!(out, "  {line}");
            }
        }
        if section.sweep {
            sweep(&mut out, section);
        } else if let Some(entry) = section.entries.first() {
            single(&mut out, entry);
        }
    }
    out
}

/// One entry: a line per field.
fn single(out: &mut String, fields: &[Field]) {
    let _ = writeln!(
        out,
        "  {:<28} {:>11} {:>11} {:>11}",
        "", "simulated", "theory", "seed doc"
    );
    for f in fields {
        let Some(value) = cell(f) else { continue };
        if is_partner(f, fields) {
            continue;
        }
        let theory = partner(f, fields).and_then(cell).unwrap_or_default();
        let quoted = f.quoted.map(|q| number(f.unit, q)).unwrap_or_default();
        let what = f.key.replace('_', " ");
        let _ = writeln!(out, "  {what:<28} {value:>11} {theory:>11} {quoted:>11}");
    }
}

/// A sweep: a column per shown field, a line per point, and a point's sentence (why it is
/// unstable) under it.
fn sweep(out: &mut String, section: &Section) {
    let Some(first) = section.entries.first() else {
        return;
    };
    let columns: Vec<&'static str> = first
        .iter()
        .filter(|f| cell(f).is_some())
        .map(|f| f.key)
        .collect();
    let rows: Vec<Vec<String>> = section
        .entries
        .iter()
        .map(|e| e.iter().filter_map(cell).collect())
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            rows.iter()
                .map(|r| r.get(i).map_or(0, |s| s.chars().count()))
                .chain([c.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &mut dyn Iterator<Item = String>| {
        let mut s = String::from(" ");
        for (cell, w) in cells.zip(&widths) {
            let _ = write!(s, " {cell:>w$}");
        }
        s
    };
    let _ = writeln!(out, "{}", line(&mut columns.iter().map(|c| c.to_string())));
    for (row, entry) in rows.into_iter().zip(&section.entries) {
        let _ = writeln!(out, "{}", line(&mut row.into_iter()));
        for f in entry {
            if let Value::MaybeText(Some(text)) = &f.value {
                let _ = writeln!(out, "    {}: {text}", f.key.replace('_', " "));
            }
        }
    }
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let last = lines.last_mut().expect("never empty");
        if !last.is_empty() && last.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}
