// The numbers the cancellation section's prose states, each computed through the API from the
// section's default runs (see web/claims.js).

import { claimRange, overSeeds, SEEDS } from "../../../claims.js";
import { SEED_PARAM } from "../../seed.js";
import { DELAYS, LATE_MS, params, REQUESTS } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;
const LOAD = Number(params.find((s) => s.name === "cancel-load")?.default);
const RULE = String(params.find((s) => s.name === "cancel-rule")?.default);

/**
 * The section's run at `delay` (ms; Infinity never lands) under `rule`, under each of SEEDS.
 */
const cancelRuns = overSeeds(SEEDS, (core, seed, delay, rule) =>
  core.simulateCancellation({
    load: LOAD,
    cancellation: rule,
    cancelDelayMs: delay,
    requests: REQUESTS,
    seed,
  }),
);

/** The section's default run at `delay` (ms; Infinity never lands), as the page makes it. */
const at = (core, delay) => cancelRuns.at(core, SEED, delay, RULE);
const NEVER = DELAYS[DELAYS.length - 1];

/** The runs with a cancel that never lands over SEEDS (one run's spread). */
const neverSeeds = (core) => cancelRuns(core, NEVER, RULE);
/** Duplicating's extra work when the cancel never lands, over SEEDS. */
const neverWork = (core) => neverSeeds(core).map((/** @type {any} */ r) => r.duplicateExtraWork);
/** The crossing loads when the cancel never lands, over SEEDS (each must have crossed). */
const neverCrossings = (core) =>
  neverSeeds(core).map((/** @type {any} */ r) => {
    if (r.crossingVerdict !== "crossed") throw new Error(`no crossing: ${r.crossingVerdict}`);
    return r.crossingLoad;
  });

/** A run's crossing load, which must have crossed. */
function crossingOf(/** @type {any} */ r) {
  if (r.crossingVerdict !== "crossed") throw new Error(`no crossing: ${r.crossingVerdict}`);
  return r.crossingLoad;
}
/** `read(run)` at `delay` under `rule` (the default's unless given), under each of SEEDS. */
const over = (core, delay, read, rule = RULE) => cancelRuns(core, delay, rule).map(read);

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  load: { doc: "The section's default load (fraction).", value: () => LOAD },
  "none-p99-ms": {
    doc: "p99 (ms) with no backups at the default load.",
    value: (core) => at(core, 0).noneP99,
  },
  "none-p99-low-ms": {
    doc: "The low end (ms) of its 95% interval.",
    value: (core) => at(core, 0).noneP99Low,
  },
  "none-p99-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => at(core, 0).noneP99High,
  },
  "dup-p99-0-ms": {
    doc: "p99 (ms) duplicating every request, the cancel landing at once.",
    value: (core) => at(core, 0).duplicateP99,
  },
  "dup-p99-0-low-ms": {
    doc: "The low end (ms) of its 95% interval.",
    value: (core) => at(core, 0).duplicateP99Low,
  },
  "dup-p99-0-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => at(core, 0).duplicateP99High,
  },
  ...claimRange(
    "dup-work-0",
    "duplicating's extra work (fraction) with the cancel landing at once, over SEEDS.",
    (core) => over(core, 0, (r) => r.duplicateExtraWork),
  ),

  "late-ms": { doc: "The late cancellation delay the prose quotes (ms).", value: () => LATE_MS },
  "dup-p99-late-ms": {
    doc: "p99 (ms) duplicating every request, the cancel landing after the late delay.",
    value: (core) => at(core, LATE_MS).duplicateP99,
  },
  "dup-p99-late-low-ms": {
    doc: "The low end (ms) of its 95% interval.",
    value: (core) => at(core, LATE_MS).duplicateP99Low,
  },
  "dup-p99-late-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => at(core, LATE_MS).duplicateP99High,
  },
  ...claimRange(
    "dup-work-late",
    "duplicating's extra work (fraction) with the cancel landing after the late delay, over SEEDS.",
    (core) => over(core, LATE_MS, (r) => r.duplicateExtraWork),
  ),

  "dup-work-never-expected": {
    doc: "Duplicating's extra work (fraction) when the cancel never lands, in expectation: every second copy runs its whole service, as much again as the first (closed form).",
    value: () => 1,
  },
  "dup-work-never-low": {
    doc: "The least of duplicating's simulated extra work (fraction) over the first five seeds when the cancel never lands: 1 in expectation, every copy running to its end.",
    value: (core) => Math.min(...neverWork(core)),
  },
  "dup-work-never-high": {
    doc: "The greatest of the same five runs' extra work (fraction).",
    value: (core) => Math.max(...neverWork(core)),
  },
  boundary: {
    doc: "The never-cancel stability boundary 1 / (1 + h), h = 1 (closed form).",
    value: (core) => at(core, NEVER).neverCancelBoundary,
  },
  "wins-top": {
    doc: "The top of the bisection's range, where duplicating still wins with the cancel at once (load), under each of SEEDS (the prose states one: every seed's).",
    value: (core) =>
      over(core, 0, (r) => {
        if (r.crossingVerdict !== "wins-throughout") throw new Error(r.crossingVerdict);
        return r.belowLoad;
      }),
  },

  ...claimRange(
    "crossing-late",
    "the loads at which duplicating stops winning, the cancel landing after the late delay, over SEEDS.",
    (core) => over(core, LATE_MS, crossingOf),
  ),

  "crossing-never-low": {
    doc: "The least, over the first five seeds, of the load at which duplicating stops winning when the cancel never lands.",
    value: (core) => Math.min(...neverCrossings(core)),
  },
  "crossing-never-high": {
    doc: "The greatest of those crossing loads.",
    value: (core) => Math.max(...neverCrossings(core)),
  },
  ...claimRange(
    "backup-crossing",
    "the loads at which duplicating stops winning with the cancel landing at once when only the backup is ever cancelled (the loaded section's backup rule), over SEEDS.",
    (core) => over(core, 0, crossingOf, "backup"),
  ),

  ...claimRange(
    "hedge-work-0",
    "the p95 hedge's extra work (fraction), the cancel landing at once, over SEEDS.",
    (core) => over(core, 0, (r) => r.hedgeExtraWork),
  ),

  "hedge-work-never-low": {
    doc: "The least of the p95 hedge's extra work (fraction) over SEEDS when the cancel never lands.",
    value: (core) => Math.min(...neverSeeds(core).map((/** @type {any} */ r) => r.hedgeExtraWork)),
  },

  "hedge-work-never-high": {
    doc: "The greatest of the p95 hedge's extra work (fraction) over the first five seeds when the cancel never lands.",
    value: (core) => Math.max(...neverSeeds(core).map((/** @type {any} */ r) => r.hedgeExtraWork)),
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "duplicating-wins-at-once": {
    doc: "With the cancel landing at once, duplicating's p99 interval lies wholly below no backups' at every seed judged.",
    holds: (_c, core) =>
      cancelRuns(core, 0, RULE).every((/** @type {any} */ r) => r.duplicateP99High < r.noneP99Low),
  },
  "never-crosses-below-its-boundary": {
    doc: "At every seed judged, a cancel that never lands stops winning below its stability boundary.",
    holds: (c) => c("crossing-never-high") < c("boundary"),
  },
  "a-faster-cancel-is-worth-more": {
    doc: "A late cancel still wins to a higher load than one that never lands: the lowest late crossing over the seeds above the highest never-landing one.",
    holds: (c) => c("crossing-late-low") > c("crossing-never-high"),
  },
  "stoppable-rules-still-win": {
    doc: "At every seed judged, removing a loser from its queue (queued) or stopping it outside a hiccup (either), duplicates still win throughout with the cancel landing at once; cancelling only the backup, they stop winning below the top of the range.",
    holds: (c, core) =>
      ["queued", "either"].every((rule) =>
        over(core, 0, (r) => r.crossingVerdict === "wins-throughout", rule).every(Boolean),
      ) && c("backup-crossing-high") < Math.min(...c("wins-top")),
  },
};
