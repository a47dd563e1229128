//! What the budget run must satisfy in closed form: the bound on the budgeted hedge fraction,
//! and the mean latency without backups or an outage (each replica an M/G/1 queue).

use super::params::{MAX_TOKENS, TOKEN_RATIO_EXPECTED, ratio_milli};
use crate::error::{ParamError, check_range};
use crate::lab::service::ServiceModel;

/// The most hedges a bucket of `max_tokens` tokens, gaining `ratio_milli` thousandths of a
/// token per request, can allow over `requests` requests:
/// `⌊(ratio_milli · requests + 500 · max_tokens + 999) / 1000⌋`.
///
/// In thousandths, the bucket starts at `M = 1000 · max_tokens`, gains at most `r · N` over
/// `N` requests (less when capped) and loses 1000 per hedge, so after `H` hedges it holds at
/// most `M + r·N − 1000·H`. A hedge is only sent from more than `M/2` (so from `M/2 + 1` at
/// least, `M/2` being whole), so after the last one it holds at least `M/2 + 1 − 1000`, and
/// it never loses anything else. Hence `1000·H ≤ r·N + M/2 + 999`. As a fraction of the
/// requests, the ratio plus the half-bucket allowance `(M/2 + 999) / (1000 N)`.
///
/// ```
/// use tail_lab_core::lab::budget::theory::max_budgeted_hedges;
///
/// // 10 tokens, 0.1 a request, 10,000 requests: 1,000 from the ratio, 5 from the half bucket.
/// assert_eq!(max_budgeted_hedges(10, 100, 10_000), 1_005);
/// ```
pub fn max_budgeted_hedges(max_tokens: u32, ratio_milli: u64, requests: u64) -> u64 {
    (u128::from(ratio_milli) * u128::from(requests) + 500 * u128::from(max_tokens) + 999) as u64
        / 1000
}

/// The requests a hedge bound may count over.
pub const BOUND_REQUESTS: crate::error::CountRange = crate::count_range!(0, 1000000000000);

/// [`max_budgeted_hedges`] for a bucket of `max_tokens` tokens ([`MAX_TOKENS`]) gaining
/// `token_ratio` tokens a request (0.001..=1, kept to thousandths as the run keeps it).
///
/// ```
/// use tail_lab_core::lab::budget::theory::hedge_bound;
///
/// assert_eq!(hedge_bound(10, 0.1, 10_000), Ok(1_005));
/// assert_eq!(hedge_bound(10, 0.0, 10).unwrap_err().param(), "tokenRatio");
/// ```
pub fn hedge_bound(max_tokens: u32, token_ratio: f64, requests: u64) -> Result<u64, ParamError> {
    MAX_TOKENS.check("maxTokens", u64::from(max_tokens))?;
    check_range("tokenRatio", token_ratio, 0.001, 1.0, TOKEN_RATIO_EXPECTED)?;
    Ok(max_budgeted_hedges(
        max_tokens,
        ratio_milli(token_ratio),
        requests,
    ))
}

/// The mean latency (ms) without backups and without an outage at utilisation `load`: each
/// replica an M/G/1 queue, Pollaczek–Khinchine's mean (the loaded model's closed form:
/// [`crate::lab::loaded::theory::no_backup_mean_ms`]); `Ok(None)` at `load` ≥ 1.
pub fn no_backup_mean_ms(service: &ServiceModel, load: f64) -> Result<Option<f64>, ParamError> {
    crate::lab::loaded::theory::no_backup_mean_ms(service, load)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_the_ratio_plus_half_a_bucket() {
        assert_eq!(max_budgeted_hedges(10, 100, 0), 5);
        assert_eq!(max_budgeted_hedges(2, 1000, 7), 8);
        assert_eq!(max_budgeted_hedges(1_000_000, 1, 1_000), 500_001);
    }
}
