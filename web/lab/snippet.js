// The Lab's API in a few calls, one for each section, at the sections' default settings (what a
// call leaves out is the API's default, which is the section's). The "In code" section shows this
// file as it stands and runs it in the page's worker; a test compares what it returns with the
// sections' readouts.
import {
  simulateBalance,
  simulateBalancerSignals,
  simulateBudget,
  simulateCancellation,
  simulateCorrelated,
  simulateEmpirical,
  simulateFairness,
  simulateGraph,
  simulateHedge,
  simulateLoaded,
  simulateOmission,
  simulateQueue,
  simulateRetries,
  simulateTied,
  slowShare,
} from "../pkg/tail_lab.js";

export function snippet() {
  return {
    share: slowShare(0.01, 100), //                          1 − 0.99¹⁰⁰
    hedge: simulateHedge({ delayQ: 0.95 }), //                backup after the leaf's p95
    queue: simulateQueue({ servers: 4, load: 0.8, requests: "auto" }), // four servers, run to ±5%
    loaded: simulateLoaded({ load: 0.6, policy: "hedge" }), // hedge on busy replicas
    tied: simulateTied(), //        queued at two replicas, the first to start cancels the other
    budget: simulateBudget(), //       a hedge on a token budget through a 10× outage
    retries: simulateRetries(), //     timeout and retry through a load spike: a storm
    cancel: simulateCancellation({ cancelDelayMs: 0 }), // duplicates cancelled at once
    fairness: simulateFairness({ load: 0.5 }), // tenant A duplicates, tenant B does not
    balance: simulateBalance({ lambda: 0.9, policy: "two", arrivals: "auto" }), // best of two
    graph: simulateGraph({ preset: "search", deadlineMs: 100 }), // auth → 10 shards → rank
    correlated: simulateCorrelated({ c: 0.3, drop: 0.05 }), // leaves share slow episodes
    data: simulateEmpirical(), //              the bundled example, sampled and fanned out
    omission: simulateOmission(), //            a 100 s stall, measured closed and open loop
    balancer: simulateBalancerSignals({ signal: "stale", arrivals: 600_000 }), // lengths 50 old
  };
}
