// The numbers the retries section's prose states, each computed through the API from the runs
// the section makes at its default settings, at the page's default seed and the next four (see
// web/claims.js), plus the same clients without the spike, for when retries are safe.

import { claimRange, overSeeds, SEEDS } from "../../../claims.js";
import { SEED_PARAM } from "../../seed.js";
import { CLIENTS, optionsOf } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;

/** The section's default settings, with the spike's multiplier `spike` (the default's unless given). */
function defaults(core, spike) {
  const lab = core.labDefaults().retries;
  return {
    "retries-timeout": lab.timeoutMs,
    "retries-backoff": lab.backoffs[0],
    "retries-budget": lab.budget,
    "retries-spike": spike ?? lab.spike,
  };
}
/** Plain retries' client. */
const RETRY = () => CLIENTS.find(([k]) => k === "retry");

/** The section's default runs (`retry`, `budget`, `hedge`), `none` beside them, and each
 * without the spike (`calm-…`), under each of SEEDS. */
const clientRuns = overSeeds(SEEDS, (core, seed, key) => {
  const values = defaults(core, key.startsWith("calm-") ? 1 : undefined);
  const name = key.replace(/^calm-/, "");
  const client = CLIENTS.find(([k]) => k === name) ?? ["none", "", "", { policy: "none" }];
  return core.simulateRetries(optionsOf(values, client, seed));
});
/** The same at the page's seed. */
const run = (core, key) => clientRuns.at(core, SEED, key);

/** The replicas' short queue and the longer timeout (ms) of the prose's other ways out. */
const SHORT_QUEUE = 50;
const LONG_TIMEOUT_MS = 2000;

/** Plain retries through the default spike with `change` (`queueLimit`, …), under each of SEEDS. */
const retryRuns = overSeeds(SEEDS, (core, seed, change) =>
  core.simulateRetries({ ...optionsOf(defaults(core), RETRY(), seed), ...change }),
);
/** A run recovers when its goodput over the last quarter is back to 90% of before the spike. */
const RECOVERED = 0.9;
const recoveries = (core, change) =>
  retryRuns(core, change).map((/** @type {any} */ r) => r.recovery);
/** `read(run)` of the client `key`'s default run under each of SEEDS. */
const over = (core, key, read) => clientRuns(core, key).map(read);
/** `read(run)` of plain retries with `change` under each of SEEDS. */
const overRetries = (core, change, read) => retryRuns(core, change).map(read);
const SHORT = { queueLimit: SHORT_QUEUE };
const LONG = { timeoutMs: LONG_TIMEOUT_MS };
/** The share of requests answered, by the hedge less by budgeted retries, paired by seed. */
const successGaps = (core) => {
  const budget = over(core, "budget", (r) => r.successShare);
  return over(core, "hedge", (r) => r.successShare).map((h, i) => h - budget[i]);
};

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  "backoff-recovery": {
    doc: "Plain retries' goodput over the run's last quarter against before the spike, with exponential backoff, under each of SEEDS (the prose states one: every seed's).",
    value: (core) => recoveries(core, { backoff: "exponential" }),
  },
  ...claimRange(
    "short-queue-recovery",
    "plain retries' goodput recovery over SEEDS when the replicas refuse work past the short queue.",
    (core) => recoveries(core, SHORT),
  ),
  ...claimRange("short-queue-success", "the share of requests answered in those runs.", (core) =>
    overRetries(core, SHORT, (r) => r.successes / r.requests),
  ),
  ...claimRange(
    "long-timeout-recovered",
    "plain retries' goodput recovery with the longer timeout, over the seeds where it recovers.",
    (core) => recoveries(core, LONG).filter((x) => x >= RECOVERED),
  ),
  ...claimRange(
    "calm-none-success",
    "the share of requests answered without the spike and without retries, over SEEDS.",
    (core) => over(core, "calm-none", (r) => r.successShare),
  ),
  ...claimRange(
    "calm-retry-success",
    "the share of requests answered without the spike, with retries, over SEEDS.",
    (core) => over(core, "calm-retry", (r) => r.successShare),
  ),
  ...claimRange(
    "calm-retry-amplification",
    "attempts per request without the spike, with retries, over SEEDS.",
    (core) => over(core, "calm-retry", (r) => r.amplification),
  ),
  "retry-recovery": {
    doc: "Goodput over the last quarter of the run over goodput before the spike, retries without a budget, under each of SEEDS (the prose states one: every seed's).",
    value: (core) => over(core, "retry", (r) => r.recovery),
  },
  ...claimRange(
    "retry-amplification",
    "attempts per request over the spiked run, retries without a budget, over SEEDS.",
    (core) => over(core, "retry", (r) => r.amplification),
  ),
  ...claimRange(
    "retry-wasted",
    "the share of server time spent on answers nobody used, retries without a budget, over SEEDS.",
    (core) => over(core, "retry", (r) => r.wastedWork),
  ),
  ...claimRange(
    "budget-recovery",
    "goodput at the end over goodput before the spike, retries with the budget, over SEEDS.",
    (core) => over(core, "budget", (r) => r.recovery),
  ),
  ...claimRange(
    "budget-amplification",
    "attempts per request over the spiked run, retries with the budget, over SEEDS.",
    (core) => over(core, "budget", (r) => r.amplification),
  ),
  "budget-bound": {
    doc: "The budget's cap on amplification over the run, 1 + ⌊burst + ratio × requests⌋ / requests, under each of SEEDS (the prose states one: every seed's).",
    value: (core) => over(core, "budget", (r) => r.budgetBound),
  },
  ...claimRange(
    "budget-p99",
    "the p99 (ms) of answered requests over the spiked run, retries with the budget, over SEEDS.",
    (core) => over(core, "budget", (r) => r.p99),
  ),
  "hedge-amplification": {
    doc: "Attempts per request over the spiked run, the hedge with the budget, under each of SEEDS (the prose states one: every seed's).",
    value: (core) => over(core, "hedge", (r) => r.amplification),
  },
  ...claimRange(
    "hedge-recovery",
    "goodput at the end over goodput before the spike, the hedge with the budget, over SEEDS.",
    (core) => over(core, "hedge", (r) => r.recovery),
  ),
  ...claimRange(
    "hedge-success",
    "the share of requests answered over the spiked run, the hedge with the budget, over SEEDS.",
    (core) => over(core, "hedge", (r) => r.successShare),
  ),
  ...claimRange(
    "budget-success",
    "the share of requests answered over the spiked run, retries with the budget, over SEEDS.",
    (core) => over(core, "budget", (r) => r.successShare),
  ),
  "success-gap": {
    doc: "The most, over SEEDS, by which the hedge's share of requests answered and budgeted retries' differ at one seed (fraction of requests).",
    value: (core) => Math.max(...successGaps(core).map(Math.abs)),
  },
  ...claimRange(
    "hedge-p99",
    "the p99 (ms) of answered requests over the spiked run, the hedge with the budget, over SEEDS.",
    (core) => over(core, "hedge", (r) => r.p99),
  ),
  seeds: { doc: "How many seeds the prose's ways out are judged over.", value: () => SEEDS.length },
  "short-queue-recovered-seeds": {
    doc: "Of those seeds, how many recover (goodput back to 90% of before the spike) when the replicas refuse work past the short queue.",
    value: (core) =>
      recoveries(core, { queueLimit: SHORT_QUEUE }).filter((x) => x >= RECOVERED).length,
  },
  "long-timeout-recovered-seeds": {
    doc: "Of those seeds, how many recover with the longer timeout.",
    value: (core) =>
      recoveries(core, { timeoutMs: LONG_TIMEOUT_MS }).filter((x) => x >= RECOVERED).length,
  },
  "long-timeout-recovery-low": {
    doc: "The least goodput recovery over those seeds with the longer timeout.",
    value: (core) => Math.min(...recoveries(core, { timeoutMs: LONG_TIMEOUT_MS })),
  },

  "short-queue": {
    doc: "The short queue of the prose: attempts a replica holds queued before it refuses more.",
    value: () => SHORT_QUEUE,
  },

  "long-timeout": {
    doc: "The longer timeout of the prose, in seconds.",
    value: () => LONG_TIMEOUT_MS / 1000,
  },

  load: {
    doc: "Offered load outside the spike (first attempts).",
    value: (core) => run(core, "retry").load,
  },
  timeout: {
    doc: "The client's timeout, in seconds.",
    value: (core) => run(core, "retry").timeoutMs / 1000,
  },
  attempts: {
    doc: "Attempts a request may make, its first included.",
    value: (core) => run(core, "retry").maxAttempts,
  },
  spike: {
    doc: "The spike's multiplier of the arrival rate.",
    value: (core) => run(core, "retry").spike,
  },
  "spike-start": {
    doc: "When the spike starts, in seconds.",
    value: (core) => run(core, "retry").spikeStartMs / 1000,
  },
  "spike-end": {
    doc: "When the spike ends, in seconds.",
    value: (core) => run(core, "retry").spikeEndMs / 1000,
  },
  "storm-load": {
    doc: "Work offered per unit of capacity when every attempt times out: load × attempts (retriesTheory).",
    value: (core) => {
      const r = run(core, "retry");
      return core.retriesTheory({ load: r.load, maxAttempts: r.maxAttempts }).stormLoad;
    },
  },
  budget: {
    doc: "The budget ratio (tokens per request).",
    value: (core) => run(core, "budget").budget,
  },
  "budget-storm-load": {
    doc: "The most work a budget lets reach the replicas in a storm: load × (1 + ratio).",
    value: (core) => {
      const r = run(core, "budget");
      return core.retriesTheory({ load: r.load, maxAttempts: r.maxAttempts, budget: r.budget })
        .budgetStormLoad;
    },
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "short-queue-ends-the-storm": {
    doc: "The short queue ends the storm at every seed judged.",
    holds: (c) => c("short-queue-recovered-seeds") === c("seeds"),
  },
  "long-timeout-is-not-reliable": {
    doc: "The longer timeout ends the storm at some seeds but not at all of them.",
    holds: (c) =>
      c("long-timeout-recovered-seeds") > 0 && c("long-timeout-recovered-seeds") < c("seeds"),
  },
  "the-budget-bounds-the-storm": {
    doc: "At every seed judged, with the budget, copies stay within its bound and goodput recovers.",
    holds: (_c, core) =>
      clientRuns(core, "budget").every(
        (/** @type {any} */ r) => r.amplification <= r.budgetBound && r.recovery >= RECOVERED,
      ),
  },
  "the-budgeted-hedge-recovers": {
    doc: "At every seed judged, the budgeted hedge's goodput recovers.",
    holds: (c) => c("hedge-recovery-low") >= RECOVERED,
  },
  "calm-retries-help": {
    doc: "With headroom, retries answer more requests than no retries at every seed judged: the least share with them above the most without.",
    holds: (c) => c("calm-retry-success-low") > c("calm-none-success-high"),
  },
  "backoff-alone-does-not": {
    doc: "Exponential backoff alone leaves goodput under a tenth at every seed judged.",
    holds: (c) => c("backoff-recovery").every((/** @type {number} */ x) => x < 0.1),
  },
  "hedge-and-budgeted-retries-answer-alike": {
    doc: "The hedge and budgeted retries answer about the same share: within three points of each other at every seed judged.",
    holds: (c) => c("success-gap") < 0.03,
  },
};
