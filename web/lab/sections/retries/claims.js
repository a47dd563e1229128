// The numbers the retries section's prose states, each computed through the API from the runs
// the section makes at its default settings and the page's default seed (see web/claims.js),
// plus the same clients without the spike, for when retries are safe.

import { overSeeds, SEEDS } from "../../../claims.js";
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
/** The same at the page's seed. */
const variant = (core, change) => retryRuns.at(core, SEED, change);
/** A run recovers when its goodput over the last quarter is back to 90% of before the spike. */
const RECOVERED = 0.9;
const recoveries = (core, change) =>
  retryRuns(core, change).map((/** @type {any} */ r) => r.recovery);

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
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
  "backoff-recovery": {
    doc: "Plain retries' goodput over the run's last quarter against before the spike, with exponential backoff.",
    value: (core) => variant(core, { backoff: "exponential" }).recovery,
  },
  "short-queue": {
    doc: "The short queue of the prose: attempts a replica holds queued before it refuses more.",
    value: () => SHORT_QUEUE,
  },
  "short-queue-recovery": {
    doc: "Plain retries' goodput recovery when the replicas refuse work past the short queue.",
    value: (core) => variant(core, { queueLimit: SHORT_QUEUE }).recovery,
  },
  "short-queue-success": {
    doc: "The share of requests answered in that run.",
    value: (core) => {
      const r = variant(core, { queueLimit: SHORT_QUEUE });
      return r.successes / r.requests;
    },
  },
  "long-timeout": {
    doc: "The longer timeout of the prose, in seconds.",
    value: () => LONG_TIMEOUT_MS / 1000,
  },
  "long-timeout-recovery": {
    doc: "Plain retries' goodput recovery with the longer timeout.",
    value: (core) => variant(core, { timeoutMs: LONG_TIMEOUT_MS }).recovery,
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
  "calm-none-success": {
    doc: "Share of requests answered without the spike and without retries.",
    value: (core) => run(core, "calm-none").successShare,
  },
  "calm-retry-success": {
    doc: "Share of requests answered without the spike, with retries.",
    value: (core) => run(core, "calm-retry").successShare,
  },
  "calm-retry-amplification": {
    doc: "Attempts per request without the spike, with retries.",
    value: (core) => run(core, "calm-retry").amplification,
  },
  "retry-recovery": {
    doc: "Goodput over the last quarter of the run over goodput before the spike, retries without a budget.",
    value: (core) => run(core, "retry").recovery,
  },
  "retry-amplification": {
    doc: "Attempts per request over the spiked run, retries without a budget.",
    value: (core) => run(core, "retry").amplification,
  },
  "retry-wasted": {
    doc: "Share of server time spent on answers nobody used, retries without a budget.",
    value: (core) => run(core, "retry").wastedWork,
  },
  "budget-recovery": {
    doc: "Goodput at the end over goodput before the spike, retries with the budget.",
    value: (core) => run(core, "budget").recovery,
  },
  "budget-amplification": {
    doc: "Attempts per request over the spiked run, retries with the budget.",
    value: (core) => run(core, "budget").amplification,
  },
  "budget-bound": {
    doc: "The budget's cap on amplification over that run: 1 + ⌊burst + ratio × requests⌋ / requests.",
    value: (core) => run(core, "budget").budgetBound,
  },
  "budget-p99": {
    doc: "p99 of answered requests over the spiked run, retries with the budget (ms).",
    value: (core) => run(core, "budget").p99,
  },
  "hedge-amplification": {
    doc: "Attempts per request over the spiked run, the hedge with the budget.",
    value: (core) => run(core, "hedge").amplification,
  },
  "hedge-recovery": {
    doc: "Goodput at the end over goodput before the spike, the hedge with the budget.",
    value: (core) => run(core, "hedge").recovery,
  },
  "hedge-success": {
    doc: "Share of requests answered over the spiked run, the hedge with the budget.",
    value: (core) => run(core, "hedge").successShare,
  },
  "budget-success": {
    doc: "Share of requests answered over the spiked run, retries with the budget.",
    value: (core) => run(core, "budget").successShare,
  },
  "hedge-p99": {
    doc: "p99 of answered requests over the spiked run, the hedge with the budget (ms).",
    value: (core) => run(core, "hedge").p99,
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
    doc: "With the budget, copies stay within its bound and goodput recovers.",
    holds: (c) => c("budget-amplification") <= c("budget-bound") && c("budget-recovery") > 0.9,
  },
  "calm-retries-help": {
    doc: "With headroom, retries answer more requests than no retries.",
    holds: (c) => c("calm-retry-success") > c("calm-none-success"),
  },
  "backoff-alone-does-not": {
    doc: "Exponential backoff alone leaves goodput under a tenth at the page's seed.",
    holds: (c) => c("backoff-recovery") < 0.1,
  },
};
