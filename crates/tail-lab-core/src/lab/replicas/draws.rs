//! A request's addressed draws in the replica engines that share one layout (`loaded`, `tied`,
//! `budget`): which sub-stream of its [`RequestKey`] each purpose draws from.

use crate::sampling::address::RequestKey;

/// The sub-stream ("leaf") of a copy's service time: attempt `j` is copy `j` (0 the primary).
pub(crate) const SERVICE: u32 = 0;
/// The sub-stream of a request's replica choices.
pub(crate) const CHOICE: u32 = 1;
/// The sub-stream of the gap before a request's arrival.
pub(crate) const GAP: u32 = 2;
/// The attempt of a sub-stream drawn once per request (the gap, the choices).
pub(crate) const ONCE: u32 = 0;

/// The gap (ms) before the arrival of the request keyed `key`, in a Poisson stream of `rate`
/// arrivals per ms: an exponential draw from its [`GAP`] sub-stream.
#[inline]
pub(crate) fn gap_ms(key: RequestKey, rate: f64) -> f64 {
    -libm::log(key.sample(GAP, ONCE).next_open_unit()) / rate
}

/// The replicas of the request keyed `key`'s primary (uniform over `n` ≥ 2) and backup
/// (uniform over the others), from its [`CHOICE`] sub-stream.
#[inline]
pub(crate) fn primary_and_backup(key: RequestKey, n: u32) -> (u32, u32) {
    let mut choice = key.sample(CHOICE, ONCE);
    let primary = super::uniform_below(choice.next_bits(), n);
    (primary, super::elsewhere(primary, choice.next_bits(), n))
}
