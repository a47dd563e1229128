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
}

impl ParamError {
    /// The name of the rejected argument.
    pub fn param(&self) -> &'static str {
        match self {
            ParamError::OutOfRange { param, .. } | ParamError::UnknownName { param, .. } => param,
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
            } => write!(f, "{param} must be one of {expected} (got {got:?})"),
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

/// Checks that `value` is finite and inside `[lo, hi]`.
pub(crate) fn check_range(
    param: &'static str,
    value: f64,
    lo: f64,
    hi: f64,
    expected: &'static str,
) -> Result<f64, ParamError> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(value)
    } else {
        Err(ParamError::OutOfRange {
            param,
            got: value,
            expected,
        })
    }
}

/// Checks that `value` is finite and strictly inside `(lo, hi)`.
pub(crate) fn check_open(
    param: &'static str,
    value: f64,
    lo: f64,
    hi: f64,
    expected: &'static str,
) -> Result<f64, ParamError> {
    if value.is_finite() && value > lo && value < hi {
        Ok(value)
    } else {
        Err(ParamError::OutOfRange {
            param,
            got: value,
            expected,
        })
    }
}

/// Checks a quantile level: finite and strictly inside `(0, 1)`.
pub(crate) fn check_level(param: &'static str, q: f64) -> Result<f64, ParamError> {
    check_open(param, q, 0.0, 1.0, "a quantile level in (0, 1)")
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
    }
}
