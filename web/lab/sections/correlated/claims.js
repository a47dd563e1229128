// The numbers the correlated-stragglers section's prose states, each computed through the API's
// closed forms at the section's default settings (see web/claims.js).

import { optionsOf, params } from "./section.js";

/** The section's default settings. */
const DEFAULTS = Object.fromEntries(params.map((s) => [s.name, s.default]));
const OPTIONS = optionsOf(DEFAULTS);

/** The closed forms at the defaults, with `change` applied (`{ c: 0 }` is independence). */
const at = (core, change = {}) => core.correlatedTheory({ ...OPTIONS, ...change });
/** The hedge's p99 gain (without over with) at the defaults with `change`. */
const gain = (core, change) => {
  const t = at(core, change);
  return t.none.p99 / t.hedge.p99;
};

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  n: { doc: "The default fan-out: leaves per request.", value: () => OPTIONS.n },
  c: {
    doc: "The default leaf correlation (fraction of leaves that take the episode).",
    value: () => OPTIONS.c,
  },
  cr: {
    doc: "The default replica correlation (fraction of backups that land in their primary's episode).",
    value: () => OPTIONS.cr,
  },
  "episode-leaves": {
    doc: "Leaves an episode makes slow together on average at the defaults: c · n.",
    value: () => OPTIONS.c * OPTIONS.n,
  },
  "slow-indep": {
    doc: "Share of requests with a slow leaf when leaves are independent (c = 0), no fix.",
    value: (core) => at(core, { c: 0 }).none.slowShare,
  },
  "slow-corr": {
    doc: "Share of requests with a slow leaf at the default c, no fix.",
    value: (core) => at(core).none.slowShare,
  },
  "drop1-indep": {
    doc: "Share of requests still slow after dropping the one slowest leaf, at c = 0.",
    value: (core) => at(core, { c: 0, drop: 1 / OPTIONS.n }).drop.slowShare,
  },
  "drop1-corr": {
    doc: "Share of requests still slow after dropping the one slowest leaf, at the default c.",
    value: (core) => at(core, { drop: 1 / OPTIONS.n }).drop.slowShare,
  },
  "drop-helped-last": {
    doc: "The most leaves dropped (counting up from one) for which correlated leaves at the default c leave no more requests slow than independent ones.",
    value: (core) => {
      let k = 0;
      while (k + 1 <= OPTIONS.n / 2) {
        const drop = (k + 1) / OPTIONS.n;
        const corr = at(core, { drop }).drop.slowShare;
        const indep = at(core, { c: 0, drop }).drop.slowShare;
        if (corr > indep) break;
        k += 1;
      }
      return k;
    },
  },
  dropped: {
    doc: "Leaves the partial-results parent drops at the defaults.",
    value: (core) => at(core).dropped,
  },
  "drop-indep": {
    doc: "Share of requests still slow after dropping the slowest leaves, at c = 0.",
    value: (core) => at(core, { c: 0 }).drop.slowShare,
  },
  "drop-corr": {
    doc: "Share of requests still slow after dropping the slowest leaves, at the default c.",
    value: (core) => at(core).drop.slowShare,
  },
  "drop-ratio": {
    doc: "How many times as many requests stay slow after the drop at the default c as at c = 0.",
    value: (core) => at(core).drop.slowShare / at(core, { c: 0 }).drop.slowShare,
  },
  "hedge-indep": {
    doc: "Share of requests slow with the hedge when leaves are independent (c = 0) and so are backups (cᵣ = 0).",
    value: (core) => at(core, { c: 0, cr: 0 }).hedge.slowShare,
  },
  "hedge-cr-only": {
    doc: "Share of requests slow with the hedge at the default cᵣ with independent leaves (c = 0): replica correlation alone.",
    value: (core) => at(core, { c: 0 }).hedge.slowShare,
  },
  "hedge-free": {
    doc: "Share of requests slow at the default c when every backup is independent (cᵣ = 0), hedged.",
    value: (core) => at(core, { cr: 0 }).hedge.slowShare,
  },
  "hedge-corr": {
    doc: "Share of requests slow at the default c and cᵣ, hedged.",
    value: (core) => at(core).hedge.slowShare,
  },
  "gain-free": {
    doc: "The hedge's p99 gain (without ÷ with) at the default c with independent backups.",
    value: (core) => gain(core, { cr: 0 }),
  },
  "gain-corr": {
    doc: "The hedge's p99 gain at the default c and cᵣ.",
    value: (core) => gain(core, {}),
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "shallow-drop-helped": {
    doc: "Dropping the slowest leaf leaves fewer requests slow with correlated leaves than with independent ones.",
    holds: (c) => c("drop1-corr") < c("drop1-indep"),
  },
  "deep-drop-hurt": {
    doc: "Dropping the default number of leaves leaves more requests slow with correlated leaves.",
    holds: (c) => c("drop-corr") > c("drop-indep") && c("dropped") > c("drop-helped-last"),
  },
  "hedge-barely-moved-by-c": {
    doc: "With independent backups, leaf correlation moves the hedged slow share by less than a tenth of it.",
    holds: (c) => Math.abs(c("hedge-free") - c("hedge-indep")) < 0.1 * c("hedge-indep"),
  },
  "replicas-defeat-the-hedge": {
    doc: "Replica correlation leaves many times more requests slow than the hedge with independent backups, with or without leaf correlation.",
    holds: (c) =>
      c("hedge-corr") > 10 * c("hedge-free") && c("hedge-cr-only") > 10 * c("hedge-indep"),
  },
};
