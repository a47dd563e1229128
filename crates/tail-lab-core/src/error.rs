//! Typed parameter errors shared by every validating constructor in the core.
//!
//! Each error names the argument, what was given and the valid range, so a binding can
//! turn it into a message a reader can act on (`RangeError` in JS, a non-zero exit in the CLI).

use std::fmt;

/// A rejected parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamError {
    /// A number outside its valid range (this includes NaN and ±∞).
    OutOfRange {
        /// The argument's name as the caller spells it (e.g. `"fanout"`).
        param: &'static str,
        /// What was passed.
        got: f64,
        /// The valid range in words, e.g. `"an integer in 1..=1024"`.
        expected: &'static str,
    },
    /// A name that is not one of the known choices (profile, mitigation, policy).
    UnknownName {
        /// The argument's name.
        param: &'static str,
        /// What was passed.
        got: String,
        /// The known names, comma separated.
        expected: &'static str,
    },
    /// A value none of an argument's forms accepts (a run length that is neither a whole
    /// number in range nor one of its names).
    NotAccepted {
        /// The argument's name.
        param: &'static str,
        /// What was passed, as a reader should see it (`"5.5"`, `"\"often\""`).
        got: String,
        /// Every form accepted, in words.
        expected: String,
    },
    /// Two arguments that name the same setting, given and disagreeing (a policy name and the
    /// number it stands for).
    Conflict {
        /// The argument the sentence starts with.
        param: &'static str,
        /// The rest of the sentence: what each says, and what to do.
        reason: String,
    },
    /// Arguments of the wrong shape, whatever their values: one missing that another needs,
    /// two that go together given apart (a binding's `TypeError`, where the others are
    /// `RangeError`s).
    Shape {
        /// The argument the message is about.
        param: &'static str,
        /// The whole message.
        message: String,
    },
    /// An error about a field of a record inside an argument (`stages[2].k`).
    Within {
        /// Where the record is, as the caller writes it, ending in `.` (`"stages[2]."`): written
        /// before the inner error's message.
        path: String,
        /// The error about the field.
        error: Box<ParamError>,
    },
}

impl ParamError {
    /// The name of the rejected argument (for an error [`ParamError::Within`] a record, the
    /// field's).
    pub fn param(&self) -> &'static str {
        match self {
            ParamError::OutOfRange { param, .. }
            | ParamError::UnknownName { param, .. }
            | ParamError::NotAccepted { param, .. }
            | ParamError::Conflict { param, .. }
            | ParamError::Shape { param, .. } => param,
            ParamError::Within { error, .. } => error.param(),
        }
    }

    /// The same error about a field of the record at `path` (`"stages[2]."`); no change for an
    /// empty path.
    pub fn within(self, path: impl Into<String>) -> ParamError {
        let path = path.into();
        if path.is_empty() {
            return self;
        }
        match self {
            // Nested records: the outer path first.
            ParamError::Within { path: inner, error } => ParamError::Within {
                path: path + &inner,
                error,
            },
            error => ParamError::Within {
                path,
                error: Box::new(error),
            },
        }
    }

    /// The same error, its argument named as the caller writes it: `names` maps the core's
    /// names (`median_ms`) to the caller's (`medianMs`); a name not in it is kept.
    pub fn renamed(self, names: &[(&str, &'static str)]) -> ParamError {
        let as_written = |param: &'static str| {
            names
                .iter()
                .find(|(from, _)| *from == param)
                .map_or(param, |(_, to)| to)
        };
        match self {
            ParamError::OutOfRange {
                param,
                got,
                expected,
            } => ParamError::OutOfRange {
                param: as_written(param),
                got,
                expected,
            },
            ParamError::UnknownName {
                param,
                got,
                expected,
            } => ParamError::UnknownName {
                param: as_written(param),
                got,
                expected,
            },
            ParamError::NotAccepted {
                param,
                got,
                expected,
            } => ParamError::NotAccepted {
                param: as_written(param),
                got,
                expected,
            },
            ParamError::Conflict { param, reason } => ParamError::Conflict {
                param: as_written(param),
                reason,
            },
            // Their messages are whole sentences, or say their path already.
            other @ (ParamError::Shape { .. } | ParamError::Within { .. }) => other,
        }
    }

    /// True for arguments of the wrong shape ([`ParamError::Shape`], in a record or not).
    pub fn is_shape(&self) -> bool {
        match self {
            ParamError::Shape { .. } => true,
            ParamError::Within { error, .. } => error.is_shape(),
            _ => false,
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::OutOfRange {
                param,
                got,
                expected,
            } => write!(f, "{param} must be {expected} (got {})", readable(*got)),
            ParamError::UnknownName {
                param,
                got,
                expected,
            } => write!(f, "{param} must be one of {expected} (got {})", echoed(got)),
            ParamError::NotAccepted {
                param,
                got,
                expected,
            } => write!(f, "{param} must be {expected} (got {got})"),
            ParamError::Conflict { param, reason } => write!(f, "{param} {reason}"),
            ParamError::Shape { message, .. } => f.write_str(message),
            ParamError::Within { path, error } => write!(f, "{path}{error}"),
        }
    }
}

impl std::error::Error for ParamError {}

/// A number as a reader should see it in a message: `∞`, `-∞`, `NaN`, `1e300` rather than 301
/// digits, `1.5e-7` rather than `0.00000015`, and plain digits in between.
pub fn readable(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "∞" } else { "-∞" }.into()
    } else if x != 0.0 && (x.abs() >= 1e15 || x.abs() < 1e-4) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The characters of a caller's text a message echoes: enough to recognise it, never a whole
/// 10,000-character string.
pub const ECHOED_CHARS: usize = 40;

/// A caller's text as a message quotes it: in double quotes with Rust's escapes, cut to
/// [`ECHOED_CHARS`] characters (whole characters, never half of one) and marked `…` when cut.
pub fn echoed(text: &str) -> String {
    let cut: String = text.chars().take(ECHOED_CHARS).collect();
    if text.chars().nth(ECHOED_CHARS).is_some() {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

/// `value` when it is finite and `inside`, else the error naming `param` and `expected`.
fn accept(
    param: &'static str,
    value: f64,
    inside: bool,
    expected: &'static str,
) -> Result<f64, ParamError> {
    if value.is_finite() && inside {
        Ok(value)
    } else {
        Err(ParamError::OutOfRange {
            param,
            got: value,
            expected,
        })
    }
}

/// Checks that `value` is finite and inside `[lo, hi]`.
pub(crate) fn check_range(
    param: &'static str,
    value: f64,
    lo: f64,
    hi: f64,
    expected: &'static str,
) -> Result<f64, ParamError> {
    accept(param, value, lo <= value && value <= hi, expected)
}

/// Checks that `value` is finite and strictly inside `(lo, hi)`.
pub(crate) fn check_open(
    param: &'static str,
    value: f64,
    lo: f64,
    hi: f64,
    expected: &'static str,
) -> Result<f64, ParamError> {
    accept(param, value, lo < value && value < hi, expected)
}

/// Which ends of a [`NumberRange`] belong to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ends {
    /// `lo..=hi`: both ends in.
    Closed,
    /// `(lo, hi)`: both ends out.
    Open,
    /// `(lo, hi]`: above `lo`, at most `hi`.
    AboveLow,
    /// `[lo, hi)`: at least `lo`, below `hi`.
    BelowHigh,
    /// `lo..=hi`, or `+∞` (a delay that never ends).
    ClosedOrInfinity,
    /// `(lo, hi]`, or `+∞`.
    AboveLowOrInfinity,
}

/// A range of finite numbers and the words an error states it in, written once: the core
/// checks with it, and a binding's option reader checks with the same bounds and words.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberRange {
    /// The low end.
    pub lo: f64,
    /// The high end (`f64::INFINITY` for none: the value must still be finite).
    pub hi: f64,
    /// Which ends are in.
    pub ends: Ends,
    /// The range in words, e.g. `"a per-server utilisation in 0.01..=0.99"`.
    pub expected: &'static str,
}

impl NumberRange {
    /// The range `lo`..`hi` with `ends`, stated as `expected` in errors.
    pub const fn new(lo: f64, hi: f64, ends: Ends, expected: &'static str) -> Self {
        NumberRange {
            lo,
            hi,
            ends,
            expected,
        }
    }

    /// `value` when it is finite and in range; otherwise the error naming `param`.
    pub fn check(&self, param: &'static str, value: f64) -> Result<f64, ParamError> {
        let inside = match self.ends {
            Ends::Closed => self.lo <= value && value <= self.hi,
            Ends::Open => self.lo < value && value < self.hi,
            Ends::AboveLow => self.lo < value && value <= self.hi,
            Ends::BelowHigh => self.lo <= value && value < self.hi,
            Ends::ClosedOrInfinity | Ends::AboveLowOrInfinity if value == f64::INFINITY => {
                return Ok(value);
            }
            Ends::ClosedOrInfinity => self.lo <= value && value <= self.hi,
            Ends::AboveLowOrInfinity => self.lo < value && value <= self.hi,
        };
        accept(param, value, inside, self.expected)
    }
}

/// A probability: `0..=1`.
pub const PROBABILITY: NumberRange =
    NumberRange::new(0.0, 1.0, Ends::Closed, "a probability in 0..=1");

/// A quantile level strictly inside `(0, 1)`.
pub const LEVEL: NumberRange = NumberRange::new(0.0, 1.0, Ends::Open, "a quantile level in (0, 1)");

/// Checks a quantile level: finite and strictly inside `(0, 1)`.
pub(crate) fn check_level(param: &'static str, q: f64) -> Result<f64, ParamError> {
    LEVEL.check(param, q)
}

/// An inclusive range of integers and the words an error states it in, written once: the
/// core checks with it, and a binding reads the same bounds and words (build one with
/// [`count_range!`](crate::count_range), which writes the words from the bounds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountRange {
    /// The least value allowed.
    pub lo: u64,
    /// The greatest value allowed.
    pub hi: u64,
    /// The range in words, e.g. `"an integer in 1..=1024"`.
    pub expected: &'static str,
}

impl CountRange {
    /// True when `value` is in `lo..=hi`.
    pub const fn contains(&self, value: u64) -> bool {
        value >= self.lo && value <= self.hi
    }

    /// `value` when it is in range; otherwise the error naming `param`, the value and the range.
    pub fn check(&self, param: &'static str, value: u64) -> Result<u64, ParamError> {
        check_count(param, value, self.lo, self.hi, self.expected)
    }

    /// `value` (a number that should be a whole number in range, as a JS number is) as an
    /// integer, or the same error as [`CountRange::check`], with the value as given.
    pub fn check_number(&self, param: &'static str, value: f64) -> Result<u64, ParamError> {
        if value.is_finite()
            && value.fract() == 0.0
            && value >= self.lo as f64
            && value <= self.hi as f64
        {
            Ok(value as u64)
        } else {
            Err(ParamError::OutOfRange {
                param,
                got: value,
                expected: self.expected,
            })
        }
    }
}

/// A [`CountRange`] from integer literals, its words written from them:
/// `count_range!(1, 1024)` is `1..=1024`, "an integer in 1..=1024"; a third literal is added
/// to the words (`count_range!(2, 1000, " (hedging needs a second replica)")`).
#[macro_export]
macro_rules! count_range {
    ($lo:literal, $hi:literal) => {
        $crate::count_range!($lo, $hi, "")
    };
    ($lo:literal, $hi:literal, $note:literal) => {
        $crate::error::CountRange {
            lo: $lo,
            hi: $hi,
            expected: concat!("an integer in ", $lo, "..=", $hi, $note),
        }
    };
}

/// Checks a quantile level that may be an end: finite and inside `0..=1`.
pub fn check_quantile_level(param: &'static str, q: f64) -> Result<f64, ParamError> {
    check_range(param, q, 0.0, 1.0, "a quantile level in 0..=1")
}

/// Checks that an integer lies in `lo..=hi`.
pub(crate) fn check_count(
    param: &'static str,
    value: u64,
    lo: u64,
    hi: u64,
    expected: &'static str,
) -> Result<u64, ParamError> {
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(ParamError::OutOfRange {
            param,
            got: value as f64,
            expected,
        })
    }
}

/// Checks a request count: an integer in `1..=10^9`.
pub(crate) fn check_requests(requests: u64) -> Result<u64, ParamError> {
    check_count(
        "requests",
        requests,
        1,
        1_000_000_000,
        "an integer in 1..=1e9",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_argument_and_the_range() {
        let e = check_range("load", f64::NAN, 0.0, 1.0, "a number in 0..=1").unwrap_err();
        assert_eq!(e.to_string(), "load must be a number in 0..=1 (got NaN)");
        assert_eq!(e.param(), "load");
        let e = check_count("fanout", 0, 1, 1024, "an integer in 1..=1024").unwrap_err();
        assert_eq!(
            e.to_string(),
            "fanout must be an integer in 1..=1024 (got 0)"
        );
        assert!(check_open("p", 0.0, 0.0, 1.0, "in (0, 1)").is_err());
        let e = check_range("load", f64::INFINITY, 0.0, 1.0, "a number in 0..=1").unwrap_err();
        assert_eq!(e.to_string(), "load must be a number in 0..=1 (got ∞)");
        assert_eq!(readable(1e300), "1e300");
        assert_eq!(readable(-2.5e-7), "-2.5e-7");
        assert_eq!(readable(0.25), "0.25");
        assert_eq!(readable(26843546.0), "26843546");
        assert!(check_open("p", 0.5, 0.0, 1.0, "in (0, 1)").is_ok());
        let half_open = NumberRange::new(0.0, 5.0, Ends::AboveLow, "in (0, 5]");
        assert!(half_open.check("s", 5.0).is_ok());
        assert!(half_open.check("s", 0.0).is_err());
        assert!(half_open.check("s", 5.000_000_1).is_err());
        let below = NumberRange::new(0.0, 1.0, Ends::BelowHigh, "in [0, 1)");
        assert!(below.check("s", 0.0).is_ok());
        assert!(below.check("s", 1.0).is_err());
    }

    #[test]
    fn a_count_range_states_its_own_bounds() {
        const R: CountRange = crate::count_range!(2, 1_000, " (two at least)");
        assert_eq!(R.expected, "an integer in 2..=1000 (two at least)");
        assert_eq!(R.check("replicas", 2), Ok(2));
        assert_eq!(
            R.check_number("replicas", 2.5).unwrap_err().to_string(),
            "replicas must be an integer in 2..=1000 (two at least) (got 2.5)"
        );
        assert_eq!(R.check_number("replicas", 1000.0), Ok(1000));
        assert!(R.check_number("replicas", f64::NAN).is_err());
    }

    #[test]
    fn an_error_in_a_record_says_where_and_keeps_its_class() {
        let e = check_count("k", 6, 1, 5, "an integer in 1..=5").unwrap_err();
        let e = e.within("service.").within("stages[2].");
        assert_eq!(
            e.to_string(),
            "stages[2].service.k must be an integer in 1..=5 (got 6)"
        );
        assert_eq!(e.param(), "k");
        assert!(!e.is_shape());
        let missing = ParamError::Shape {
            param: "width",
            message: "width is required".into(),
        };
        assert!(missing.clone().within("stages[0].").is_shape());
        assert_eq!(missing.clone().within(""), missing);
    }
}
