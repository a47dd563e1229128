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
