// The numbers the Tail page's prose states, each computed through the API at the page's default
// settings (see web/claims.js).

import { tailParams } from "./piece.js";

/** The page's default fan-out and profile. */
function defaults(core) {
  const spec = (name) => tailParams(core).find((s) => s.name === name).default;
  const profile = core.profiles().find((p) => p.name === spec("profile"));
  return { n: Number(spec("fanout")), pause: profile.pause.probability };
}

/** The smallest fan-out at which the fix named `fix` drops at least one leaf. */
function firstDroppingFanout(core, fix) {
  const first = core.droppedLeaves(fix, 1).firstFanout;
  if (first === null) throw new RangeError(`${fix} drops no leaf at any fan-out`);
  return first;
}

/**
 * The correlated-stragglers passage's setting (the Lab's `correlated` section, on the Lab's own
 * service model): n leaves, each slow above its (1 − p)-quantile, a hedge at the leaf's p95.
 */
const CORR = { n: 100, p: 0.01, half: 0.5, drop5: 0.05 };
/** The closed forms of the correlated model at leaf correlation `c`, with `more` options. */
const corr = (core, c, more = {}) =>
  core.correlatedTheory({ n: CORR.n, p: CORR.p, drop: CORR.p, delayQ: 0.95, c, cr: 0, ...more });

/** @type {Record<string, import("../claims.js").Claim>} */
export const claims = {
  n: { doc: "The page's default fan-out.", value: (core) => defaults(core).n },
  "pause-p": {
    doc: "The default profile's chance (fraction) that a leaf pauses.",
    value: (core) => defaults(core).pause,
  },
  "pause-share": {
    doc: "The share of requests with at least one paused leaf at the default fan-out.",
    value: (core) => core.slowShare(defaults(core).pause, defaults(core).n),
  },
  "fast-share": {
    doc: "The share of requests in which no leaf paused: the fast hump's share.",
    value: (core) => 1 - core.slowShare(defaults(core).pause, defaults(core).n),
  },
  "median-rank": {
    doc: "The leaf quantile level (fraction) equal to the parent's median at the default fan-out.",
    value: (core) => core.parentLevel(0.5, defaults(core).n),
  },
  "p99-rank": {
    doc: "The leaf quantile level (fraction) equal to the parent's p99 at the default fan-out.",
    value: (core) => core.parentLevel(0.99, defaults(core).n),
  },
  "crossover-n": {
    doc: "The smallest fan-out at which the parent's median reaches the leaf's p99.",
    value: (core) => core.crossover(0.5, 0.99),
  },
  "drop1-first-fanout": {
    doc: "The smallest fan-out at which dropping the slowest 1% drops a leaf.",
    value: (core) => firstDroppingFanout(core, "drop-1"),
  },
  "drop5-first-fanout": {
    doc: "The smallest fan-out at which dropping the slowest 5% drops a leaf.",
    value: (core) => firstDroppingFanout(core, "drop-5"),
  },
  "corr-n": { doc: "The correlated passage's fan-out.", value: () => CORR.n },
  "corr-p": {
    doc: "The correlated passage's slow level (a leaf is slow above its (1 − p)-quantile), also the share the first drop discards.",
    value: () => CORR.p,
  },
  "corr-half": {
    doc: "The correlated passage's middle leaf correlation (and replica correlation).",
    value: () => CORR.half,
  },
  "corr-slow-c0": {
    doc: "Share of requests with a slow leaf, leaves independent (c = 0).",
    value: (core) => corr(core, 0).none.slowShare,
  },
  "corr-slow-half": {
    doc: "Share of requests with a slow leaf at leaf correlation one half.",
    value: (core) => corr(core, CORR.half).none.slowShare,
  },
  "corr-slow-c1": {
    doc: "Share of requests with a slow leaf when every leaf shares the episode (c = 1).",
    value: (core) => corr(core, 1).none.slowShare,
  },
  "corr-drop1-c0": {
    doc: "Share of requests still slow after dropping the slowest 1% of leaves, c = 0.",
    value: (core) => corr(core, 0).drop.slowShare,
  },
  "corr-drop1-half": {
    doc: "Share of requests still slow after dropping the slowest 1% of leaves, c = one half.",
    value: (core) => corr(core, CORR.half).drop.slowShare,
  },
  "corr-drop5": { doc: "The second drop's share of leaves.", value: () => CORR.drop5 },
  "corr-drop5-c0": {
    doc: "Share of requests still slow after dropping the slowest 5% of leaves, c = 0.",
    value: (core) => corr(core, 0, { drop: CORR.drop5 }).drop.slowShare,
  },
  "corr-drop5-half": {
    doc: "Share of requests still slow after dropping the slowest 5% of leaves, c = one half.",
    value: (core) => corr(core, CORR.half, { drop: CORR.drop5 }).drop.slowShare,
  },
  "corr-drop5-ratio": {
    doc: "How many times as many requests stay slow after the 5% drop at c = one half as at c = 0.",
    value: (core) =>
      corr(core, CORR.half, { drop: CORR.drop5 }).drop.slowShare /
      corr(core, 0, { drop: CORR.drop5 }).drop.slowShare,
  },
  "corr-hedge-c0": {
    doc: "Share of requests slow with a p95 hedge whose backups are independent, c = 0.",
    value: (core) => corr(core, 0).hedge.slowShare,
  },
  "corr-hedge-leaves-half": {
    doc: "Share of requests slow with a p95 hedge at leaf correlation one half, backups independent (replica correlation 0).",
    value: (core) => corr(core, CORR.half).hedge.slowShare,
  },
  "corr-hedge-replicas-half": {
    doc: "Share of requests slow with a p95 hedge at replica correlation one half, leaves independent.",
    value: (core) => corr(core, 0, { cr: CORR.half }).hedge.slowShare,
  },
  "corr-hedge-half": {
    doc: "Share of requests slow with a p95 hedge at leaf and replica correlation one half.",
    value: (core) => corr(core, CORR.half, { cr: CORR.half }).hedge.slowShare,
  },
  "hump-ratio": {
    doc: "The fast hump's share over the slow hump's (source 002 calls 0.995¹⁰⁰ the ratio).",
    value: (core) => {
      const slow = core.slowShare(defaults(core).pause, defaults(core).n);
      return (1 - slow) / slow;
    },
  },
};

/**
 * The claims that follow the page's fan-out slider (web/claims.js's followClaims), at the
 * settings `values`: the fan-out itself, the shares of requests with and without a paused leaf
 * (the prose says "on the default profile", so its pause probability stays the default's) and
 * the leaf percentiles the parent's median and p99 sit at. The rest are constants of the core.
 * @param {Record<string, any>} values
 * @param {any} api the core
 */
export function live(values, api) {
  const n = Number(values.fanout);
  const pause = defaults(api).pause;
  const slow = api.slowShare(pause, n);
  return {
    n,
    "pause-share": slow,
    "fast-share": 1 - slow,
    "median-rank": api.parentLevel(0.5, n),
    "p99-rank": api.parentLevel(0.99, n),
  };
}
