// The numbers the hedge section's prose states, each computed through the API from the
// section's default run (see web/claims.js).

import { SEED_PARAM } from "../../seed.js";
import { params, REQUESTS } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;

const DELAY_Q = Number(params.find((s) => s.name === "hedge-delayq").default);

const runs = new WeakMap();
/** The section's default run: a p95 hedge on idle replicas with the Lab's service model. */
function run(core) {
  if (!runs.has(core))
    runs.set(core, core.simulateHedge({ delayQ: DELAY_Q, requests: REQUESTS, seed: SEED }));
  return runs.get(core);
}

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  "delay-q": { doc: "The default hedge delay's quantile level (fraction).", value: () => DELAY_Q },
  "exact-share": {
    doc: "The share of requests a delay at exactly that quantile sends a backup for, 1 − q.",
    value: () => 1 - DELAY_Q,
  },
  "body-median-ms": {
    doc: "The median (ms) of the service model's usual-case lognormal.",
    value: (core) => core.labDefaults().service.body.medianMs,
  },
  "hiccup-p": {
    doc: "The chance (fraction) that a request hits the service model's slow mode.",
    value: (core) => core.labDefaults().service.slow.p,
  },
  "delay-ms": {
    doc: "The calibrated hedge delay (ms) of the default run.",
    value: (core) => run(core).delayMs,
  },
  "p999-before-ms": {
    doc: "The simulated p99.9 (ms) without the hedge.",
    value: (core) => run(core).p999Before,
  },
  "p999-after-ms": {
    doc: "The simulated p99.9 (ms) with the hedge.",
    value: (core) => run(core).p999After,
  },
  "p50-before-ms": {
    doc: "The simulated median (ms) without the hedge.",
    value: (core) => run(core).p50Before,
  },
  "p50-no-delay-ms": {
    doc: "The simulated median (ms) with a backup sent at once (no delay): the faster of two copies, the service's 1 − √½ quantile. Its 200,000 draws put its standard error near 0.01 ms, a tenth of the digit shown.",
    value: (core) => core.simulateHedge({ delayMs: 0, requests: REQUESTS, seed: SEED }).p50After,
  },
  "extra-requests": {
    doc: "The simulated share of requests that sent a backup.",
    value: (core) => run(core).extraRequests,
  },
  "backup-work-ms": {
    doc: "Service time (ms) a backup did on average: extra work × mean service time ÷ share of requests hedged.",
    value: (core) => (run(core).extraWork * core.serviceMoments().meanMs) / run(core).extraRequests,
  },
  "extra-work": {
    doc: "The backups' simulated service time over the primaries' (fraction).",
    value: (core) => run(core).extraWork,
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "the-tail-falls-tenfold": {
    doc: "The hedge cuts the p99.9 at least tenfold.",
    holds: (c) => 10 * c("p999-after-ms") < c("p999-before-ms"),
  },
  "no-delay-moves-the-median": {
    doc: "With no delay the median falls by more than a millisecond.",
    holds: (c) => c("p50-no-delay-ms") < c("p50-before-ms") - 1,
  },
  "a-delay-above-the-median-leaves-it": {
    doc: "At the default delay the median is exactly the unhedged one: a backup fires only after the delay.",
    holds: (_c, core) => run(core).p50After === run(core).p50Before,
  },
};
