// The numbers the balancer section's prose states, each computed through the API from the
// section's default runs (see web/claims.js).

import { SEED_PARAM } from "../../seed.js";
import { ARRIVALS, params, QUOTED_LAMBDA, SERVERS } from "./section.js";

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

const runs = new WeakMap();
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
  "random-theory-p99": {
    doc: "Random assignment's closed-form p99 at the quoted λ, ln 100/(1 − λ).",
    value: (core) => at(core, "random").randomTheoryP99,
  },
  replicas: { doc: "Runs the prose averages random's p99 over.", value: () => REPLICAS },
  "random-p99-average": {
    doc: "Random assignment's p99 at the quoted λ, averaged over REPLICAS runs (seeds from the page's).",
    value: (core) => {
      let sum = 0;
      for (let i = 0; i < REPLICAS; i++) sum += at(core, "random", { seed: SEED + i }).p99;
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
  "random-slow-p99": {
    doc: "Random assignment's p99 with the slow server (service times) over the page's run: the run is unbounded (the claim fails if it is not), so this grows with the run's length.",
    value: (core) => {
      const r = at(core, "random", { slowFactor: SLOW });
      if (!r.unbounded) throw new Error("random with the slow server should be unbounded");
      return r.p99;
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
