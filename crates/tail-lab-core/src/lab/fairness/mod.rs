//! Fairness to a tenant that does not hedge (issue 22, item 5; seed 003's protocol).
//!
//! **The model.** The loaded-replica model ([`crate::lab::loaded`]) shared by two tenants.
//! Each request belongs to tenant A with probability `share_a`, drawn on a sub-stream of its
//! own (so adding tenants moves no other draw: the arrivals, replicas and work are those of
//! the one-tenant run), and only tenant A follows the policy, hedging or duplicating; tenant
//! B never sends a backup. Both tenants' requests queue on the same replicas, so A's backups
//! delay B.
//!
//! **What it shows.** Each tenant's p50, p99, p99.9 and mean (with 95% batch-means
//! intervals), beside the same two tenants at the same load with nobody hedging: the baseline.
//! An improvement for A bought by moving delay onto B is not efficiency (seed 003: a result
//! must respect a fairness budget); the page states A's gain and B's loss with numbers.
//!
//! **Checks.** With nobody hedging the two tenants' latencies are the same distribution (their
//! quantile intervals overlap); with `share_a` = 1 (or 0) the one tenant is the plain loaded
//! run bit for bit.
//!
//! Random streams: the simulation draws from [`STREAM`] (id 22), the no-backup run that sets
//! the hedge delay from [`DELAY_STREAM`] (id 23).

mod call;
mod model;

pub use call::{CALL, SWEEP_OPTIONS, params, sweep_work};
pub use model::MODEL;

use crate::error::{CountRange, Ends, NumberRange, ParamError};
use crate::lab::hedge_idle::Percentiles;
use crate::lab::loaded::{
    Cancellation, DelayBasis, HedgeDelay, LoadedConfig, LoadedParams, LoadedPolicy, LoadedResult,
    LoadedService,
};
use crate::lab::service::ServiceModel;
use crate::sampling::address::Stream;
use crate::sampling::batch::RunIntervals;

/// The random stream of the simulation (id 22).
pub const STREAM: Stream = Stream::new(22);
/// The random stream of the no-backup run whose p95 the hedge waits for (id 23).
pub const DELAY_STREAM: Stream = Stream::new(23);

/// The loads of the standard sweep.
pub const SWEEP_LOADS: [f64; 8] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];

/// Requests one run may simulate (each point makes two).
pub const REQUESTS_PER_RUN: CountRange = crate::count_range!(1000, 1000000);

/// Tenant A's share of the requests.
pub const SHARE: NumberRange = NumberRange::new(0.0, 1.0, Ends::Closed, "a share in 0..=1");

/// What tenant A sends besides its primary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TenantPolicy {
    /// A backup after the p95 of no-backup latency at the same load.
    Hedge,
    /// A backup at once, for every one of A's requests.
    Duplicate,
    /// Nothing: neither tenant sends backups (the baseline as the run itself).
    None,
}

/// The names of the tenant policies.
pub const POLICY_NAMES: [&str; 3] = ["hedge", "duplicate", "none"];

impl TenantPolicy {
    /// The stable machine name.
    pub fn name(&self) -> &'static str {
        match self {
            TenantPolicy::Hedge => "hedge",
            TenantPolicy::Duplicate => "duplicate",
            TenantPolicy::None => "none",
        }
    }

    /// The policy called `name`.
    pub fn from_name(name: &str) -> Result<Self, ParamError> {
        match name {
            "hedge" => Ok(TenantPolicy::Hedge),
            "duplicate" => Ok(TenantPolicy::Duplicate),
            "none" => Ok(TenantPolicy::None),
            other => Err(ParamError::UnknownName {
                param: "policy",
                got: other.to_string(),
                expected: "\"hedge\", \"duplicate\", \"none\"",
            }),
        }
    }

    /// The loaded engine's policy.
    pub fn loaded(self) -> LoadedPolicy {
        match self {
            TenantPolicy::Hedge => LoadedPolicy::Hedge(HedgeDelay::P95(DelayBasis::Loaded)),
            TenantPolicy::Duplicate => LoadedPolicy::Duplicate,
            TenantPolicy::None => LoadedPolicy::None,
        }
    }
}

/// The parameters of one point.
#[derive(Debug, Clone, PartialEq)]
pub struct FairnessParams {
    /// FIFO replicas (2..=1000).
    pub replicas: u32,
    /// Offered utilisation of both tenants together, before backups (0.001..=2).
    pub load: f64,
    /// The share of requests that are tenant A's (0..=1).
    pub share_a: f64,
    /// What tenant A sends.
    pub policy: TenantPolicy,
    /// What happens to the losing copy (the loaded model's default: the backup is cancelled
    /// when the primary answers).
    pub cancellation: Cancellation,
    /// Requests per run ([`REQUESTS_PER_RUN`]).
    pub requests: u64,
    /// The seed.
    pub seed: u64,
    /// The service model.
    pub service: ServiceModel,
}

impl FairnessParams {
    /// The defaults at `load`: 10 replicas, half the requests tenant A's, A duplicates, the
    /// loaded model's cancellation, 40,000 requests (so each tenant measures the 10,000 a p99
    /// interval needs), seed 1, the Lab's service.
    pub fn at_load(load: f64) -> Self {
        FairnessParams {
            replicas: crate::lab::loaded::DEFAULT_REPLICAS,
            load,
            share_a: 0.5,
            policy: TenantPolicy::Duplicate,
            cancellation: Cancellation::Backup,
            requests: 40_000,
            seed: 1,
            service: ServiceModel::default(),
        }
    }

    /// The loaded engine's run of `policy` for tenant A under these parameters.
    pub fn config(&self, policy: TenantPolicy) -> Result<LoadedConfig, ParamError> {
        let mut config = LoadedConfig::new(LoadedParams {
            replicas: self.replicas,
            load: self.load,
            policy: policy.loaded(),
            requests: self.requests,
            seed: self.seed,
        })?
        .with_service(LoadedService::Lab(self.service.clone()))
        .with_cancellation(self.cancellation)
        .with_streams(STREAM, DELAY_STREAM);
        config.tenant_a_share = Some(self.share_a);
        Ok(config)
    }

    /// The point's work in the bindings' units (about 10 ns of wasm each): two runs of 60 a
    /// request, as the loaded model counts them.
    pub fn work_units(&self) -> f64 {
        // Two passes (with A's policy, and with nobody hedging), and a hedge at the loaded p95
        // first calibrates its delay on one more no-backup pass.
        let passes = if self.policy == TenantPolicy::Hedge {
            3.0
        } else {
            2.0
        };
        passes * self.requests as f64 * 60.0
    }
}

/// One tenant's latency in one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tenant {
    /// Its measured requests (after warm-up).
    pub measured: u64,
    /// Its percentiles (ms); `None` when the run is unstable or it has no requests.
    pub latency: Option<Percentiles>,
    /// Its mean latency (ms); `None` likewise.
    pub mean_ms: Option<f64>,
    /// Its 95% batch-means intervals; `None` likewise.
    pub intervals: Option<RunIntervals>,
}

/// One point: both tenants with A following the policy, and both with nobody hedging.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FairnessPoint {
    /// The share of requests that are A's.
    pub share_a: f64,
    /// Requests per run.
    pub requests: u64,
    /// What A sends.
    pub policy: TenantPolicy,
    /// The run with A following the policy (its `latency` is both tenants together).
    pub run: LoadedResult,
    /// The run with nobody hedging, on the same arrivals and work.
    pub baseline: LoadedResult,
    /// Tenant A, then tenant B, with A following the policy.
    pub tenants: [Tenant; 2],
    /// Tenant A, then tenant B, with nobody hedging.
    pub baseline_tenants: [Tenant; 2],
}

fn tenants(config: &LoadedConfig) -> (LoadedResult, [Tenant; 2]) {
    let (run, tenants) = config.run_with_tenants();
    let tenants = tenants
        .expect("a run with a share has two tenants")
        .map(|t| Tenant {
            measured: t.measured,
            latency: t.latency,
            mean_ms: t.mean_ms,
            intervals: t.intervals,
        });
    (run, tenants)
}

/// Runs one point: the policy for A, and the baseline with nobody hedging.
pub fn simulate(params: &FairnessParams) -> Result<FairnessPoint, ParamError> {
    SHARE.check("shareA", params.share_a)?;
    REQUESTS_PER_RUN.check("requests", params.requests)?;
    let (run, with_policy) = tenants(&params.config(params.policy)?);
    let (baseline, without) = tenants(&params.config(TenantPolicy::None)?);
    Ok(FairnessPoint {
        share_a: params.share_a,
        requests: params.requests,
        policy: params.policy,
        run,
        baseline,
        tenants: with_policy,
        baseline_tenants: without,
    })
}

/// Point `index` of the standard sweep ([`SWEEP_LOADS`], the defaults otherwise) with
/// `requests` per run.
pub fn sweep_point(index: usize, requests: u64, seed: u64) -> Result<FairnessPoint, ParamError> {
    crate::count_range!(0, 7, " (a sweep point)").check("index", index as u64)?;
    simulate(&FairnessParams {
        requests,
        seed,
        ..FairnessParams::at_load(SWEEP_LOADS[index])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters_are_refused_by_name() {
        for bad in [-0.1, 1.1, f64::NAN] {
            let p = FairnessParams {
                share_a: bad,
                ..FairnessParams::at_load(0.5)
            };
            assert_eq!(simulate(&p).unwrap_err().param(), "shareA");
        }
        let p = FairnessParams {
            load: 3.0,
            ..FairnessParams::at_load(0.5)
        };
        assert_eq!(simulate(&p).unwrap_err().param(), "load");
        assert_eq!(
            TenantPolicy::from_name("tied").unwrap_err().param(),
            "policy"
        );
        for name in POLICY_NAMES {
            assert_eq!(TenantPolicy::from_name(name).unwrap().name(), name);
        }
        assert_eq!(sweep_point(8, 1000, 1).unwrap_err().param(), "index");
    }

    #[test]
    fn the_tenants_split_the_requests_by_the_share() {
        let r = simulate(&FairnessParams {
            share_a: 0.3,
            ..FairnessParams::at_load(0.3)
        })
        .unwrap();
        let [a, b] = r.tenants;
        let total = (a.measured + b.measured) as f64;
        // 36,000 measured requests: the share's standard error is √(0.3·0.7/36000) ≈ 0.0024.
        assert!(
            (a.measured as f64 / total - 0.3).abs() < 0.02,
            "{a:?} {b:?}"
        );
        // Only A sends backups: 30% of the requests, ± the same error.
        assert!(
            (r.run.extra_requests - 0.3).abs() < 0.02,
            "{}",
            r.run.extra_requests
        );
        assert_eq!(r.baseline.extra_requests, 0.0);
    }
}
