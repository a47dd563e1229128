// The numbers the budget section's prose states, each computed through the API from the
// section's default run, one at a higher load and one with an undersized budget, each at the
// page's default seed and the next four (SEEDS; see web/claims.js).

import { claimRange, overSeeds, SEEDS } from "../../../claims.js";
import { outageMultiplier, outageP99 } from "./derive.js";
import { defaultOf, optionsOf, params } from "./section.js";

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

const p99s = (core, change, policy) =>
  runs(core, change).map((/** @type {any} */ r) => r[policy].p99);

/** `read(run)` of the run with `change` from the defaults, under each of SEEDS. */
const over = (core, change, read) => runs(core, change).map(read);
/** `read(run, run[policy])` of the run with `change` from the defaults, under each of SEEDS. */
const ofPolicy = (core, change, policy, read) => over(core, change, (r) => read(r, r[policy]));

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  seeds: { doc: "How many seeds the prose's ranges run over.", value: () => SEEDS.length },
  load: { doc: "The default load (fraction).", value: () => Number(defaultOf("budget-load")) },
  slowdown: {
    doc: "How many times slower the sick replica serves in the default outage.",
    value: () => Number(defaultOf("budget-slowdown")),
  },
  ratio: {
    doc: "Tokens each request adds to the bucket (the default token ratio).",
    value: () => Number(defaultOf("budget-ratio")),
  },
  ...claimRange(
    "none-outage-p99-ms",
    "the worst window p99s (ms) in the outage without backups, over SEEDS.",
    (core) => ofPolicy(core, {}, "none", outageP99),
  ),
  ...claimRange(
    "hedge-outage-p99-ms",
    "the worst window p99s (ms) in the outage with the plain hedge, over SEEDS.",
    (core) => ofPolicy(core, {}, "hedge", outageP99),
  ),
  ...claimRange(
    "hedge-multiplier",
    "the copies sent per request in the outage's windows with the plain hedge (mean), over SEEDS.",
    (core) => ofPolicy(core, {}, "hedge", outageMultiplier),
  ),
  ...claimRange(
    "hedge-fraction",
    "the plain hedge's share of requests that sent a backup over the whole run, over SEEDS.",
    (core) => over(core, {}, (r) => r.hedge.hedgeFraction),
  ),
  ...claimRange(
    "budgeted-fraction",
    "the budgeted hedge's share of requests that sent a backup over the whole run, over SEEDS.",
    (core) => over(core, {}, (r) => r.budgeted.hedgeFraction),
  ),
  bound: {
    doc: "The bucket's bound on that share, the ratio plus half a bucket over the requests, under each of SEEDS (the prose states one: every seed's).",
    value: (core) => over(core, {}, (r) => r.hedgeFractionBound),
  },
  ...claimRange(
    "budgeted-outage-p99-ms",
    "the worst window p99s (ms) in the outage with the budgeted hedge, over SEEDS.",
    (core) => ofPolicy(core, {}, "budgeted", outageP99),
  ),
  ...claimRange(
    "budgeted-p99-ms",
    "the budgeted hedge's p99s (ms) over the whole run, over SEEDS, at the default settings.",
    (core) => p99s(core, {}, "budgeted"),
  ),
  ...claimRange(
    "hedge-p99-ms",
    "the plain hedge's p99s (ms) over the whole run, over SEEDS.",
    (core) => p99s(core, {}, "hedge"),
  ),
  "small-ratio": {
    doc: "The undersized budget's token ratio: the plain hedge's own rate, with no room for a failure domain.",
    value: () => SMALL_RATIO,
  },
  "small-multiplier": {
    doc: "Copies sent per request in the outage's windows with the undersized budget (mean), under each of SEEDS (the prose states one: every seed's).",
    value: (core) => ofPolicy(core, SMALL, "budgeted", outageMultiplier),
  },
  ...claimRange(
    "small-outage-p99-ms",
    "the worst window p99s (ms) in the outage with the undersized budget, over SEEDS.",
    (core) => ofPolicy(core, SMALL, "budgeted", outageP99),
  ),
  ...claimRange(
    "small-p99-ms",
    "the undersized budget's p99s (ms) over the whole run, over SEEDS.",
    (core) => p99s(core, SMALL, "budgeted"),
  ),
  ...claimRange(
    "hedge-extra-work",
    "the plain hedge's backups' server time over the primaries' (fraction), over SEEDS.",
    (core) => over(core, {}, (r) => r.hedge.extraWork),
  ),
  "high-load": { doc: "The higher load the prose examines (fraction).", value: () => HIGH_LOAD },
  ...claimRange(
    "high-disabled-suppressed",
    "the shares of hedges the disable switch refused at the higher load (of those due), over SEEDS.",
    (core) =>
      over(core, HIGH, (r) => r.disabled.suppressed / (r.disabled.suppressed + r.disabled.backups)),
  ),
  ...claimRange(
    "high-hedge-p99-ms",
    "the plain hedge's p99s (ms) at the higher load, over SEEDS.",
    (core) => p99s(core, HIGH, "hedge"),
  ),
  ...claimRange(
    "high-disabled-p99-ms",
    "the disable switch's p99s (ms) at the higher load, over SEEDS.",
    (core) => p99s(core, HIGH, "disabled"),
  ),
  ...claimRange(
    "high-none-p99-ms",
    "the p99s (ms) without backups at the higher load, over SEEDS.",
    (core) => p99s(core, HIGH, "none"),
  ),
  "high-disabled-above-none-seeds": {
    doc: "Of SEEDS, how many have the disable switch's p99 above no backups' at the higher load.",
    value: (core) => over(core, HIGH, (r) => r.disabled.p99 > r.none.p99).filter(Boolean).length,
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "sizing-matters-at-every-seed": {
    doc: "At every seed judged the default budget's p99 stays below the undersized budget's least.",
    holds: (c) => c("budgeted-p99-ms-high") < c("small-p99-ms-low"),
  },
  "the-budget-holds-its-bound": {
    doc: "At every seed judged the budgeted hedge sends no more copies than its bound.",
    holds: (_c, core) =>
      over(core, {}, (r) => r.budgeted.hedgeFraction <= r.hedgeFractionBound).every(Boolean),
  },
  "the-hedge-rescues-the-outage": {
    doc: "At every seed judged the plain hedge's worst outage window stays far below no backups': its highest under a tenth of their lowest.",
    holds: (c) => 10 * c("hedge-outage-p99-ms-high") < c("none-outage-p99-ms-low"),
  },
  "the-undersized-budget-holds-the-copies": {
    doc: "The undersized budget sends fewer copies through the outage than the plain hedge, at every seed judged.",
    holds: (c) => Math.max(...c("small-multiplier")) < c("hedge-multiplier-low"),
  },
  "the-hedge-wins-at-the-higher-load": {
    doc: "At the higher load the plain hedge's p99 stays far below no backups' at every seed judged.",
    holds: (_c, core) =>
      runs(core, HIGH).every((/** @type {any} */ r) => 10 * r.hedge.p99 < r.none.p99),
  },
};
