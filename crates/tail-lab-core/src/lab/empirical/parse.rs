//! Reading the latency formats engineers already have, strictly: every value is checked, and
//! a refusal names the line and says what was expected.
//!
//! - **Lines**: one latency per line, optionally with a unit (`12.5`, `12.5ms`, `1.2 s`).
//! - **CSV** (comma, tab or semicolon): one column of it, chosen by name or number, or found by
//!   its header (`latency`, `duration`, `elapsed`, `response time`…).
//! - **HdrHistogram** percentile distribution: the table `outputPercentileDistribution` and
//!   wrk2 print (`Value Percentile TotalCount 1/(1-Percentile)`, then `#[Mean …]` lines); the
//!   rest of a pasted wrk2 report around it is skipped.
//! - **Prometheus** histogram: `…_bucket{le="…"} count` lines (cumulative), as `/metrics`
//!   exposes them; other lines (`# HELP`, `_sum`, `_count`, other metrics) are skipped, and
//!   several series of one metric are summed bucket by bucket (`sum by (le)`).
//! - **Percentiles**: `p50 4`, `p99.9: 120ms`, `99% 30`, one or several to a line, or wrk's
//!   `Latency Distribution` block (`50.000%    1.98ms`), whose lines may each carry a unit.
//!
//! Samples become [`Values::Samples`]; the three summaries become CDF points
//! ([`Values::Points`]). Units: a value's own suffix (`ns`, `us`/`µs`, `ms`, `s`), else the
//! column's (`latency_ms`, `duration (s)`), else the option, else the format's convention
//! (seconds for Prometheus, milliseconds otherwise). Samples must all be in one unit: a value
//! with a suffix among bare numbers, or two different suffixes, is refused by line.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::fmt;

/// The most lines a text may have: 10⁷ (about 80 MB of latencies). Longer texts are refused
/// at once, by count, before anything is parsed.
pub const MAX_LINES: usize = 10_000_000;

/// A refusal: the line it is about (1-based; 0 for the text as a whole) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// 1-based line number, or 0 when no one line is at fault.
    pub line: usize,
    /// What is wrong and what was expected, in words.
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for InputError {}

/// The most bytes a text may have: 200 MB (10⁷ latencies of up to 19 characters each).
pub const MAX_BYTES: usize = 200_000_000;

/// `Ok` for a text of `bytes` bytes that may be read (at most [`MAX_BYTES`]); otherwise the
/// refusal, about the text as a whole (line 0), checked before the text is copied.
pub fn check_size(bytes: usize) -> Result<(), InputError> {
    if bytes <= MAX_BYTES {
        Ok(())
    } else {
        Err(at(
            0,
            format!(
                "the text must be at most {MAX_BYTES} bytes (got {bytes}); give at most \
                 10000000 latencies, or a histogram or percentiles of them"
            ),
        ))
    }
}

fn at(line: usize, message: impl Into<String>) -> InputError {
    InputError {
        line,
        message: message.into(),
    }
}

/// A time unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
}

impl TimeUnit {
    /// Every unit, with its name.
    pub const ALL: [TimeUnit; 4] = [TimeUnit::Ns, TimeUnit::Us, TimeUnit::Ms, TimeUnit::S];

    /// Its name (`"ns"`, `"us"`, `"ms"`, `"s"`).
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Ns => "ns",
            TimeUnit::Us => "us",
            TimeUnit::Ms => "ms",
            TimeUnit::S => "s",
        }
    }

    /// Milliseconds in one of it.
    pub fn in_ms(self) -> f64 {
        match self {
            TimeUnit::Ns => 1e-6,
            TimeUnit::Us => 1e-3,
            TimeUnit::Ms => 1.0,
            TimeUnit::S => 1e3,
        }
    }

    /// The unit a suffix or name spells (`µs` and `μs` are `us`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "ns" => Some(TimeUnit::Ns),
            "us" | "µs" | "μs" => Some(TimeUnit::Us),
            "ms" => Some(TimeUnit::Ms),
            "s" | "sec" | "secs" | "seconds" => Some(TimeUnit::S),
            _ => None,
        }
    }
}

/// An input format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One latency per line.
    Lines,
    /// A column of a delimited table.
    Csv,
    /// An HdrHistogram percentile distribution (wrk2's detailed spectrum).
    HdrHistogram,
    /// A Prometheus histogram's cumulative buckets.
    Prometheus,
    /// Percentiles typed or printed (`p99 30ms`, `99.000% 30ms`).
    Percentiles,
}

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: [Format; 5] = [
        Format::Prometheus,
        Format::HdrHistogram,
        Format::Percentiles,
        Format::Csv,
        Format::Lines,
    ];

    /// Its name (`"lines"`, `"csv"`, `"hdrhistogram"`, `"prometheus"`, `"percentiles"`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Lines => "lines",
            Format::Csv => "csv",
            Format::HdrHistogram => "hdrhistogram",
            Format::Prometheus => "prometheus",
            Format::Percentiles => "percentiles",
        }
    }

    /// The format named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// Which CSV column holds the latencies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    /// By its header's name (compared without case).
    Named(String),
    /// By position, 1-based.
    Number(usize),
}

/// How to read a text; `None` everywhere detects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// The format, or `None` to detect it.
    pub format: Option<Format>,
    /// The CSV column, or `None` to find it by its header.
    pub column: Option<Column>,
    /// The unit of bare numbers, or `None` for the column's or the format's.
    pub unit: Option<TimeUnit>,
}

/// A point of a cumulative distribution: `P(X ≤ ms) = level`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CdfPoint {
    /// The cumulative fraction, 0..=1.
    pub level: f64,
    /// The time (ms).
    pub ms: f64,
}

/// What a text held.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Individual latencies (ms), in the text's order.
    Samples(Vec<f64>),
    /// Points of the CDF (ms), by rising level: the line each came from, and the point.
    Points(Vec<(usize, CdfPoint)>),
}

/// A text, read.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyInput {
    /// The format it was read as.
    pub format: Format,
    /// The unit bare numbers were read in.
    pub unit: TimeUnit,
    /// The latencies, or the CDF's points.
    pub values: Values,
    /// The CSV header's names (empty for other formats, or a CSV without a header).
    pub columns: Vec<String>,
    /// The CSV column read (0-based), when the format is CSV.
    pub column: Option<usize>,
    /// The CSV's number of columns (0 for other formats).
    pub column_count: usize,
    /// True when no header named the latency column and the last numeric one was read.
    pub column_guessed: bool,
    /// Lines skipped as not data: blank, comments, a report's other lines.
    pub skipped_lines: usize,
    /// Prometheus series summed bucket by bucket (1 for every other format).
    pub series: usize,
}

/// A text's lines, 1-based, each with its `\r` trimmed, read afresh by every pass: a text of 10⁷
/// latencies is never copied into a list of lines.
#[derive(Clone, Copy)]
struct Lines<'a> {
    text: &'a str,
    count: usize,
}

impl<'a> Lines<'a> {
    /// The lines of `bytes`: refused past [`MAX_LINES`], or at the first line that is not UTF-8.
    fn of(bytes: &'a [u8]) -> Result<Self, InputError> {
        // A final newline ends the last line rather than starting another.
        let count = bytes.iter().filter(|&&b| b == b'\n').count()
            + usize::from(!bytes.is_empty() && bytes.last() != Some(&b'\n'));
        if count > MAX_LINES {
            return Err(at(
                0,
                format!(
                    "the text has {count} lines, more than the 10000000 this page reads; give at \
                     most 10000000 latencies, or a histogram or percentiles of them"
                ),
            ));
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            at(line, "is not text (not valid UTF-8)")
        })?;
        // A leading byte-order mark is not part of the first value.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Ok(Lines { text, count })
    }

    fn iter(self) -> impl Iterator<Item = (usize, &'a str)> + Clone {
        let end = if self.text.ends_with('\n') {
            self.text.len() - 1
        } else {
            self.text.len()
        };
        self.text[..end]
            .split('\n')
            .enumerate()
            .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
    }

    fn len(self) -> usize {
        self.count
    }
}

fn is_skippable(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#') || t.starts_with("//")
}

/// `s` shortened for a message, with its quotes.
fn shown(s: &str) -> String {
    let t = s.trim();
    // A quoted cell may hold a line break: shown as ↵, so a message stays one line.
    let mut cut: String = t
        .chars()
        .take(40)
        .map(|c| if c == '\n' { '↵' } else { c })
        .collect();
    // Looked for past the 40th character only: a 20 MB cell is not counted to the end.
    if t.chars().nth(40).is_some() {
        cut.push('…');
    }
    format!("“{cut}”")
}

/// A number and its unit suffix, if any (`"12.5ms"`, `"12.5 ms"`, `"3"`).
fn number_and_unit(token: &str) -> Option<(f64, Option<TimeUnit>)> {
    let t = token.trim();
    if let Some(v) = plain_decimal(t) {
        return Some((v, None));
    }
    if let Ok(v) = t.parse::<f64>() {
        return Some((v, None));
    }
    let split = t
        .char_indices()
        .find(|&(i, c)| {
            c.is_alphabetic()
                && !(matches!(c, 'e' | 'E')
                    && t[i + 1..].starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+'))
        })
        .map_or(t.len(), |(i, _)| i);
    let (num, unit) = t.split_at(split);
    let num = num.trim();
    if num.is_empty() {
        return None;
    }
    let value: f64 = num.parse().ok()?;
    let unit = unit.trim();
    if unit.is_empty() {
        return Some((value, None));
    }
    TimeUnit::from_name(unit).map(|u| (value, Some(u)))
}

/// `digits[.digits]` with at most 15 significant digits, exactly as `str::parse` reads it: the
/// digits make an integer below 2^53 and the point a power of ten up to 10^15, both exact in
/// f64, so their one IEEE division is the correctly rounded value (Clinger's fast path). The
/// common latency is read this way, several times faster; anything else (signs, exponents,
/// more digits) goes to `str::parse`.
fn plain_decimal(t: &str) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let bytes = t.as_bytes();
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let (mut mantissa, mut digits, mut decimals, mut point) = (0u64, 0usize, 0usize, false);
    for &b in bytes {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                digits += 1;
                decimals += usize::from(point);
            }
            b'.' if !point => point = true,
            _ => return None,
        }
    }
    (digits > 0 && digits <= 15).then(|| mantissa as f64 / POW10[decimals])
}

const NOT_A_LATENCY: &str =
    "is not a latency: expected a number, optionally followed by a unit (ns, us, ms, s)";

fn checked_latency(line: usize, value: f64, token: &str) -> Result<f64, InputError> {
    if !value.is_finite() {
        return Err(at(line, format!("{} is not a finite number", shown(token))));
    }
    if value <= 0.0 {
        return Err(at(
            line,
            format!(
                "{} is not above 0: a latency must be a positive time",
                shown(token)
            ),
        ));
    }
    Ok(value)
}

/// Samples must share one unit: the first value's (its suffix, or none).
struct UnitGuard {
    first: Option<(usize, Option<TimeUnit>)>,
}

impl UnitGuard {
    fn check(&mut self, line: usize, unit: Option<TimeUnit>) -> Result<(), InputError> {
        match self.first {
            None => {
                self.first = Some((line, unit));
                Ok(())
            }
            Some((_, u)) if u == unit => Ok(()),
            Some((first, u)) => {
                let name =
                    |u: Option<TimeUnit>| u.map_or("no unit".to_string(), |u| u.name().to_string());
                Err(at(
                    line,
                    format!(
                        "mixed units: this value has {} but line {first} has {}; give every latency \
                         in one unit",
                        name(unit),
                        name(u)
                    ),
                ))
            }
        }
    }
}

/// Reads `bytes` as latency data.
pub fn parse(bytes: &[u8], options: &ParseOptions) -> Result<LatencyInput, InputError> {
    let lines = Lines::of(bytes)?;
    if lines.iter().all(|(_, l)| is_skippable(l)) {
        return Err(at(
            0,
            "there is nothing to read: the text is empty (paste latencies, one per line, a CSV, \
             an HdrHistogram or Prometheus histogram, or percentiles such as p50 4ms, p99 30ms)",
        ));
    }
    let format = options.format.unwrap_or_else(|| detect(lines));
    let input = match format {
        Format::Lines => lines_format(lines, options.unit),
        Format::Csv => csv_format(lines, options),
        Format::HdrHistogram => hdr_format(lines, options.unit),
        Format::Prometheus => prometheus_format(lines, options.unit),
        Format::Percentiles => percentiles_format(lines, options.unit),
    }?;
    Ok(input)
}

/// The format a text is most likely in. The markers of the summary formats are looked for in
/// the whole text at once (a substring search, not a pass over its lines), so a text of 10⁷
/// latencies is read once to detect and once to parse.
fn detect(lines: Lines) -> Format {
    let text = lines.text;
    let data = || lines.iter().map(|(_, l)| l).filter(|l| !is_skippable(l));
    if text.contains("_bucket{") {
        return Format::Prometheus;
    }
    if text.contains("Percentile") && lines.iter().any(|(_, l)| hdr_header(l)) {
        return Format::HdrHistogram;
    }
    if (text.contains("Latency Distribution")
        && lines
            .iter()
            .any(|(_, l)| l.trim() == "Latency Distribution"))
        || data()
            .next()
            .is_some_and(|l| percentile_items(l).is_some_and(|items| !items.is_empty()))
    {
        return Format::Percentiles;
    }
    if data()
        .take(3)
        .any(|l| l.contains(',') || l.contains('\t') || l.contains(';'))
    {
        return Format::Csv;
    }
    Format::Lines
}

fn lines_format(lines: Lines, unit: Option<TimeUnit>) -> Result<LatencyInput, InputError> {
    let mut samples = Vec::with_capacity(lines.len());
    let mut guard = UnitGuard { first: None };
    let mut suffix = None;
    let mut skipped = 0;
    for (n, line) in lines.iter() {
        if is_skippable(line) {
            skipped += 1;
            continue;
        }
        let token = line.trim();
        let Some((value, u)) = number_and_unit(token) else {
            if token.split_whitespace().count() > 1
                && token
                    .split_whitespace()
                    .all(|w| number_and_unit(w).is_some())
            {
                return Err(at(
                    n,
                    format!(
                        "{} holds several values; give one latency per line (or choose CSV)",
                        shown(token)
                    ),
                ));
            }
            return Err(at(n, format!("{} {NOT_A_LATENCY}", shown(token))));
        };
        guard.check(n, u)?;
        suffix = suffix.or(u);
        samples.push(checked_latency(n, value, token)?);
    }
    let unit = suffix.or(unit).unwrap_or(TimeUnit::Ms);
    let scale = unit.in_ms();
    if scale != 1.0 {
        for x in &mut samples {
            *x *= scale;
        }
    }
    Ok(LatencyInput {
        format: Format::Lines,
        unit,
        values: Values::Samples(samples),
        columns: Vec::new(),
        column: None,
        column_count: 0,
        column_guessed: false,
        skipped_lines: skipped,
        series: 1,
    })
}

/// The delimiter of a CSV: the one of `,`, tab, `;` the first data line has most of.
fn delimiter(line: &str) -> char {
    [',', '\t', ';']
        .into_iter()
        .max_by_key(|&d| line.matches(d).count())
        .unwrap_or(',')
}

/// The cells of a CSV record, quotes removed (`"a, b"` is one cell, `"say ""hi"""` is
/// `say "hi"`). As RFC 4180 reads them, a quote opens a quoted cell only at the cell's start
/// (after the delimiter and any blanks); anywhere else it is a literal character (`6" pipe`).
fn cells(line: &str, delim: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut cell = String::new();
    let (mut quoted, mut at_start) = (false, true);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            if c != '"' {
                cell.push(c);
            } else if chars.peek() == Some(&'"') {
                cell.push('"');
                chars.next();
            } else {
                quoted = false;
            }
        } else if c == delim {
            out.push(std::mem::take(&mut cell));
            at_start = true;
        } else if c == '"' && at_start {
            // Blanks before the opening quote are not part of the cell.
            cell.clear();
            quoted = true;
            at_start = false;
        } else {
            at_start &= c.is_whitespace();
            cell.push(c);
        }
    }
    out.push(cell);
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Whether a CSV record still holds an open quoted cell at the end of `line`, which is read
/// starting `quoted` (inside a quoted cell) or not, by the rules of [`cells`].
fn ends_quoted(line: &str, delim: char, mut quoted: bool) -> bool {
    let mut at_start = !quoted;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' && chars.next_if_eq(&'"').is_none() {
                quoted = false;
            }
        } else if c == delim {
            at_start = true;
        } else if c == '"' && at_start {
            quoted = true;
            at_start = false;
        } else {
            at_start &= c.is_whitespace();
        }
    }
    quoted
}

/// Header names that say "this column is the latency".
const LATENCY_NAMES: [&str; 8] = [
    "latency", "duration", "elapsed", "response", "rtt", "took", "time_ms", "ms",
];

/// The unit a column's name states (`latency_ms`, `duration (s)`, `elapsed_us`).
fn unit_of_name(name: &str) -> Option<TimeUnit> {
    let lower = name.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != 'µ' && c != 'μ')
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().rev().find_map(|w| TimeUnit::from_name(w))
}

/// A CSV record: its first line's number, its last line's, and its text (one line, or several
/// joined by `\n` when a quoted cell holds a line break).
type Record<'a> = (usize, usize, Cow<'a, str>);

/// The records of a CSV as RFC 4180 reads them: a record is one line, unless a quoted cell
/// holds a line break (`1,"two\nlines",5`), when it runs on to the line that closes the quote
/// (quotes read as [`cells`] reads them: one opens a cell only at its start). Blank and comment
/// lines between records are skipped; inside a quoted cell every line is the cell's. A quote
/// never closed is refused, naming the line it opened on.
fn records<'a>(
    lines: Lines<'a>,
    delim: char,
) -> impl Iterator<Item = Result<Record<'a>, InputError>> + 'a {
    let mut lines = lines.iter();
    std::iter::from_fn(move || {
        let (n, line) = lines.by_ref().find(|(_, l)| !is_skippable(l))?;
        if !ends_quoted(line, delim, false) {
            return Some(Ok((n, n, Cow::Borrowed(line))));
        }
        let mut record = line.to_string();
        for (m, more) in lines.by_ref() {
            record.push('\n');
            record.push_str(more);
            if !ends_quoted(more, delim, true) {
                return Some(Ok((n, m, Cow::Owned(record))));
            }
        }
        Some(Err(at(
            n,
            "a quoted cell opens on this line and is never closed (a \" is missing)",
        )))
    })
}

fn csv_format(lines: Lines, options: &ParseOptions) -> Result<LatencyInput, InputError> {
    // The delimiter is the first data line's, read before its quotes are.
    let delim = lines
        .iter()
        .find(|(_, l)| !is_skippable(l))
        .map_or(',', |(_, l)| delimiter(l));
    let mut data = records(lines, delim);
    let (first_n, first_end, first) = data.next().expect("parse checked there is data")?;
    let first_cells = cells(&first, delim);
    let header = first_cells
        .iter()
        .any(|c| !c.is_empty() && number_and_unit(c).is_none());
    let columns: Vec<String> = if header {
        first_cells.clone()
    } else {
        Vec::new()
    };
    let width = first_cells.len();
    let mut guessed = false;
    let column = match &options.column {
        Some(Column::Number(k)) => {
            if *k == 0 || *k > width {
                return Err(at(
                    first_n,
                    format!("column {k} does not exist: this table has columns 1 to {width}"),
                ));
            }
            k - 1
        }
        Some(Column::Named(name)) => {
            if !header {
                return Err(at(
                    first_n,
                    format!(
                        "there is no header line to find the column {} in; choose the column \
                         by number (1 to {width})",
                        shown(name)
                    ),
                ));
            }
            columns
                .iter()
                .position(|c| c.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    at(
                        first_n,
                        format!(
                            "no column is called {}; the columns are {}",
                            shown(name),
                            listed(&columns)
                        ),
                    )
                })?
        }
        None => {
            let by_name = header
                .then(|| {
                    columns.iter().position(|c| {
                        let lower = c.to_lowercase();
                        LATENCY_NAMES.iter().any(|n| lower.contains(n))
                    })
                })
                .flatten();
            match by_name {
                Some(i) => i,
                None if width == 1 => 0,
                None => {
                    // No name says which: the last column whose first row holds a number (a
                    // timestamp or an id usually comes first), said so, for the reader to change.
                    guessed = true;
                    let first_row = if header {
                        records(lines, delim)
                            .nth(1)
                            .transpose()?
                            .map(|(_, _, l)| cells(&l, delim))
                    } else {
                        Some(first_cells.clone())
                    };
                    first_row
                        .and_then(|row| {
                            (0..row.len().min(width))
                                .rev()
                                .find(|&i| number_and_unit(&row[i]).is_some())
                        })
                        .ok_or_else(|| {
                            at(
                                first_n,
                                format!(
                                    "none of this table's {width} columns holds numbers in its \
                                     first row; choose the column (1 to {width})"
                                ),
                            )
                        })?
                }
            }
        }
    };
    let named_unit = header.then(|| unit_of_name(&columns[column])).flatten();
    let unit = options.unit.or(named_unit).unwrap_or(TimeUnit::Ms);
    let scale = unit.in_ms();
    let mut samples = Vec::with_capacity(lines.len());
    let mut guard = UnitGuard { first: None };
    // Lines that are data: every line a row spans (a header's are counted as skipped).
    let mut data_lines = 0;
    let rows = std::iter::once(Ok((first_n, first_end, first)))
        .filter(|_| !header)
        .chain(data);
    for record in rows {
        let (n, end, line) = record?;
        data_lines += end - n + 1;
        let row = cells(&line, delim);
        let Some(cell) = row.get(column) else {
            return Err(at(
                n,
                format!(
                    "has {} cells, so no column {} (the first line has {width})",
                    row.len(),
                    column + 1
                ),
            ));
        };
        let (value, u) = number_and_unit(cell).ok_or_else(|| {
            at(
                n,
                format!("column {}: {} {NOT_A_LATENCY}", column + 1, shown(cell)),
            )
        })?;
        guard.check(n, u)?;
        let value = checked_latency(n, value, cell)?;
        samples.push(value * u.map_or(scale, TimeUnit::in_ms));
    }
    if samples.is_empty() {
        return Err(at(first_n, "the table has a header line and no rows"));
    }
    Ok(LatencyInput {
        format: Format::Csv,
        unit,
        values: Values::Samples(samples),
        columns,
        column: Some(column),
        column_count: width,
        column_guessed: guessed,
        skipped_lines: lines.len() - data_lines,
        series: 1,
    })
}

/// Column names for a message: each quoted and cut as [`shown`] cuts, at most the first ten,
/// and how many more there are.
fn listed(columns: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut out = columns
        .iter()
        .take(SHOWN)
        .map(|c| shown(c))
        .collect::<Vec<_>>()
        .join(", ");
    if columns.len() > SHOWN {
        out.push_str(&format!(" and {} more", columns.len() - SHOWN));
    }
    out
}

/// The header of an HdrHistogram percentile table.
fn hdr_header(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("Value") && words.next() == Some("Percentile")
}

fn hdr_format(lines: Lines, unit: Option<TimeUnit>) -> Result<LatencyInput, InputError> {
    let Some(start) = lines.iter().position(|(_, l)| hdr_header(l)) else {
        return Err(at(
            0,
            "no HdrHistogram table: expected a header line “Value Percentile TotalCount \
             1/(1-Percentile)”",
        ));
    };
    let unit = unit.unwrap_or(TimeUnit::Ms);
    let scale = unit.in_ms();
    let mut points: Vec<(usize, CdfPoint)> = Vec::new();
    let mut rows = 0usize;
    for (n, line) in lines.iter().skip(start + 1) {
        let t = line.trim();
        if t.is_empty() && rows == 0 {
            continue;
        }
        if t.is_empty() || t.starts_with('#') || t.starts_with('-') {
            // The table ends at its trailer (`#[Mean …]`) or the first blank line after rows.
            break;
        }
        let fields: Vec<&str> = t.split_whitespace().collect();
        if fields.len() < 3 {
            return Err(at(
                n,
                format!(
                    "{} is not a row of the table: expected Value, Percentile, TotalCount and \
                     1/(1-Percentile)",
                    shown(t)
                ),
            ));
        }
        let value: f64 = fields[0]
            .parse()
            .map_err(|_| at(n, format!("Value {} is not a number", shown(fields[0]))))?;
        let level: f64 = fields[1].parse().map_err(|_| {
            at(
                n,
                format!("Percentile {} is not a number", shown(fields[1])),
            )
        })?;
        if !(0.0..=1.0).contains(&level) {
            return Err(at(
                n,
                format!("Percentile {} is not a fraction in 0..1", shown(fields[1])),
            ));
        }
        let value = checked_latency(n, value, fields[0])?;
        rows += 1;
        push_point(&mut points, n, level, value * scale)?;
    }
    if rows == 0 {
        return Err(at(
            start + 1,
            "the HdrHistogram table has a header and no rows",
        ));
    }
    Ok(LatencyInput {
        format: Format::HdrHistogram,
        unit,
        values: Values::Points(points),
        columns: Vec::new(),
        column: None,
        column_count: 0,
        column_guessed: false,
        skipped_lines: lines.len() - rows,
        series: 1,
    })
}

/// Adds a CDF point, keeping levels strictly rising and times non-decreasing. A repeated level
/// keeps its first (smallest) time, which is the quantile's own definition; a time that falls
/// as the level rises is refused.
fn push_point(
    points: &mut Vec<(usize, CdfPoint)>,
    line: usize,
    level: f64,
    ms: f64,
) -> Result<(), InputError> {
    if let Some(&(prev_line, prev)) = points.last() {
        if level < prev.level {
            return Err(at(
                line,
                format!(
                    "the level falls ({} after {} on line {prev_line}): a cumulative distribution \
                     only rises",
                    level, prev.level
                ),
            ));
        }
        if ms < prev.ms {
            return Err(at(
                line,
                format!(
                    "{} ms at level {level} is below {} ms at level {} (line {prev_line}): times \
                     must rise with the level",
                    readable(ms),
                    readable(prev.ms),
                    prev.level
                ),
            ));
        }
        if level == prev.level {
            return Ok(());
        }
    }
    points.push((line, CdfPoint { level, ms }));
    Ok(())
}

fn readable(x: f64) -> String {
    crate::error::readable((x * 1e6).round() / 1e6)
}

/// One `…_bucket{…} count` line: the metric, the other labels, `le` and the count.
fn bucket_line(line: &str) -> Option<(&str, String, &str, &str)> {
    let open = line.find("_bucket{")?;
    let metric = &line[..open];
    let rest = &line[open + "_bucket{".len()..];
    let close = rest.rfind('}')?;
    let labels = &rest[..close];
    let mut after = rest[close + 1..].split_whitespace();
    let count = after.next()?;
    let mut le = None;
    let mut others = Vec::new();
    for label in split_labels(labels) {
        let (k, v) = label.split_once('=')?;
        let v = v.trim().trim_matches('"');
        if k.trim() == "le" {
            le = Some(v);
        } else {
            others.push(format!("{}={v}", k.trim()));
        }
    }
    Some((metric.trim(), others.join(","), le?, count))
}

/// Label pairs split at commas outside quotes.
fn split_labels(labels: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in labels.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                out.push(&labels[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&labels[start..]);
    out.into_iter().filter(|l| !l.trim().is_empty()).collect()
}

/// One Prometheus series: its metric, its labels other than `le`, and its buckets in order,
/// each `(line, le, cumulative count)`.
type Series = (String, String, Vec<(usize, f64, f64)>);

fn prometheus_format(lines: Lines, unit: Option<TimeUnit>) -> Result<LatencyInput, InputError> {
    let unit = unit.unwrap_or(TimeUnit::S);
    let scale = unit.in_ms();
    // Series (metric, labels) → their buckets in order, each (line, le, count); `index` finds a
    // line's series in O(log series) (a search of every series per line was quadratic: 177 s
    // for 100,000 series). An ordered map, not a hash: its cost does not depend on keys a file
    // could choose to collide.
    let mut series: Vec<Series> = Vec::new();
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (n, line) in lines.iter() {
        let t = line.trim();
        if t.starts_with('#') || !t.contains("_bucket{") {
            continue;
        }
        let (metric, labels, le, count) = bucket_line(t).ok_or_else(|| {
            at(
                n,
                format!(
                    "{} is not a bucket line: expected name_bucket{{le=\"0.1\"}} count",
                    shown(t)
                ),
            )
        })?;
        let le_value = match le {
            "+Inf" | "Inf" | "inf" => f64::INFINITY,
            _ => le
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| {
                    at(
                        n,
                        format!(
                            "le={} is not a bucket bound (a number ≥ 0 or +Inf)",
                            shown(le)
                        ),
                    )
                })?,
        };
        let count_value: f64 = count
            .parse()
            .ok()
            .filter(|c: &f64| c.is_finite() && *c >= 0.0)
            .ok_or_else(|| at(n, format!("the count {} is not a number ≥ 0", shown(count))))?;
        match index.entry((metric.to_string(), labels)) {
            Entry::Occupied(e) => series[*e.get()].2.push((n, le_value, count_value)),
            Entry::Vacant(e) => {
                let (metric, labels) = e.key().clone();
                e.insert(series.len());
                series.push((metric, labels, vec![(n, le_value, count_value)]));
            }
        }
    }
    let mut metrics: Vec<&str> = series.iter().map(|(m, _, _)| m.as_str()).collect();
    metrics.dedup();
    metrics.sort_unstable();
    metrics.dedup();
    if metrics.len() > 1 {
        return Err(at(
            0,
            format!(
                "the text holds histograms of {} metrics ({}); paste the buckets of one",
                metrics.len(),
                listed(&metrics.iter().map(|m| m.to_string()).collect::<Vec<_>>())
            ),
        ));
    }
    let Some(first_series) = series.first() else {
        return Err(at(
            0,
            "no bucket lines (name_bucket{le=\"…\"} count) in the text",
        ));
    };
    let bounds: Vec<f64> = first_series.2.iter().map(|&(_, le, _)| le).collect();
    for (_, labels, buckets) in &series {
        let mut prev: Option<(usize, f64, f64)> = None;
        for &(n, le, count) in buckets {
            if let Some((pn, ple, pc)) = prev {
                if le <= ple {
                    return Err(at(
                        n,
                        format!("le=\"{le}\" does not rise after le=\"{ple}\" on line {pn}"),
                    ));
                }
                if count < pc {
                    return Err(at(
                        n,
                        format!(
                            "the bucket le=\"{le}\" counts {count}, fewer than le=\"{ple}\" on \
                             line {pn} ({pc}): Prometheus buckets are cumulative, each counting \
                             everything at or below its bound"
                        ),
                    ));
                }
            }
            prev = Some((n, le, count));
        }
        let these: Vec<f64> = buckets.iter().map(|&(_, le, _)| le).collect();
        if these != bounds {
            return Err(at(
                buckets[0].0,
                format!(
                    "the series {} has other bucket bounds than the first series; paste \
                     series with the same buckets",
                    shown(&format!("{{{labels}}}"))
                ),
            ));
        }
        if *these.last().expect("a series has a bucket") != f64::INFINITY {
            return Err(at(
                buckets[buckets.len() - 1].0,
                "the series has no le=\"+Inf\" bucket, so its total count is unknown",
            ));
        }
    }
    // `sum by (le)`.
    let total_of = |i: usize| series.iter().map(|(_, _, b)| b[i].2).sum::<f64>();
    let last = bounds.len() - 1;
    let total = total_of(last);
    if total <= 0.0 {
        return Err(at(
            0,
            "every bucket counts 0: the histogram has no observations",
        ));
    }
    let mut points: Vec<(usize, CdfPoint)> = Vec::new();
    for (i, &le) in bounds[..last].iter().enumerate() {
        let line = first_series.2[i].0;
        let level = total_of(i) / total;
        if le == 0.0 {
            if level > 0.0 {
                return Err(at(
                    line,
                    "the bucket le=\"0\" counts observations at or below 0: latencies must be \
                     positive",
                ));
            }
            continue;
        }
        // A bucket below all observations bounds the distribution from below: only the last
        // such bucket matters; a level already reached again adds nothing.
        if level == 0.0 {
            points.clear();
        }
        if points.last().is_some_and(|(_, p)| p.level == level) {
            continue;
        }
        push_point(&mut points, line, level, le * scale)?;
    }
    Ok(LatencyInput {
        format: Format::Prometheus,
        unit,
        values: Values::Points(points),
        columns: Vec::new(),
        column: None,
        column_count: 0,
        column_guessed: false,
        skipped_lines: lines.len() - series.iter().map(|(_, _, b)| b.len()).sum::<usize>(),
        series: series.len(),
    })
}

/// The percentile items of a line (`p50 4ms, p99: 30`, `99.000%  1.98ms`, `max 120`): each its
/// level (0..=1) and value with its unit; `None` when the line is not percentiles.
#[allow(clippy::type_complexity)]
fn percentile_items(line: &str) -> Option<Vec<(f64, f64, Option<TimeUnit>, String)>> {
    let mut items = Vec::new();
    for part in line
        .split([',', ';'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        // The label is cut from the line itself and lowercased on its own: lowercasing can
        // change a character's length in bytes (Ⱥ is two, ⱥ three), so an index found in the
        // lowercased line may not be one in the line.
        let (label, rest) = match part.find(|c: char| c.is_whitespace() || c == ':' || c == '=') {
            Some(i) => (part[..i].to_lowercase(), &part[i..]),
            None => return None,
        };
        let label = label.as_str();
        // "99.9" per cent is read as the decimal 99.9e-2, so p99.9 is exactly the f64 0.999.
        let percent = |p: &str| {
            (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
                .then(|| format!("{p}e-2").parse::<f64>().ok())
                .flatten()
        };
        let level = if let Some(p) = label.strip_prefix('p') {
            percent(p)?
        } else if let Some(p) = label.strip_suffix('%') {
            percent(p)?
        } else if label == "max" {
            1.0
        } else if label == "min" {
            0.0
        } else if label == "median" {
            0.5
        } else {
            return None;
        };
        if !(0.0..=1.0).contains(&level) {
            return None;
        }
        let rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ':' || c == '=');
        let (value, unit) = number_and_unit(rest)?;
        items.push((level, value, unit, part.to_string()));
    }
    Some(items)
}

fn percentiles_format(lines: Lines, unit: Option<TimeUnit>) -> Result<LatencyInput, InputError> {
    // wrk's report: read only its "Latency Distribution" block.
    let block = lines
        .iter()
        .position(|(_, l)| l.trim() == "Latency Distribution");
    let (skip, lenient) = match block {
        Some(i) => (i + 1, true),
        None => (0, false),
    };
    let default_unit = unit.unwrap_or(TimeUnit::Ms);
    let mut items: Vec<(usize, f64, f64)> = Vec::new();
    let mut read = 0;
    for (n, line) in lines.iter().skip(skip) {
        if is_skippable(line) {
            if lenient && read > 0 {
                break;
            }
            continue;
        }
        match percentile_items(line) {
            Some(found) if !found.is_empty() => {
                for (level, value, u, text) in found {
                    let value = checked_latency(n, value, &text)?;
                    items.push((n, level, value * u.unwrap_or(default_unit).in_ms()));
                }
                read += 1;
            }
            _ if lenient && read > 0 => break,
            _ => {
                return Err(at(
                    n,
                    format!(
                        "{} is not a percentile: expected items such as p50 4ms, p99.9: 120, \
                         99% 30 ms",
                        shown(line)
                    ),
                ));
            }
        }
    }
    let mut points: Vec<(usize, CdfPoint)> = Vec::new();
    // A level given twice: sorted by level (a stable sort keeps each level's items in the
    // text's order), the first repeat in the text's order is refused, naming the first line
    // that gave its level. O(n log n), where comparing every pair was quadratic.
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| items[a].1.total_cmp(&items[b].1));
    let repeat = order
        .windows(2)
        .filter(|w| items[w[0]].1 == items[w[1]].1)
        .map(|w| w[1])
        .min();
    if let Some(second) = repeat {
        let level = items[second].1;
        let first = order
            .iter()
            .copied()
            .find(|&i| items[i].1 == level)
            .expect("the repeated level is among the items");
        return Err(at(
            items[second].0,
            format!(
                "the level {} is given twice (also on line {})",
                level * 100.0,
                items[first].0
            ),
        ));
    }
    items.sort_by(|a, b| a.1.total_cmp(&b.1));
    for (n, level, ms) in items {
        push_point(&mut points, n, level, ms)?;
    }
    Ok(LatencyInput {
        format: Format::Percentiles,
        unit: default_unit,
        values: Values::Points(points),
        columns: Vec::new(),
        column: None,
        column_count: 0,
        column_guessed: false,
        skipped_lines: lines.len() - read,
        series: 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<LatencyInput, InputError> {
        parse(text.as_bytes(), &ParseOptions::default())
    }

    fn samples(text: &str) -> Vec<f64> {
        match read(text).unwrap().values {
            Values::Samples(s) => s,
            other => panic!("{other:?}"),
        }
    }

    fn points(text: &str) -> Vec<(f64, f64)> {
        match read(text).unwrap().values {
            Values::Points(p) => p.into_iter().map(|(_, p)| (p.level, p.ms)).collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn lines_with_and_without_units() {
        assert_eq!(
            samples("1\n2.5\n\n# a comment\n3e1\r\n"),
            vec![1.0, 2.5, 30.0]
        );
        assert_eq!(samples("1.5s\n2s"), vec![1500.0, 2000.0]);
        assert_eq!(samples("250us\n500 µs"), vec![0.25, 0.5]);
        let e = read("12ms\n0.5s\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("mixed units"), "{e}");
        let e = read("12\n13ms\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
    }

    #[test]
    fn bad_lines_are_named() {
        let e = read("1\n2\nhello\n").unwrap_err();
        assert_eq!(
            (e.line, e.message.contains("“hello” is not a latency")),
            (3, true),
            "{e}"
        );
        let e = read("1\n-3\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("not above 0"), "{e}");
        let e = read("1\n0\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = read("4\nNaN\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = read("4\ninf\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = read("  \n\n# nothing\n").unwrap_err();
        assert_eq!(e.line, 0);
        assert!(e.message.contains("empty"), "{e}");
        let e = read("1 2 3\n").unwrap_err();
        assert!(e.message.contains("one latency per line"), "{e}");
    }

    #[test]
    fn csv_column_by_header_name_and_its_unit() {
        let text = "timestamp,endpoint,latency_ms\n1700000000,/a,12.5\n1700000001,\"/b, c\",7\n";
        let r = read(text).unwrap();
        assert_eq!(r.format, Format::Csv);
        assert_eq!(r.column, Some(2));
        assert_eq!(r.columns, vec!["timestamp", "endpoint", "latency_ms"]);
        assert_eq!(r.values, Values::Samples(vec![12.5, 7.0]));
        let secs = read("id;duration (s)\n1;0.25\n2;0.5\n").unwrap();
        assert_eq!(secs.unit, TimeUnit::S);
        assert_eq!(secs.values, Values::Samples(vec![250.0, 500.0]));
        // Chosen by number, in a table without a header.
        let by_number = parse(
            b"5,100\n6,200\n",
            &ParseOptions {
                column: Some(Column::Number(2)),
                unit: Some(TimeUnit::Us),
                ..ParseOptions::default()
            },
        )
        .unwrap();
        assert_eq!(by_number.values, Values::Samples(vec![0.1, 0.2]));
        // No header names the latency: the last column holding numbers, said so.
        let guessed = read("id,a,b\n1,2,3\n4,5,6\n").unwrap();
        assert_eq!((guessed.column, guessed.column_guessed), (Some(2), true));
        assert_eq!(guessed.values, Values::Samples(vec![3.0, 6.0]));
        let text_last = read("x,y,label\n1,2,fast\n").unwrap();
        assert_eq!(text_last.column, Some(1));
        let e = read("a,b\nx,y\n").unwrap_err();
        assert!(e.message.contains("holds numbers"), "{e}");
        let e = read("x,latency\n1,2\n3\n").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
    }

    #[test]
    fn an_hdrhistogram_spectrum_as_wrk2_prints_it() {
        let text = "\
  Latency Distribution (HdrHistogram - Recorded Latency)
 50.000%    1.98ms
 99.000%    5.02ms

  Detailed Percentile spectrum:
       Value   Percentile   TotalCount 1/(1-Percentile)

       0.921     0.000000            1         1.00
       1.980     0.500000         2999         2.00
       5.023     0.990000         5940       100.00
      14.031     1.000000         5999          inf
#[Mean    =        2.011, StdDeviation   =        1.011]
#[Max     =       14.031, Total count    =         5999]
#[Buckets =           27, SubBuckets     =         2048]
----------------------------------------------------------
  6000 requests in 1.00m, 1.00MB read
Requests/sec:    100.00
";
        let r = read(text).unwrap();
        assert_eq!(r.format, Format::HdrHistogram);
        assert_eq!(
            points(text),
            vec![(0.0, 0.921), (0.5, 1.98), (0.99, 5.023), (1.0, 14.031)]
        );
        let e = read("Value Percentile TotalCount 1/(1-Percentile)\n1.0 0.5 3 2\n0.5 0.9 4 10\n")
            .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("must rise"), "{e}");
    }

    #[test]
    fn a_prometheus_exposition() {
        let text = r#"# HELP http_request_duration_seconds A histogram of request latencies.
# TYPE http_request_duration_seconds histogram
http_request_duration_seconds_bucket{handler="/",le="0.005"} 0
http_request_duration_seconds_bucket{handler="/",le="0.01"} 40
http_request_duration_seconds_bucket{handler="/",le="0.025"} 90
http_request_duration_seconds_bucket{handler="/",le="0.1"} 99
http_request_duration_seconds_bucket{handler="/",le="+Inf"} 100
http_request_duration_seconds_sum{handler="/"} 1.2
http_request_duration_seconds_count{handler="/"} 100
"#;
        let r = read(text).unwrap();
        assert_eq!(r.format, Format::Prometheus);
        assert_eq!(r.unit, TimeUnit::S);
        assert_eq!(
            points(text),
            vec![(0.0, 5.0), (0.4, 10.0), (0.9, 25.0), (0.99, 100.0)]
        );
        let broken = text.replace("le=\"0.025\"} 90", "le=\"0.025\"} 30");
        let e = read(&broken).unwrap_err();
        assert_eq!(e.line, 5);
        assert!(e.message.contains("cumulative"), "{e}");
        // Two series of one metric are summed bucket by bucket.
        let two = format!("{text}{}", text.replace("handler=\"/\"", "handler=\"/b\""));
        assert_eq!(points(&two), points(text));
    }

    #[test]
    fn typed_percentiles_and_wrk_output() {
        assert_eq!(
            points("p50 4ms, p90: 8, p99=30 ms, p99.9 0.12s"),
            vec![(0.5, 4.0), (0.9, 8.0), (0.99, 30.0), (0.999, 120.0)]
        );
        let wrk = "Running 30s test @ http://localhost\n  Thread Stats   Avg      Stdev     Max   +/- Stdev\n    Latency     2.01ms  1.01ms  14.03ms   70.00%\n  Latency Distribution\n     50%    1.98ms\n     75%    2.62ms\n     90%    3.32ms\n     99%    1.02s\n  6000 requests in 30.00s\n";
        assert_eq!(
            points(wrk),
            vec![(0.5, 1.98), (0.75, 2.62), (0.9, 3.32), (0.99, 1020.0)]
        );
        let e = read("p50 10\np99 5\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = read("p50 10\np50 12\n").unwrap_err();
        assert!(e.message.contains("twice"), "{e}");
    }

    #[test]
    fn the_fast_decimal_path_reads_exactly_what_str_parse_reads() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            state = crate::sampling::address::mix64(state);
            let digits = 1 + (state % 15) as usize;
            let point = (state >> 8) as usize % (digits + 1);
            let number: String = (0..digits)
                .map(|i| char::from(b'0' + ((state >> (16 + 3 * (i % 15))) % 10) as u8))
                .collect();
            let text = if point == digits {
                number
            } else {
                format!("{}.{}", &number[..point], &number[point..])
            };
            let want: f64 = text.parse().unwrap();
            assert_eq!(
                plain_decimal(&text).map(f64::to_bits),
                Some(want.to_bits()),
                "{text}"
            );
        }
        for other in ["", ".", "1e5", "-1", "1.2.3", "1234567890123456", " 1"] {
            assert_eq!(plain_decimal(other), None, "{other:?}");
        }
    }

    /// Issue 32 item 14: RFC 4180 quoting. A quoted cell may hold a line break (and doubled
    /// quotes); the record then spans lines, and errors name the line it starts on.
    #[test]
    fn csv_cells_may_hold_line_breaks() {
        let text = "id,note,latency_ms\n1,\"multi\nline\",5\n2,\"say \"\"hi\"\"\n# not a comment\",7\n3,plain,9\n";
        let r = read(text).unwrap();
        assert_eq!(r.values, Values::Samples(vec![5.0, 7.0, 9.0]));
        assert_eq!(
            (r.column, r.skipped_lines),
            (Some(2), 1),
            "the header is skipped"
        );
        let e = read("id,latency\n1,\"open\n2,3\n4,5\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.message.contains("never closed"), "{e}");
        let e = read("id,latency\n1,\"two\nlines\"\n").unwrap_err();
        assert_eq!(e.line, 2, "the row starts on line 2: {e}");
        assert!(e.message.starts_with("column 2: “two↵lines”"), "{e}");
        // A quote inside an unquoted cell is a literal character: it opens nothing, so no row
        // is merged into another (an inch mark in a description, say).
        let r =
            read("id,latency_ms,desc\n1,5,6\" pipe\n2,3,x\n3,4,y\n4,8,2\" pipe\n5,9,z\n").unwrap();
        assert_eq!(r.values, Values::Samples(vec![5.0, 3.0, 4.0, 8.0, 9.0]));
        let e = read("id,desc,latency_ms\n1,6\" pipe,5\n2,x,3\n3,y,4\n4,2\" pipe,8\n5,z,9\n");
        assert_eq!(
            e.unwrap().values,
            Values::Samples(vec![5.0, 3.0, 4.0, 8.0, 9.0])
        );
        assert_eq!(cells(" \"a, b\" ,x\"y,\"\"", ','), vec!["a, b", "x\"y", ""]);
    }

    /// Issue 32 items 1 and 10: 25,000 series of one metric are summed bucket by bucket (each
    /// line finds its series by a hash, not a search), and no message quotes a long name whole.
    #[test]
    fn many_prometheus_series_and_bounded_messages() {
        let mut text = String::new();
        for pod in 0..25_000 {
            for (le, count) in [("0.01", 1), ("0.1", 3), ("+Inf", 4)] {
                text.push_str(&format!(
                    "rpc_seconds_bucket{{pod=\"p{pod}\",le=\"{le}\"}} {count}\n"
                ));
            }
        }
        let r = read(&text).unwrap();
        assert_eq!(r.series, 25_000);
        assert_eq!(points(&text), vec![(0.25, 10.0), (0.75, 100.0)]);
        let long = "x".repeat(100_000);
        let e = read(&format!(
            "a{long}_bucket{{le=\"1\"}} 1\nb_bucket{{le=\"1\"}} 1\n"
        ))
        .unwrap_err();
        assert!(e.message.len() < 400, "{} characters", e.message.len());
        let e = parse(
            b"id,latency\n1,2\n",
            &ParseOptions {
                column: Some(Column::Named(long.clone())),
                ..ParseOptions::default()
            },
        )
        .unwrap_err();
        assert!(e.message.len() < 400, "{} characters", e.message.len());
        let columns: String = (0..150_000).map(|i| format!("c{i},")).collect();
        let e = parse(
            format!("{columns}latency\n").as_bytes(),
            &ParseOptions {
                column: Some(Column::Named("missing".into())),
                ..ParseOptions::default()
            },
        )
        .unwrap_err();
        assert!(e.message.contains("and 149991 more"), "{e}");
        assert!(e.message.len() < 600, "{} characters", e.message.len());
    }

    /// A level given twice is refused at its second line, naming its first, among many.
    #[test]
    fn a_repeated_level_names_both_lines() {
        let mut text: String = (1..=5000)
            .map(|i| format!("p{} {i}\n", f64::from(i) / 100.0))
            .collect();
        text.push_str("p12.34 99999\n");
        let e = read(&text).unwrap_err();
        assert_eq!(e.line, 5001, "{e}");
        assert!(e.message.contains("also on line 1234"), "{e}");
    }

    #[test]
    fn a_label_whose_lowercase_is_longer_is_refused_not_a_panic() {
        // Ⱥ is two bytes and ⱥ three: the fuzz test found "ȺȺ:" cut the line at an index of
        // its lowercased copy, past its end.
        for text in ["ȺȺ:", "ȺȺ: 5ms", "İİİ 4", "pȺ 3"] {
            let e = read(text).expect_err(text);
            assert_eq!(e.line, 1, "{text}: {e}");
        }
    }

    #[test]
    fn too_many_lines_are_refused_by_count() {
        let text = "1\n".repeat(MAX_LINES + 1);
        let e = read(&text).unwrap_err();
        assert_eq!(e.line, 0);
        assert!(e.message.contains("10000000"), "{e}");
    }
}
