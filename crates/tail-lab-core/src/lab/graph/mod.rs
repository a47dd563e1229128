//! Request graphs, quorums and deadlines (source 003 §8 and its appendix; issue 21).
//!
//! A request is a list of stages run one after another, so their times add. A stage is a
//! single call, or a parallel stage of `n` children that is done when `k` of them have
//! answered (`k = n`: all of them; `k < n`: a quorum, or partial results). Each stage has its
//! own service: any model the Lab accepts, or an exponential ([`StageService`]).
//!
//! **A deadline** `D` is the request's budget from its start. A request whose graph completes
//! by `D` answers complete, at its completion time; one that does not answers at `D` with what
//! has arrived: its latency is `D`, and its completeness is the share of the answers a
//! complete request counts (`k` of each parallel stage; [`Graph::counted`]) that were in by
//! `D`. Children of a stage not yet started count as not arrived. This is the honest form of
//! "drop the slowest k%": nothing is dropped unless something is slow, while a fixed drop
//! always discards leaves.
//!
//! The simulation draws every child from the addressed stream [`STREAM`] at (request, child),
//! measures the answer time's percentiles on the shared histogram bins (the percentile of
//! `min(T, D)` is `min(percentile of T, D)`), and counts, per request, the answers in by each
//! deadline of a sweep at once, so moving the deadline needs no new requests. The theory beside
//! it is [`GraphTheory`]: the binomial order-statistic law per stage, convolved across stages
//! with a rigorous error bracket.

mod call;
mod result;
pub mod simulate;
pub mod stages;
pub mod theory;

pub use call::{CALL, EXPONENTIAL_SERVICE, OPTIONS, STAGE, graph_of};
pub use simulate::{GraphParams, GraphResult, STREAM, Sweep, simulate};
pub use stages::{Graph, Stage, StageKind, StageService};
pub use theory::GraphTheory;

use crate::describe::Describe;
use crate::error::ParamError;
use crate::lab::service::ServiceModel;
use crate::model::{Model, RunOutput, each_described};

/// The report's runs: each preset at a deadline (ms) that shows what a deadline does to it.
pub const REPORT_RUNS: [(&str, f64); 4] = [
    ("fanout", 100.0),
    ("search", 100.0),
    ("quorum", 15.0),
    ("chain", 80.0),
];

/// Children the report simulates per run at most, so the report stays well under a second.
pub const REPORT_CHILDREN: u64 = 2_000_000;

/// The requests the report runs preset `name` for, given the report's `requests`: at most
/// [`REPORT_CHILDREN`] children in all.
pub fn report_requests(graph: &Graph, requests: u64) -> u64 {
    requests.min(REPORT_CHILDREN / graph.children()).max(1)
}

fn run(index: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError> {
    let (name, deadline) = REPORT_RUNS[index];
    let graph = Graph::preset(name, &ServiceModel::default())?;
    let params = GraphParams {
        requests: report_requests(&graph, requests),
        graph,
        deadline_ms: Some(deadline),
        sweep: Sweep::Default,
        seed,
    };
    Ok(Box::new(simulate(&params)?))
}

/// Request graphs in the report and the API (`simulateGraph`).
pub const MODEL: Model = Model {
    key: "graph",
    title: "Request graphs under a deadline (each preset, the Lab's service)",
    note: "a deadline answers with what has arrived: the miss share and the completeness move \
           together as the deadline does; the theory is the binomial order-statistic law per \
           stage, convolved across stages within the stated bound",
    call: Some("simulateGraph"),
    api: Some(&CALL),
    closed_forms: &["graphTheory", "graphPresets"],
    result_type: <GraphResult as Describe>::TYPE_NAME,
    result_doc: <GraphResult as Describe>::DOC,
    streams: &[STREAM],
    sweep: true,
    runs: REPORT_RUNS.len(),
    run,
    entries: each_described::<GraphResult>,
    example: || {
        let graph = Graph::preset("search", &ServiceModel::default()).expect("valid");
        simulate(&GraphParams {
            graph,
            deadline_ms: Some(100.0),
            sweep: Sweep::Default,
            requests: 100,
            seed: 1,
        })
        .expect("valid")
        .describe()
    },
};
