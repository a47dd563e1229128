//! Reference numbers of a retries run: the no-retry mean, the load a storm puts on the
//! replicas, and the budget's cap on amplification.
//!
//! **Without retries, spike or hedges** each replica is an M/G/1 queue at utilisation `load`
//! (Poisson thinning of the random dispatch, as in [`crate::lab::loaded::theory`]), so the mean
//! latency of a request is Pollaczek–Khinchine's; with no timeout every request is answered and
//! the run's mean converges to it.
//!
//! **A storm.** Once queueing alone takes longer than the timeout, every attempt times out, so
//! each request sends all `max_attempts`, and the replicas serve every one of them (the
//! abandoned ones too): the work offered is `load × max_attempts` of capacity. When that is at
//! least 1 the queues cannot drain, latency stays past the timeout, and the storm sustains
//! itself after whatever started it has gone: a metastable state beside the calm one, where
//! few attempts time out and the offered work is about `load`.
//!
//! **A budget** of `ratio` per request lets at most `burst + ratio × requests` retries and
//! backups through, so the work offered in a storm is at most `load × (1 + ratio)` of capacity
//! (plus the burst, once), and amplification is at most `1 + ratio + burst / requests`.

use crate::error::ParamError;
use crate::lab::service::ServiceModel;

/// The mean latency (ms) of a run without retries, spike or hedges and no timeout: the M/G/1
/// mean at `load` ([`crate::lab::loaded::theory::no_backup_mean_ms`]); `None` when `load ≥ 1`.
pub fn no_retry_mean_ms(service: &ServiceModel, load: f64) -> Result<Option<f64>, ParamError> {
    crate::lab::loaded::theory::no_backup_mean_ms(service, load)
}

/// The work offered to the replicas, per unit of capacity, when every attempt times out:
/// `load × max_attempts`. A storm sustains itself when it is at least 1.
pub fn storm_load(load: f64, max_attempts: u32) -> f64 {
    load * f64::from(max_attempts)
}

/// The most work a budget of `ratio` lets reach the replicas in a long storm, per unit of
/// capacity: `load × min(1 + ratio, max_attempts)`.
pub fn budget_storm_load(load: f64, ratio: f64, max_attempts: u32) -> f64 {
    load * (1.0 + ratio).min(f64::from(max_attempts))
}

/// The cap a budget puts on amplification over `requests` requests:
/// `1 + ⌊burst + ratio × requests⌋ / requests` (the budget counts in millionths of a token).
pub fn amplification_bound(budget: super::Budget, requests: u64) -> f64 {
    1.0 + budget.max_duplicates(requests) as f64 / requests.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_storm_and_the_budget_does_not() {
        let (load, attempts) = (super::super::DEFAULT_LOAD, 3);
        assert!(storm_load(load, attempts) >= 1.0);
        assert!(budget_storm_load(load, super::super::DEFAULT_BUDGET_RATIO, attempts) < 1.0);
        let b = super::super::Budget::new(0.1, 10.0).unwrap();
        assert_eq!(amplification_bound(b, 1000), 1.11);
    }
}
