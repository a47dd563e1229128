// The numbers the balancer section's prose states, each computed through the API from the
// section's default runs (see web/claims.js).

import { claimRange, SEEDS } from "../../../claims.js";
import { SEED_PARAM } from "../../seed.js";
import { ARRIVALS, LAMBDAS, params, QUOTED_LAMBDA, RUN_ARRIVALS, SERVERS } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;
const def = (name) => Number(params.find((s) => s.name === name)?.default);
/** The page's default refresh period, and a short one where the stale signal still helps. */
const STALENESS = def("bal-staleness");
const SHORT = 5;
/** The slow server's factor the prose quotes (the page's default is 1: identical servers). */
const SLOW = 5;
/** Runs the prose averages random's p99 over. */
const REPLICAS = 20;
/** The peak-EWMA's blind spot the prose quotes: balancers, slow factor, λ. */
const FORGET = { clients: 20, slowFactor: 10, lambda: 0.7 };

/** Finagle's default peak-EWMA decay (ms), and a service time (ms) to count it in. */
const FINAGLE_DECAY_MS = 10_000;
const FINAGLE_SERVICE_MS = 10;

const runs = new WeakMap();
/** The shorter run random's growing mean is quoted at. */
const SHORT_ARRIVALS = 50_000;

/** The blind-spot example's options, at the page's run length for its λ. */
const forget = () => ({
  ...FORGET,
  arrivals: RUN_ARRIVALS[LAMBDAS.indexOf(FORGET.lambda)],
});

/** Random's means with the slow server after `arrivals`, over SEEDS; each must be flagged unbounded. */
const unboundedMeans = (core, arrivals) =>
  over(core, "random", { slowFactor: SLOW, arrivals }, (r) => {
    if (!r.unbounded) throw new Error("random with the slow server should be unbounded");
    return r.mean;
  });

/** The section's run of `signal` at λ = QUOTED_LAMBDA with `extra` options, as the page makes it. */
function at(core, signal, extra = {}) {
  if (!runs.has(core)) runs.set(core, new Map());
  const cache = runs.get(core);
  const key = JSON.stringify([signal, extra]);
  if (!cache.has(key))
    cache.set(
      key,
      core.simulateBalancerSignals({
        signal,
        lambda: QUOTED_LAMBDA,
        d: def("bal-d"),
        staleness: STALENESS,
        slowFactor: def("bal-slow"),
        clients: def("bal-clients"),
        arrivals: ARRIVALS,
        seed: SEED,
        ...extra,
      }),
    );
  return cache.get(key);
}

/**
 * `read(run)` of `signal` at λ = QUOTED_LAMBDA with `extra` options under each of SEEDS (the
 * page's seed's run is `at`'s own).
 */
const over = (core, signal, extra, read) =>
  SEEDS.map((seed) => at(core, signal, seed === SEED ? extra : { ...extra, seed })).map(read);
/** The slow server's load under `signal`, over SEEDS (`extra` on top of the slow server). */
const slowLoads = (core, signal, extra = { slowFactor: SLOW }) =>
  over(core, signal, extra, (r) => r.slowLoad);
/** The peak-EWMA's p99 with identical servers and with the slow one, paired by seed. */
const ewmaP99s = (core) => [
  over(core, "ewma", {}, (r) => r.p99),
  over(core, "ewma", { slowFactor: SLOW }, (r) => r.p99),
];
/** The peak-EWMA's p99 rise with the slow server, paired by seed (service times). */
const ewmaRises = (core) => {
  const [same, slow] = ewmaP99s(core);
  return slow.map((p, i) => p - same[i]);
};
/** Random assignment's p99 at the quoted λ in REPLICAS runs with other seeds (the page's seed + 1
 * onwards). */
const replicaP99s = (core) =>
  Array.from({ length: REPLICAS }, (_, i) => at(core, "random", { seed: SEED + i + 1 }).p99);
/** The three signals that read the servers. */
const READERS = ["fresh", "stale", "ewma"];
/** `run.slowLoad` of the blind-spot example under `signal` with `extra`, over SEEDS; each run
 * must be `unbounded` as said. */
const forgetLoads = (core, signal, extra, unbounded) =>
  over(core, signal, { ...forget(), ...extra }, (r) => {
    if (r.unbounded !== unbounded)
      throw new Error(
        `the blind-spot run of ${signal} should${unbounded ? "" : " not"} be unbounded`,
      );
    return r.slowLoad;
  });

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  servers: { doc: "Servers (the page's and the API's default).", value: () => SERVERS },
  lambda: { doc: "The arrival rate per server the prose quotes.", value: () => QUOTED_LAMBDA },
  staleness: { doc: "The page's default refresh period (service times).", value: () => STALENESS },
  short: { doc: "The short refresh period the prose quotes (service times).", value: () => SHORT },
  "fresh-mean": {
    doc: "Best of two on fresh queue lengths: mean time in system at the quoted λ.",
    value: (core) => at(core, "fresh").mean,
  },
  "fresh-mean-low": {
    doc: "The low end of fresh best of two's mean's 95% interval.",
    value: (core) => at(core, "fresh").meanLow,
  },
  "fresh-mean-high": {
    doc: "Its high end.",
    value: (core) => at(core, "fresh").meanHigh,
  },

  "fixed-point": {
    doc: "The supermarket fixed point at the quoted λ, d = 2.",
    value: (core) => at(core, "fresh").fixedPoint,
  },
  "stale-mean": {
    doc: "Best of two on queue lengths refreshed every default period: mean at the quoted λ.",
    value: (core) => at(core, "stale").mean,
  },
  "stale-mean-low": {
    doc: "The low end of the stale lengths' mean's 95% interval.",
    value: (core) => at(core, "stale").meanLow,
  },
  "stale-mean-high": {
    doc: "Its high end.",
    value: (core) => at(core, "stale").meanHigh,
  },

  "stale-short-mean": {
    doc: "The same, refreshed every short period.",
    value: (core) => at(core, "stale", { staleness: SHORT }).mean,
  },
  "stale-short-mean-low": {
    doc: "The low end of the short refresh's mean's 95% interval.",
    value: (core) => at(core, "stale", { staleness: SHORT }).meanLow,
  },
  "stale-short-mean-high": {
    doc: "Its high end.",
    value: (core) => at(core, "stale", { staleness: SHORT }).meanHigh,
  },

  "random-mean": {
    doc: "Random assignment: mean at the quoted λ.",
    value: (core) => at(core, "random").mean,
  },
  "random-mean-low": {
    doc: "The low end of random assignment's mean's 95% interval.",
    value: (core) => at(core, "random").meanLow,
  },
  "random-mean-high": {
    doc: "Its high end.",
    value: (core) => at(core, "random").meanHigh,
  },

  "random-theory": {
    doc: "Random assignment's closed form at the quoted λ, 1/(1 − λ).",
    value: (core) => at(core, "random").randomTheory,
  },
  "fresh-p99": {
    doc: "Best of two on fresh queue lengths: p99 time in system at the quoted λ.",
    value: (core) => at(core, "fresh").p99,
  },
  "fresh-p99-low": {
    doc: "The low end of fresh best of two's p99's 95% interval.",
    value: (core) => at(core, "fresh").p99Low,
  },
  "fresh-p99-high": {
    doc: "Its high end.",
    value: (core) => at(core, "fresh").p99High,
  },

  "fixed-point-p99": {
    doc: "The supermarket fixed point's p99 at the quoted λ, d = 2.",
    value: (core) => at(core, "fresh").fixedPointP99,
  },
  "random-p99": {
    doc: "Random assignment: p99 at the quoted λ.",
    value: (core) => at(core, "random").p99,
  },
  "random-p99-low": {
    doc: "The low end of random's p99 95% interval at the quoted λ.",
    value: (core) => at(core, "random").p99Low,
  },
  "random-p99-high": {
    doc: "Its high end.",
    value: (core) => at(core, "random").p99High,
  },
  "random-theory-p99": {
    doc: "Random assignment's closed-form p99 at the quoted λ, ln 100/(1 − λ).",
    value: (core) => at(core, "random").randomTheoryP99,
  },
  replicas: { doc: "Runs the prose averages random's p99 over.", value: () => REPLICAS },
  "random-p99-average": {
    doc: "Random assignment's p99 at the quoted λ, averaged over REPLICAS runs with other seeds (the page's seed + 1 onwards).",
    value: (core) => {
      const p99s = replicaP99s(core);
      return p99s.reduce((a, b) => a + b, 0) / p99s.length;
    },
  },
  ...claimRange(
    "random-p99-replica",
    "random assignment's p99s at the quoted λ over those REPLICAS runs.",
    (core) => replicaP99s(core),
  ),
  "stale-p99": {
    doc: "Best of two on lengths refreshed every default period: p99 at the quoted λ.",
    value: (core) => at(core, "stale").p99,
  },
  "stale-p99-low": {
    doc: "The low end of the stale lengths' p99's 95% interval.",
    value: (core) => at(core, "stale").p99Low,
  },
  "stale-p99-high": {
    doc: "Its high end.",
    value: (core) => at(core, "stale").p99High,
  },

  arrivals: { doc: "Arrivals a run at the quoted λ (the page's runs).", value: () => ARRIVALS },
  slow: { doc: "The slow server's factor the prose quotes.", value: () => SLOW },
  ...claimRange(
    "random-slow-load",
    "the loads random assignment offers the slow server, over SEEDS.",
    (core) => slowLoads(core, "random"),
  ),

  "short-arrivals": {
    doc: "The shorter run the prose quotes random's growing mean at.",
    value: () => SHORT_ARRIVALS,
  },
  ...claimRange(
    "random-slow-mean-short",
    "random's means (service times) with the slow server after the shorter run, over SEEDS.",
    (core) => unboundedMeans(core, SHORT_ARRIVALS),
  ),

  ...claimRange(
    "random-slow-mean",
    "random's means (service times) with the slow server after the page's run, over SEEDS, unbounded too.",
    (core) => unboundedMeans(core, ARRIVALS),
  ),

  ...claimRange(
    "ewma-p99",
    "the peak-EWMA's p99s (service times) with identical servers, over SEEDS.",
    (core) => ewmaP99s(core)[0],
  ),

  tau: {
    doc: "The peak-EWMA's decay time the runs use (the API's default).",
    value: (core) => at(core, "ewma").tau,
  },
  "forget-clients": { doc: "Balancers in the blind-spot example.", value: () => FORGET.clients },
  "forget-slow": {
    doc: "The slow factor in the blind-spot example.",
    value: () => FORGET.slowFactor,
  },
  "forget-lambda": { doc: "λ in the blind-spot example.", value: () => FORGET.lambda },
  ...claimRange(
    "forget-load",
    "the loads the peak-EWMA balancers send the slow server in the blind-spot example, at the page's run length for that λ, over SEEDS; each run must be flagged unbounded.",
    (core) => forgetLoads(core, "ewma", {}, true),
  ),

  ...claimRange(
    "forget-fresh-load",
    "the loads fresh best of two sends the slow server in the blind-spot example, over SEEDS; none unbounded.",
    (core) => forgetLoads(core, "fresh", {}, false),
  ),

  "finagle-decay-s": {
    doc: "Finagle's default peak-EWMA decay time, in seconds (Balancers.p2cPeakEwma's decayTime).",
    value: () => FINAGLE_DECAY_MS / 1000,
  },
  "finagle-service-ms": {
    doc: "The service time (ms) the prose turns that decay into service times with.",
    value: () => FINAGLE_SERVICE_MS,
  },
  "finagle-tau": {
    doc: "Finagle's default decay in service times of that service.",
    value: () => FINAGLE_DECAY_MS / FINAGLE_SERVICE_MS,
  },
  ...claimRange(
    "forget-long-tau-load",
    "the loads the peak-EWMA balancers send the slow server in the blind-spot example with Finagle's decay in service times, over SEEDS; each run settles.",
    (core) => forgetLoads(core, "ewma", { tau: FINAGLE_DECAY_MS / FINAGLE_SERVICE_MS }, false),
  ),

  "rr-slow-load": {
    doc: "The load round robin offers the slow server, under each of SEEDS (the prose states one: every seed's).",
    value: (core) => slowLoads(core, "round-robin"),
  },

  ...claimRange("ewma-slow-load", "the loads ewma offers the slow server, over SEEDS.", (core) =>
    slowLoads(core, "ewma"),
  ),

  ...claimRange(
    "ewma-slow-p99",
    "the peak-EWMA's p99s (service times) with the slow server, over SEEDS.",
    (core) => ewmaP99s(core)[1],
  ),
  ...claimRange(
    "ewma-p99-rise",
    "the peak-EWMA's p99 rises (service times) with the slow server, paired by seed over SEEDS.",
    ewmaRises,
  ),

  ...claimRange("fresh-slow-load", "the loads fresh offers the slow server, over SEEDS.", (core) =>
    slowLoads(core, "fresh"),
  ),

  ...claimRange("stale-slow-load", "the loads stale offers the slow server, over SEEDS.", (core) =>
    slowLoads(core, "stale"),
  ),
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "random-mean-bar-holds-m-m-1": {
    doc: "Random assignment's mean interval holds M/M/1's mean.",
    holds: (c) =>
      c("random-mean-low") <= c("random-theory") && c("random-theory") <= c("random-mean-high"),
  },
  "short-refresh-still-helps": {
    doc: "Refreshed every short period, the stale lengths' mean interval lies wholly below random's.",
    holds: (c) => c("stale-short-mean-high") < c("random-mean-low"),
  },
  "long-refresh-is-worse-than-random": {
    doc: "Refreshed every default period, the stale lengths' mean interval lies wholly above random's.",
    holds: (c) => c("stale-mean-low") > c("random-mean-high"),
  },
  "the-herd-p99-is-random-assignments": {
    doc: "The herd's p99 interval holds M/M/1's p99 (random assignment's in theory).",
    holds: (c) =>
      c("stale-p99-low") <= c("random-theory-p99") && c("random-theory-p99") <= c("stale-p99-high"),
  },
  "fresh-near-the-fixed-point": {
    doc: "The fixed point's mean and p99 lie inside fresh best of two's intervals.",
    holds: (_c, core) => {
      const r = at(core, "fresh");
      return (
        r.meanLow <= r.fixedPoint &&
        r.fixedPoint <= r.meanHigh &&
        r.p99Low <= r.fixedPointP99 &&
        r.fixedPointP99 <= r.p99High
      );
    },
  },
  "random-p99-bar-holds-m-m-1": {
    doc: "Random's p99 interval holds M/M/1's p99, wide as it is.",
    holds: (c) =>
      c("random-p99-low") <= c("random-theory-p99") &&
      c("random-theory-p99") <= c("random-p99-high"),
  },
  "ewma-p99-moves-little": {
    doc: "The peak-EWMA's p99 rises with the slow server by less than one service time at every seed judged.",
    holds: (c) => c("ewma-p99-rise-high") < 1,
  },
  "readers-serve-the-slow-server-what-it-can": {
    doc: "At every seed judged, every signal that reads the servers offers the slow one about its capacity (a load within 15% of 1, where random offers it over four times), and none of those runs is unbounded.",
    holds: (_c, core) =>
      READERS.every((s) =>
        over(
          core,
          s,
          { slowFactor: SLOW },
          (r) => !r.unbounded && Math.abs(r.slowLoad - 1) < 0.15,
        ).every(Boolean),
      ),
  },
  "random-grows-with-the-run": {
    doc: "At every seed judged random's mean with the slow server after the page's run exceeds the shorter run's by half or more: it measures the run.",
    holds: (_c, core) => {
      const short = unboundedMeans(core, SHORT_ARRIVALS);
      return unboundedMeans(core, ARRIVALS).every((m, i) => m > 1.5 * short[i]);
    },
  },
  "forgetting-overloads-the-slow-server": {
    doc: "At every seed judged the forgetful peak-EWMA sends the slow server several times what it can serve, and the long memory well under it.",
    holds: (c) => c("forget-load-low") > 2 && c("forget-long-tau-load-high") < 0.5,
  },
};
