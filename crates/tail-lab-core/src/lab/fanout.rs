//! Fan-out: the share of parent requests that meet at least one slow leaf.
//!
//! Each leaf is slow, independently, with probability `p` (a Bernoulli draw from its addressed
//! stream — in the Lab's service model that is "hit the slow mode"); a parent over `n` leaves is
//! slow when any leaf is. Checked against [`crate::theory::slow_share`], `1 − (1 − p)^n`.

use crate::error::{ParamError, check_range, check_requests};
use crate::sampling::address::{RequestKey, Stream, probability_threshold};
use crate::theory::check_fanout;

/// The random stream of the fan-out experiment's Bernoulli leaves (id 5).
pub const STREAM: Stream = Stream::new(5);

/// The simulated fraction (0..1) of `requests` parents (1..=10^9) over `n` leaves (1..=1024)
/// that meet at least one leaf slow with probability `p` (0..=1), under `seed`.
pub fn simulate_slow_share(p: f64, n: u32, requests: u64, seed: u64) -> Result<f64, ParamError> {
    check_range("p", p, 0.0, 1.0, "a probability in 0..=1")?;
    check_fanout("n", n)?;
    check_requests(requests)?;
    let threshold = probability_threshold(p);
    let slow = (0..requests)
        .filter(|&k| {
            let key = RequestKey::new(seed, STREAM, k);
            (0..n).any(|i| key.sample(i, 0).next_bits() < threshold)
        })
        .count();
    Ok(slow as f64 / requests as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_probabilities_are_exact() {
        assert_eq!(simulate_slow_share(0.0, 100, 1000, 1).unwrap(), 0.0);
        assert_eq!(simulate_slow_share(1.0, 1, 1000, 1).unwrap(), 1.0);
        assert_eq!(simulate_slow_share(0.5, 0, 10, 1).unwrap_err().param(), "n");
        assert_eq!(
            simulate_slow_share(f64::NAN, 3, 10, 1).unwrap_err().param(),
            "p"
        );
    }
}
