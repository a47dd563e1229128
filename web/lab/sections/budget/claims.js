// The numbers the budget section's prose states, each computed through the API from the
// section's default run (and one at a higher load; see web/claims.js).

import { overSeeds, SEEDS } from "../../../claims.js";
import { SEED_PARAM } from "../../seed.js";
import { outageMultiplier, outageP99 } from "./derive.js";
import { defaultOf, optionsOf, params } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;

/** The higher load (fraction) at which the prose shows the disable switch's utilisation rule. */
export const HIGH_LOAD = 0.8;

const DEFAULTS = Object.fromEntries(params.map((p) => [p.name, p.default]));

/** A budget sized at the plain hedge's own rate, with no room for one sick replica. */
const SMALL_RATIO = 0.15;
/** The settings the prose changes from the defaults: the higher load, the undersized budget. */
const HIGH = { "budget-load": HIGH_LOAD };
const SMALL = { "budget-ratio": SMALL_RATIO };

/** The section's run with the settings `change` from the defaults, under each of SEEDS. */
const runs = overSeeds(SEEDS, (core, seed, change) =>
  core.simulateBudget(optionsOf({ ...DEFAULTS, ...change }, seed)),
);
/** The section's default run (`change` from the defaults) at the page's seed. */
const run = (core, change = {}) => runs.at(core, SEED, change);
/** The same with the undersized budget. */
const small = (core) => run(core, SMALL);

const p99s = (core, change, policy) =>
  runs(core, change).map((/** @type {any} */ r) => r[policy].p99);

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  seeds: { doc: "How many seeds the prose's ranges run over.", value: () => SEEDS.length },
  "budgeted-p99-low-ms": {
    doc: "The least of the budgeted hedge's p99 (ms) over those seeds, at the default settings.",
    value: (core) => Math.min(...p99s(core, {}, "budgeted")),
  },
  "budgeted-p99-high-ms": {
    doc: "The greatest of them (ms).",
    value: (core) => Math.max(...p99s(core, {}, "budgeted")),
  },
  "small-p99-low-ms": {
    doc: "The least of the undersized budget's p99 (ms) over those seeds.",
    value: (core) => Math.min(...p99s(core, SMALL, "budgeted")),
  },
  "high-disabled-above-none-seeds": {
    doc: "Of those seeds, how many have the disable switch's p99 above no backups' at the higher load.",
    value: (core) => {
      const high = runs(core, HIGH);
      return high.filter((/** @type {any} */ r) => r.disabled.p99 > r.none.p99).length;
    },
  },
  "high-hedge-p99-high-ms": {
    doc: "The greatest of the plain hedge's p99 (ms) over those seeds at the higher load.",
    value: (core) => Math.max(...p99s(core, HIGH, "hedge")),
  },
  load: { doc: "The default load (fraction).", value: () => Number(defaultOf("budget-load")) },
  slowdown: {
    doc: "How many times slower the sick replica serves in the default outage.",
    value: () => Number(defaultOf("budget-slowdown")),
  },
  ratio: {
    doc: "Tokens each request adds to the bucket (the default token ratio).",
    value: () => Number(defaultOf("budget-ratio")),
  },
  "none-outage-p99-ms": {
    doc: "The worst window p99 (ms) in the outage without backups.",
    value: (core) => outageP99(run(core), run(core).none),
  },
  "hedge-outage-p99-ms": {
    doc: "The worst window p99 (ms) in the outage with the plain hedge.",
    value: (core) => outageP99(run(core), run(core).hedge),
  },
  "budgeted-outage-p99-ms": {
    doc: "The worst window p99 (ms) in the outage with the budgeted hedge.",
    value: (core) => outageP99(run(core), run(core).budgeted),
  },
  "hedge-multiplier": {
    doc: "Copies sent per request in the outage's windows with the plain hedge (mean).",
    value: (core) => outageMultiplier(run(core), run(core).hedge),
  },
  "small-ratio": {
    doc: "The undersized budget's token ratio: the plain hedge's own rate, with no room for a failure domain.",
    value: () => SMALL_RATIO,
  },
  "small-multiplier": {
    doc: "Copies sent per request in the outage's windows with the undersized budget (mean).",
    value: (core) => outageMultiplier(small(core), small(core).budgeted),
  },
  "small-outage-p99-ms": {
    doc: "The worst window p99 (ms) in the outage with the undersized budget.",
    value: (core) => outageP99(small(core), small(core).budgeted),
  },
  "small-p99-ms": {
    doc: "The undersized budget's p99 (ms) over the whole run.",
    value: (core) => small(core).budgeted.p99,
  },
  "hedge-fraction": {
    doc: "The plain hedge's share of requests that sent a backup, over the whole run.",
    value: (core) => run(core).hedge.hedgeFraction,
  },
  "budgeted-fraction": {
    doc: "The budgeted hedge's share of requests that sent a backup, over the whole run.",
    value: (core) => run(core).budgeted.hedgeFraction,
  },
  bound: {
    doc: "The bucket's bound on that share: the ratio plus half a bucket over the requests.",
    value: (core) => run(core).hedgeFractionBound,
  },
  "hedge-p99-ms": {
    doc: "The plain hedge's p99 (ms) over the whole run.",
    value: (core) => run(core).hedge.p99,
  },
  "budgeted-p99-ms": {
    doc: "The budgeted hedge's p99 (ms) over the whole run.",
    value: (core) => run(core).budgeted.p99,
  },
  "hedge-extra-work": {
    doc: "The plain hedge's backups' server time over the primaries' (fraction).",
    value: (core) => run(core).hedge.extraWork,
  },
  "high-load": { doc: "The higher load the prose examines (fraction).", value: () => HIGH_LOAD },
  "high-hedge-p99-ms": {
    doc: "The plain hedge's p99 (ms) at the higher load.",
    value: (core) => run(core, HIGH).hedge.p99,
  },
  "high-disabled-p99-ms": {
    doc: "The disable switch's p99 (ms) at the higher load.",
    value: (core) => run(core, HIGH).disabled.p99,
  },
  "high-disabled-suppressed": {
    doc: "The share of hedges the disable switch refused at the higher load (of those due).",
    value: (core) => {
      const d = run(core, HIGH).disabled;
      return d.suppressed / (d.suppressed + d.backups);
    },
  },
  "high-none-p99-ms": {
    doc: "The p99 (ms) without backups at the higher load.",
    value: (core) => run(core, HIGH).none.p99,
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "sizing-matters-at-every-seed": {
    doc: "At every seed judged the default budget's p99 stays below the undersized budget's least.",
    holds: (c) => c("budgeted-p99-high-ms") < c("small-p99-low-ms"),
  },
  "the-budget-holds-its-bound": {
    doc: "The budgeted hedge sends no more copies than its bound.",
    holds: (c) => c("budgeted-fraction") <= c("bound"),
  },
  "the-hedge-wins-at-the-higher-load": {
    doc: "At the higher load the plain hedge's p99 stays far below no backups' at every seed judged.",
    holds: (_c, core) =>
      runs(core, HIGH).every((/** @type {any} */ r) => 10 * r.hedge.p99 < r.none.p99),
  },
};
