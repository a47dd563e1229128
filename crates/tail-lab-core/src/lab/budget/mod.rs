//! Hedge budgets and a disable switch, through a partial outage (seed 003 §10; issue 22,
//! item 2).
//!
//! The replicas are the loaded model's ([`crate::lab::loaded`]): `replicas` FIFO single
//! servers (default 10), an open-loop Poisson stream of requests at utilisation `load` (offered
//! work over capacity, before backups), each request to a uniformly random replica, and its
//! backup, if sent, to a different random replica after the hedge delay. **Cancellation:**
//! whichever copy answers first cancels the other: removed from its queue, or its server freed
//! at once (even mid-hiccup). This differs from the loaded model's default rule (the primary
//! always runs), so that a hedge can rescue requests stuck behind a slow replica: under the
//! loaded rule every primary on the slow replica would still run there, and its queue would
//! grow through the outage whatever the hedges did.
//!
//! **A partial outage.** Replica 0 serves `slowdown`× slower (default 10×) during
//! `[outage_start_ms, outage_end_ms)` (default the middle third of a 60 s run): a copy that
//! *starts* service there in that window takes `slowdown` times its drawn time. The policies
//! see it only through latencies and queues.
//!
//! **Policies** ([`BudgetPolicy`]), each on the same arrivals and the same work (addressed
//! draws per request, stream 24):
//! - `none`: no backups;
//! - `hedge`: a backup when the request has waited the hedge delay unanswered;
//! - `budgeted`: the hedge under a budget on hedges, a token bucket that borrows gRPC's retry
//!   throttling's shape (proposal A6: `maxTokens`, `tokenRatio`, tokens start full, nothing sent
//!   at half a bucket or less) but charges per backup: each request adds `token_ratio` tokens
//!   (capped at `max_tokens`), each backup costs one ([`rules::TokenBucket`]); so over `N`
//!   requests at most `ratio·N` backups plus half a bucket ([`theory::max_budgeted_hedges`]).
//!   gRPC's own throttle moves its tokens only as calls end (one lost per failure,
//!   `tokenRatio` gained per success) and never charges a hedge as such, so it would not
//!   engage in an outage where nothing fails; Finagle's `RetryBudget` (a deposit per request,
//!   a withdrawal per retry) is the closer relative;
//! - `disabled`: the hedge, but none when the backup's replica holds more than
//!   `disable_depth` copies, or (when `disable_utilisation`) while the offered utilisation
//!   `(1 + h)ρ` measured over the last second is above one ([`rules::UtilisationMeter`]).
//!
//! The hedge delay ([`DelayRule`]) is fixed (default: the service's p95, ≈ 18.5 ms for the
//! Lab's model) or **tracks** the p95 of the last 1000 answers on the shared bins, recomputed
//! every 50 answers ([`rules::DelayTracker`]); the delay rule applies to every hedging policy.
//!
//! **Outputs** per policy ([`PolicyRun`]): p50/p99/p99.9 and the mean of requests that
//! arrived after the first tenth of the span, the hedge fraction, the extra work, and per
//! window of simulated time ([`crate::sampling::timeline::Timeline`]): requests, backups, ms
//! of server time, p99, the mean hedge delay and the mean tokens. Memory is bounded by the
//! requests in flight; past [`MAX_IN_FLIGHT`] no more arrive and the run is reported unstable
//! with no latency numbers.
//!
//! Files: [`params`] (a run's parameters and bounds), [`rules`] (bucket, tracking delay,
//! utilisation), [`result`] (the outcome, described), [`theory`] (the budget's bound and the
//! M/G/1 mean), `engine` (the simulation on [`crate::des`]) and `model` (the registration).

pub mod params;
pub mod result;
pub mod rules;
pub mod theory;

mod call;
mod engine;
mod model;

pub use call::CALL;
pub use engine::SLOW_REPLICA;
pub use model::MODEL;
pub use params::{BudgetConfig, BudgetParams, DELAY_RULE_NAMES, DelayRule, MAX_IN_FLIGHT, STREAM};
pub use result::{BudgetResult, PolicyRun, Unstable};

/// A policy of the budget run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetPolicy {
    /// No backups.
    None,
    /// The plain hedge.
    Hedge,
    /// The hedge under the token bucket.
    Budgeted,
    /// The hedge under the disable rule.
    Disabled,
}

/// The policies' names, in the order of [`BudgetResult::runs`].
pub const POLICY_NAMES: [&str; 4] = ["none", "hedge", "budgeted", "disabled"];

impl BudgetPolicy {
    /// Every policy, in the order of [`POLICY_NAMES`].
    pub const ALL: [BudgetPolicy; 4] = [
        BudgetPolicy::None,
        BudgetPolicy::Hedge,
        BudgetPolicy::Budgeted,
        BudgetPolicy::Disabled,
    ];

    /// Its name.
    pub fn name(self) -> &'static str {
        POLICY_NAMES[self as usize]
    }
}

impl BudgetConfig {
    /// One policy's run.
    pub fn run_policy(&self, policy: BudgetPolicy) -> PolicyRun {
        engine::Simulation::new(self, policy).run()
    }

    /// Runs the four policies on the same arrivals.
    ///
    /// ```
    /// use tail_lab_core::lab::budget::{BudgetConfig, BudgetParams};
    ///
    /// let p = BudgetParams { span_ms: 6_000.0, outage_start_ms: 2_000.0, outage_end_ms: 4_000.0, ..BudgetParams::default() };
    /// let r = BudgetConfig::new(p).unwrap().run();
    /// assert_eq!(r.none.hedge_fraction, 0.0);
    /// assert!(r.budgeted.hedge_fraction <= r.hedge_fraction_bound.unwrap());
    /// ```
    pub fn run(&self) -> BudgetResult {
        let p = self.params;
        let [none, hedge, budgeted, disabled] =
            BudgetPolicy::ALL.map(|policy| self.run_policy(policy));
        BudgetResult {
            replicas: p.replicas,
            load: p.load,
            slowdown: p.slowdown,
            span_ms: p.span_ms,
            outage_start_ms: p.outage_start_ms,
            outage_end_ms: p.outage_end_ms,
            window_ms: p.span_ms / f64::from(p.windows),
            delay_rule: p.delay_rule,
            delay_ms: self.delay_ms,
            max_tokens: p.max_tokens,
            token_ratio: self.token_ratio(),
            disable_depth: p.disable_depth.is_finite().then_some(p.disable_depth),
            disable_utilisation: p.disable_utilisation,
            hedge_fraction_bound: p.max_tokens.map(|m| {
                theory::max_budgeted_hedges(m, self.ratio_milli, budgeted.requests) as f64
                    / budgeted.requests.max(1) as f64
            }),
            no_backup_mean_ms: theory::no_backup_mean_ms(&self.service, p.load)
                .ok()
                .flatten(),
            none,
            hedge,
            budgeted,
            disabled,
        }
    }
}
