// The numbers the fairness section's prose states, each computed through the API from the
// section's default runs (see web/claims.js).

import { overSeeds, SEEDS } from "../../../claims.js";
import { SEED_PARAM } from "../../seed.js";
import { params, QUOTED_LOAD, REQUESTS } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;
const SHARE = Number(params.find((s) => s.name === "fair-share")?.default);
const POLICY = String(params.find((s) => s.name === "fair-policy")?.default);
/** The load past the quoted one where B's median pays most visibly. */
const HIGHER = 0.6;

/** The section's default run at `load` under each of SEEDS, as the page makes it. */
const fairRuns = overSeeds(SEEDS, (core, seed, load) =>
  core.simulateFairness({ load, shareA: SHARE, policy: POLICY, requests: REQUESTS, seed }),
);
/** The section's default run at `load` (the page's seed). */
const at = (core, load) => fairRuns.at(core, SEED, load);

/** Runs with latencies (settled, both tenants measured). */
const settledOnes = (/** @type {any[]} */ rs) =>
  rs.filter((r) => r.stable && r.bP50 !== null && r.baseBP50 !== null);
/** The settled runs of SEEDS at `load`. */
const settledOverSeeds = (core, load) => settledOnes(fairRuns(core, load));
/** B's median ratio (A duplicating over nobody hedging) at the higher load, for each of SEEDS
 * whose run settles. */
const higherRatios = (core) =>
  settledOverSeeds(core, HIGHER).map((/** @type {any} */ r) => r.bP50 / r.baseBP50);
/** B's median rise (ms) when A duplicates over nobody hedging, paired by seed (the same
 * arrivals and work), at the quoted load, for each of SEEDS whose run settles. */
const quotedRises = (core) =>
  settledOverSeeds(core, QUOTED_LOAD).map((/** @type {any} */ r) => r.bP50 - r.baseBP50);
/** A's p99 drop (ms) with its backups over nobody hedging, paired by seed, at the quoted load,
 * for each of SEEDS whose run settles. */
const quotedDrops = (core) =>
  settledOverSeeds(core, QUOTED_LOAD)
    .filter((/** @type {any} */ r) => r.aP99 !== null && r.baseAP99 !== null)
    .map((/** @type {any} */ r) => r.baseAP99 - r.aP99);

/** B's p99 runs `[baseline, with A's backups]`, paired by seed, at the quoted load, for each of
 * SEEDS whose run settles. */
const quotedBP99s = (core) =>
  settledOverSeeds(core, QUOTED_LOAD)
    .filter((/** @type {any} */ r) => r.bP99 !== null && r.baseBP99 !== null)
    .map((/** @type {any} */ r) => [r.baseBP99, r.bP99]);
/** B's p99 loss (ms) with A's backups, paired by seed, for each settled seed. */
const quotedLosses = (core) => quotedBP99s(core).map(([base, b]) => b - base);

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  share: { doc: "Tenant A's default share of the requests (fraction).", value: () => SHARE },
  load: { doc: "The load the prose quotes (fraction).", value: () => QUOTED_LOAD },
  "base-a-p99-ms": {
    doc: "A's p99 (ms) with nobody hedging at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).baseAP99,
  },
  "base-a-p99-low-ms": {
    doc: "The low end (ms) of A's p99 95% interval with nobody hedging, at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).baseAP99Low,
  },
  "base-a-p99-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => at(core, QUOTED_LOAD).baseAP99High,
  },
  "a-p99-ms": {
    doc: "A's p99 (ms) when A duplicates, at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).aP99,
  },
  "a-p99-low-ms": {
    doc: "The low end (ms) of A's p99 95% interval when A duplicates, at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).aP99Low,
  },
  "a-p99-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => at(core, QUOTED_LOAD).aP99High,
  },
  "a-p99-drop-low-ms": {
    doc: "The least fall (ms) of A's p99 with its backups, paired by seed over the first five seeds, at the quoted load.",
    value: (core) => Math.min(...quotedDrops(core)),
  },
  "a-p99-drop-high-ms": {
    doc: "The greatest of those falls (ms).",
    value: (core) => Math.max(...quotedDrops(core)),
  },
  "base-b-p99-ms": {
    doc: "B's p99 (ms) with nobody hedging at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).baseBP99,
  },
  "b-p99-ms": {
    doc: "B's p99 (ms) when A duplicates, at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).bP99,
  },
  "b-p99-loss-ms": {
    doc: "How much B's p99 rose (ms) at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).bP99Loss,
  },
  "b-p99-loss-low-ms": {
    doc: "The least rise (ms) of B's p99 with A's backups, paired by seed over the first five seeds' settled runs, at the quoted load.",
    value: (core) => Math.min(...quotedLosses(core)),
  },
  "b-p99-loss-high-ms": {
    doc: "The greatest of those rises (ms).",
    value: (core) => Math.max(...quotedLosses(core)),
  },
  "b-p99-low-ms": {
    doc: "The low end (ms) of B's p99 95% interval with A's backups, at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).bP99Low,
  },
  "b-p99-high-ms": {
    doc: "The high end (ms) of B's p99 95% interval with A's backups, at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).bP99High,
  },
  "base-b-p50-ms": {
    doc: "B's median (ms) with nobody hedging at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).baseBP50,
  },
  "b-p50-ms": {
    doc: "B's median (ms) when A duplicates, at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).bP50,
  },
  "b-p50-low-ms": {
    doc: "The low end (ms) of that median's 95% interval.",
    value: (core) => at(core, QUOTED_LOAD).bP50Low,
  },
  "b-p50-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => at(core, QUOTED_LOAD).bP50High,
  },
  seeds: {
    doc: "How many seeds the prose's paired comparisons run over.",
    value: () => SEEDS.length,
  },
  "quoted-settled": {
    doc: "How many of the first five seeds' runs at the quoted load settle (have latencies) with A duplicating.",
    value: (core) => quotedRises(core).length,
  },
  "b-p50-rise-low-ms": {
    doc: "The least rise (ms) of B's median when A duplicates, paired by seed over the first five seeds, at the quoted load.",
    value: (core) => Math.min(...quotedRises(core)),
  },
  "b-p50-rise-high-ms": {
    doc: "The greatest of those rises (ms).",
    value: (core) => Math.max(...quotedRises(core)),
  },
  higher: { doc: "The higher load the prose quotes (fraction).", value: () => HIGHER },
  "b-p50-higher-times-low": {
    doc: "The least, over the first five seeds' settled runs, of B's median when A duplicates over its median with nobody hedging, at the higher load.",
    value: (core) => Math.min(...higherRatios(core)),
  },
  "b-p50-higher-times-high": {
    doc: "The greatest of the same ratios.",
    value: (core) => Math.max(...higherRatios(core)),
  },
  "higher-unsettled": {
    doc: "How many of those five runs with A duplicating never settle (no latencies).",
    value: (core) => SEEDS.length - higherRatios(core).length,
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "no-visible-p99-loss": {
    doc: "B's p99 with nobody hedging lies inside B's p99 interval with A's backups: no loss this run can see.",
    holds: (c) =>
      c("b-p99-low-ms") <= c("base-b-p99-ms") && c("base-b-p99-ms") <= c("b-p99-high-ms"),
  },
  "b-p99-loss-is-real-but-small": {
    doc: "Paired by seed, B's p99 rises at every settled seed, at least three, and by less than a tenth of its baseline at each.",
    holds: (c, core) =>
      quotedBP99s(core).length >= 3 &&
      c("b-p99-loss-low-ms") > 0 &&
      quotedBP99s(core).every(([base, b]) => b - base < 0.1 * base),
  },
  "b-pays-in-the-median": {
    doc: "B's median rises in every paired seed that settles at the quoted load, at least three of the five (one run's own interval cannot show it: at seed 1 it spans both medians).",
    holds: (c, core) => quotedRises(core).length >= 3 && c("b-p50-rise-low-ms") > 0,
  },
  "one-run-cannot-show-a-gain": {
    doc: "At the page's seed A's p99 intervals with and without backups overlap, as the prose says: the gain needs the paired seeds.",
    holds: (c) => c("a-p99-high-ms") >= c("base-a-p99-low-ms"),
  },
  "one-run-cannot-show-b-pay": {
    doc: "At the page's seed B's median interval with A's backups spans both medians, as the prose says.",
    holds: (c) => c("b-p50-low-ms") <= c("base-b-p50-ms") && c("b-p50-ms") <= c("b-p50-high-ms"),
  },
  "a-gains": {
    doc: "A's p99 falls in every paired seed that settles at the quoted load, at least three of the five (one run's own p99 interval, over five batches of hiccup-set tails, reaches above the baseline at seed 1).",
    holds: (c, core) => quotedDrops(core).length >= 3 && c("a-p99-drop-low-ms") > 0,
  },
};
