// The numbers the fairness section's prose states, each computed through the API from the
// section's default runs (see web/claims.js).

import { SEED_PARAM } from "../../seed.js";
import { params, QUOTED_LOAD, REQUESTS } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;
const SHARE = Number(params.find((s) => s.name === "fair-share")?.default);
const POLICY = String(params.find((s) => s.name === "fair-policy")?.default);
/** The load past the quoted one where B's median pays most visibly. */
const HIGHER = 0.6;

const runs = new WeakMap();
/** The section's default run at `load`, as the page makes it. */
function at(core, load) {
  if (!runs.has(core)) runs.set(core, new Map());
  const cache = runs.get(core);
  if (!cache.has(load))
    cache.set(
      load,
      core.simulateFairness({
        load,
        shareA: SHARE,
        policy: POLICY,
        requests: REQUESTS,
        seed: SEED,
      }),
    );
  return cache.get(load);
}

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  share: { doc: "Tenant A's default share of the requests (fraction).", value: () => SHARE },
  load: { doc: "The load the prose quotes (fraction).", value: () => QUOTED_LOAD },
  "base-a-p99-ms": {
    doc: "A's p99 (ms) with nobody hedging at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).baseAP99,
  },
  "a-p99-ms": {
    doc: "A's p99 (ms) when A duplicates, at the quoted load.",
    value: (core) => at(core, QUOTED_LOAD).aP99,
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
  higher: { doc: "The higher load the prose quotes (fraction).", value: () => HIGHER },
  "base-b-p50-higher-ms": {
    doc: "B's median (ms) with nobody hedging at the higher load.",
    value: (core) => at(core, HIGHER).baseBP50,
  },
  "b-p50-higher-ms": {
    doc: "B's median (ms) when A duplicates, at the higher load.",
    value: (core) => at(core, HIGHER).bP50,
  },
  "b-p50-higher-times": {
    doc: "B's median when A duplicates over its median with nobody hedging, at the higher load.",
    value: (core) => at(core, HIGHER).bP50 / at(core, HIGHER).baseBP50,
  },
};
