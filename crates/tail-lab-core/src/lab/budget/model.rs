//! Hedge budgets as a registered model: its report run (the default setting) and its example.

use super::{BudgetConfig, BudgetParams, BudgetResult, STREAM};
use crate::describe::Describe;
use crate::error::ParamError;
use crate::model::{Model, RunOutput, each_described};

fn run(_index: usize, seed: u64, _requests: u64) -> Result<RunOutput, ParamError> {
    Ok(Box::new(
        BudgetConfig::new(BudgetParams {
            seed,
            ..BudgetParams::default()
        })?
        .run(),
    ))
}

/// Hedge budgets and a disable switch in the report and the API (`simulateBudget`).
pub const MODEL: Model = Model {
    key: "budget",
    title: "Hedge budgets and a disable switch through a partial outage",
    note: "10 replicas at 50% load for 60 s, replica 0 ten times slower from 20 s to 40 s; \
           hedge at the service's p95; a bucket of 10 tokens gaining 0.25 a request; no hedge \
           to a replica holding more than 4 copies or above measured utilisation 1",
    call: Some("simulateBudget"),
    api: Some(&super::CALL),
    closed_forms: &["budgetHedgeBound"],
    result_type: <BudgetResult as Describe>::TYPE_NAME,
    result_doc: <BudgetResult as Describe>::DOC,
    streams: &[STREAM],
    sweep: false,
    runs: 1,
    run,
    entries: each_described::<BudgetResult>,
    example: || {
        let p = BudgetParams {
            span_ms: 3_000.0,
            outage_start_ms: 1_000.0,
            outage_end_ms: 2_000.0,
            windows: 6,
            ..BudgetParams::default()
        };
        BudgetConfig::new(p).expect("valid").run().describe()
    },
};
