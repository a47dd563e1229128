// The "In code" section's readouts: what each call of lab/snippet.js returned, each the same
// number as a readout of the section that call stands for. The section builds its readouts from
// this list, and a browser test compares every pair on the page, so a section added to the Lab
// is one more call in snippet.js and one more line here (a node test checks that every section
// above "In code" has a line). This module touches no DOM, so node loads it too.

import { formatMs, formatNumber, formatPct } from "../../../format.js";

/**
 * One readout of the snippet's output.
 * @typedef {object} SnippetReadout
 * @property {string} name its `data-readout` in the code section
 * @property {string} label what it shows, naming the call and its settings
 * @property {(out: any) => string} show the text, from the snippet's returned object
 * @property {{ section: string, readout: string, attr?: string, prefix?: string }} of the
 *   section's readout it equals: `[data-section=section] [data-<attr>=readout]` (attr
 *   "readout" unless given), its text with `prefix` removed
 */

/** A share shown as the correlated section shows it: three decimals below 1%. */
const share = (/** @type {number} */ x) => formatPct(x, x > 0 && x < 0.01 ? 3 : 1);

/** @type {readonly SnippetReadout[]} */
export const SNIPPET_READOUTS = Object.freeze([
  {
    name: "snippet-slow-share",
    label: "slowShare(0.01, 100)",
    show: (o) => formatPct(o.share),
    of: { section: "fanout", readout: "slow-share", attr: "theory", prefix: "theory " },
  },
  {
    name: "snippet-p999-after",
    label: "simulateHedge (backup at the p95): p99.9 with hedge",
    show: (o) => formatMs(o.hedge.p999After),
    of: { section: "hedge", readout: "p999-after" },
  },
  {
    name: "snippet-extra-work",
    label: "simulateHedge (backup at the p95): extra work",
    show: (o) => formatPct(o.hedge.extraWork, 2),
    of: { section: "hedge", readout: "extra-work" },
  },
  {
    name: "snippet-queue-p99",
    label: "simulateQueue (4 servers, load 80%): p99",
    show: (o) => formatNumber(o.queue.p99),
    of: { section: "queue", readout: "queue-p99" },
  },
  {
    name: "snippet-loaded-p50",
    label: "simulateLoaded (hedge, load 60%): p50",
    show: (o) => formatMs(o.loaded.p50),
    of: { section: "loaded", readout: "p50" },
  },
  {
    name: "snippet-loaded-p99",
    label: "simulateLoaded (hedge, load 60%): p99",
    show: (o) => formatMs(o.loaded.p99),
    of: { section: "loaded", readout: "p99" },
  },
  {
    name: "snippet-tied-p99",
    label: "simulateTied (tied to two, load 50%): p99",
    show: (o) => formatMs(o.tied.p99),
    of: { section: "tied", readout: "tied-p99" },
  },
  {
    name: "snippet-budget-fraction",
    label: "simulateBudget (ratio 0.15, a 10× outage): share of requests hedged",
    show: (o) => formatPct(o.budget.budgeted.hedgeFraction),
    of: { section: "budget", readout: "fraction-budgeted" },
  },
  {
    name: "snippet-retries-amplification",
    label: "simulateRetries (retries, no budget, a 2.5× spike): attempts per request",
    show: (o) => `${o.retries.amplification.toFixed(2)}×`,
    of: { section: "retries", readout: "retry-amplification" },
  },
  {
    name: "snippet-cancel-p99",
    label: "simulateCancellation (cancelled at once, load 50%): duplicate p99",
    show: (o) => formatMs(o.cancel.duplicateP99),
    of: { section: "cancellation", readout: "dup-p99-0" },
  },
  {
    name: "snippet-fairness-p99",
    label: "simulateFairness (load 50%): tenant A's p99",
    show: (o) => formatMs(o.fairness.aP99),
    of: { section: "fairness", readout: "a-p99" },
  },
  {
    name: "snippet-mean-time",
    label: "simulateBalance (λ = 0.9, best of two): mean time",
    show: (o) => formatNumber(o.balance.meanTime),
    of: { section: "balance", readout: "mean-time" },
  },
  {
    name: "snippet-graph-p99",
    label: "simulateGraph (search, deadline 100 ms): p99",
    show: (o) => formatMs(o.graph.p99),
    of: { section: "graph", readout: "p99" },
  },
  {
    name: "snippet-corr-slow-drop",
    label: "simulateCorrelated (c = 0.3, drop 5%): slow share",
    show: (o) => share(o.correlated.slowDrop),
    of: { section: "correlated", readout: "slow-drop" },
  },
  {
    name: "snippet-data-p99",
    label: "simulateEmpirical (the example): p99 of the draws",
    show: (o) => formatMs(o.data.p99),
    of: { section: "your-data", readout: "data-p99" },
  },
  {
    name: "snippet-omission-raw",
    label: "simulateOmission (the worked example): ≤ 1 ms, closed loop",
    show: (o) => formatPct(o.omission.rawFracLe1ms, 2),
    of: { section: "omission", readout: "classic-raw" },
  },
  {
    name: "snippet-omission-corrected",
    label: "simulateOmission (the worked example): ≤ 1 ms, corrected",
    show: (o) => formatPct(o.omission.correctedFracLe1ms, 2),
    of: { section: "omission", readout: "classic-corrected" },
  },
  {
    name: "snippet-balancer-stale",
    label: "simulateBalancerSignals (stale every 50, λ = 90%): mean",
    show: (o) => formatNumber(o.balancer.mean),
    of: { section: "balancer", readout: "stale-mean" },
  },
]);
