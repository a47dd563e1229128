// The numbers the balancer section's prose states, each computed through the API from the
// section's default runs (see web/claims.js).

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

/** Random's mean with the slow server after `arrivals`; it must be flagged unbounded. */
function unboundedMean(core, arrivals) {
  const r = at(core, "random", { slowFactor: SLOW, arrivals });
  if (!r.unbounded) throw new Error("random with the slow server should be unbounded");
  return r.mean;
}

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
  "fixed-point": {
    doc: "The supermarket fixed point at the quoted λ, d = 2.",
    value: (core) => at(core, "fresh").fixedPoint,
  },
  "stale-mean": {
    doc: "Best of two on queue lengths refreshed every default period: mean at the quoted λ.",
    value: (core) => at(core, "stale").mean,
  },
  "stale-short-mean": {
    doc: "The same, refreshed every short period.",
    value: (core) => at(core, "stale", { staleness: SHORT }).mean,
  },
  "random-mean": {
    doc: "Random assignment: mean at the quoted λ.",
    value: (core) => at(core, "random").mean,
  },
  "random-theory": {
    doc: "Random assignment's closed form at the quoted λ, 1/(1 − λ).",
    value: (core) => at(core, "random").randomTheory,
  },
  "fresh-p99": {
    doc: "Best of two on fresh queue lengths: p99 time in system at the quoted λ.",
    value: (core) => at(core, "fresh").p99,
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
      let sum = 0;
      for (let i = 1; i <= REPLICAS; i++) sum += at(core, "random", { seed: SEED + i }).p99;
      return sum / REPLICAS;
    },
  },
  "stale-p99": {
    doc: "Best of two on lengths refreshed every default period: p99 at the quoted λ.",
    value: (core) => at(core, "stale").p99,
  },
  arrivals: { doc: "Arrivals a run at the quoted λ (the page's runs).", value: () => ARRIVALS },
  slow: { doc: "The slow server's factor the prose quotes.", value: () => SLOW },
  "random-slow-load": {
    doc: "The load random assignment offers the slow server.",
    value: (core) => at(core, "random", { slowFactor: SLOW }).slowLoad,
  },
  "short-arrivals": {
    doc: "The shorter run the prose quotes random's growing mean at.",
    value: () => SHORT_ARRIVALS,
  },
  "random-slow-mean-short": {
    doc: "Random assignment's mean with the slow server after the shorter run: the run is unbounded (the claim fails if it is not).",
    value: (core) => unboundedMean(core, SHORT_ARRIVALS),
  },
  "random-slow-mean": {
    doc: "Random assignment's mean with the slow server after the page's run, unbounded too: it must exceed the shorter run's by half or more, or the claim fails.",
    value: (core) => {
      const long = unboundedMean(core, ARRIVALS);
      if (!(long > 1.5 * unboundedMean(core, SHORT_ARRIVALS)))
        throw new Error("random's mean should grow with the run");
      return long;
    },
  },
  "ewma-p99": {
    doc: "Peak-EWMA's p99 on identical servers at the quoted λ.",
    value: (core) => at(core, "ewma").p99,
  },
  "ewma-p99-low": {
    doc: "The low end of that p99's 95% interval.",
    value: (core) => at(core, "ewma").p99Low,
  },
  "ewma-p99-high": {
    doc: "Its high end.",
    value: (core) => at(core, "ewma").p99High,
  },
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
  "forget-load": {
    doc: "The load the peak-EWMA balancers send the slow server in the blind-spot example, at the page's run length for that λ; the run must be flagged unbounded.",
    value: (core) => {
      const r = at(core, "ewma", forget());
      if (!r.unbounded) throw new Error("the forgetful peak-EWMA run should be unbounded");
      return r.slowLoad;
    },
  },
  "forget-fresh-load": {
    doc: "The load fresh best of two sends the slow server in the blind-spot example; not unbounded.",
    value: (core) => {
      const r = at(core, "fresh", forget());
      if (r.unbounded) throw new Error("fresh best of two should settle");
      return r.slowLoad;
    },
  },
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
  "forget-long-tau-load": {
    doc: "The load the peak-EWMA balancers send the slow server in the blind-spot example with Finagle's decay in service times; the run settles.",
    value: (core) => {
      const r = at(core, "ewma", { ...forget(), tau: FINAGLE_DECAY_MS / FINAGLE_SERVICE_MS });
      if (r.unbounded) throw new Error("the long-memory peak-EWMA run should settle");
      return r.slowLoad;
    },
  },
  "rr-slow-load": {
    doc: "The load round robin offers the slow server.",
    value: (core) => at(core, "round-robin", { slowFactor: SLOW }).slowLoad,
  },
  "ewma-slow-load": {
    doc: "The load peak-EWMA offers the slow server.",
    value: (core) => at(core, "ewma", { slowFactor: SLOW }).slowLoad,
  },
  "ewma-slow-p99": {
    doc: "Peak-EWMA's p99 with the slow server (service times).",
    value: (core) => at(core, "ewma", { slowFactor: SLOW }).p99,
  },
  "fresh-slow-load": {
    doc: "The load fresh best of two offers the slow server.",
    value: (core) => at(core, "fresh", { slowFactor: SLOW }).slowLoad,
  },
  "stale-slow-load": {
    doc: "The load stale best of two offers the slow server.",
    value: (core) => at(core, "stale", { slowFactor: SLOW }).slowLoad,
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
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
  "ewma-p99-barely-moves": {
    doc: "Peak-EWMA's p99 with the slow server lies inside its identical-server interval.",
    holds: (c) =>
      c("ewma-p99-low") <= c("ewma-slow-p99") && c("ewma-slow-p99") <= c("ewma-p99-high"),
  },
  "readers-serve-the-slow-server-what-it-can": {
    doc: "Every signal that reads the servers offers the slow one a load below 1, and none of those runs is unbounded.",
    holds: (_c, core) =>
      ["fresh", "stale", "ewma"].every((s) => {
        const r = at(core, s, { slowFactor: SLOW });
        return !r.unbounded && r.slowLoad < 1;
      }),
  },
};
