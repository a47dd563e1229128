// The numbers the hedge section's prose states, each computed through the API from the
// section's default run (see web/claims.js).

import { overSeeds, SEEDS } from "../../../claims.js";
import { SEED_PARAM } from "../../seed.js";
import { params, REQUESTS } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;

const DELAY_Q = Number(params.find((s) => s.name === "hedge-delayq").default);

/**
 * The section's default run, a p95 hedge on idle replicas with the Lab's service model (or, with
 * `delayMs`, a hedge after that fixed delay), under each of SEEDS.
 */
const runs = overSeeds(SEEDS, (core, seed, delayMs) =>
  core.simulateHedge(
    delayMs === null
      ? { delayQ: DELAY_Q, requests: REQUESTS, seed }
      : { delayMs, requests: REQUESTS, seed },
  ),
);
/** The section's default run at the page's seed. */
const run = (core) => runs.at(core, SEED, null);
/** `read(run)` of the default run under each of SEEDS. */
const overTheSeeds = (core, read) => runs(core, null).map(read);
/** The median (ms) with a backup sent at once, under each of SEEDS. */
const noDelayMedians = (core) => runs(core, 0).map((/** @type {any} */ r) => r.p50After);
const low = (/** @type {number[]} */ xs) => Math.min(...xs);
const high = (/** @type {number[]} */ xs) => Math.max(...xs);
/** A backup's mean service time (ms): extra work × mean service time ÷ share of requests hedged. */
const backupWork = (core, /** @type {any} */ r) =>
  (r.extraWork * core.serviceMoments().meanMs) / r.extraRequests;

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
  "delay-ms-low": {
    doc: "The least calibrated hedge delay (ms) over SEEDS.",
    value: (core) => low(overTheSeeds(core, (r) => r.delayMs)),
  },
  "delay-ms-high": {
    doc: "The greatest of them (ms).",
    value: (core) => high(overTheSeeds(core, (r) => r.delayMs)),
  },
  "p999-before-low-ms": {
    doc: "The least simulated p99.9 (ms) without the hedge over SEEDS.",
    value: (core) => low(overTheSeeds(core, (r) => r.p999Before)),
  },
  "p999-before-high-ms": {
    doc: "The greatest of them (ms).",
    value: (core) => high(overTheSeeds(core, (r) => r.p999Before)),
  },
  "p999-before-theory-ms": {
    doc: "The closed-form p99.9 (ms) without the hedge, S(t) = 0.001.",
    value: (core) => run(core).theoryP999Before,
  },
  "p999-after-low-ms": {
    doc: "The least simulated p99.9 (ms) with the hedge over SEEDS.",
    value: (core) => low(overTheSeeds(core, (r) => r.p999After)),
  },
  "p999-after-high-ms": {
    doc: "The greatest of them (ms).",
    value: (core) => high(overTheSeeds(core, (r) => r.p999After)),
  },
  "p999-after-theory-ms": {
    doc: "The closed-form p99.9 (ms) with the hedge, from S(t)·S(t − d) at the page's seed's delay.",
    value: (core) => run(core).theoryP999After,
  },
  "p50-before-low-ms": {
    doc: "The least simulated median (ms) without the hedge over SEEDS.",
    value: (core) => low(overTheSeeds(core, (r) => r.p50Before)),
  },
  "p50-before-high-ms": {
    doc: "The greatest of them (ms).",
    value: (core) => high(overTheSeeds(core, (r) => r.p50Before)),
  },
  "p50-no-delay-ms": {
    doc: "The simulated median (ms) with a backup sent at once (no delay): the faster of two copies, the service's 1 − √½ quantile, under each of SEEDS (the prose states one: every seed's). Its 200,000 draws put its standard error near 0.01 ms, a tenth of the digit shown.",
    value: (core) => noDelayMedians(core),
  },
  "extra-requests": {
    doc: "The simulated share of requests that sent a backup, under each of SEEDS (the prose states one: every seed's).",
    value: (core) => overTheSeeds(core, (r) => r.extraRequests),
  },
  "backup-work-low-ms": {
    doc: "The least, over SEEDS, of the service time (ms) a backup did on average: extra work × mean service time ÷ share of requests hedged.",
    value: (core) => low(overTheSeeds(core, (r) => backupWork(core, r))),
  },
  "backup-work-high-ms": {
    doc: "The most of it over SEEDS (ms).",
    value: (core) => high(overTheSeeds(core, (r) => backupWork(core, r))),
  },
  "extra-work-low": {
    doc: "The least, over SEEDS, of the backups' simulated service time over the primaries' (fraction).",
    value: (core) => low(overTheSeeds(core, (r) => r.extraWork)),
  },
  "extra-work-high": {
    doc: "The most of it over SEEDS.",
    value: (core) => high(overTheSeeds(core, (r) => r.extraWork)),
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "the-tail-falls-tenfold": {
    doc: "The hedge cuts the p99.9 at least tenfold at every seed judged: the highest p99.9 with it under a tenth of the lowest without.",
    holds: (c) => 10 * c("p999-after-high-ms") < c("p999-before-low-ms"),
  },
  "no-delay-moves-the-median": {
    doc: "With no delay the median falls by more than a millisecond at every seed judged.",
    holds: (c) => high(c("p50-no-delay-ms")) < c("p50-before-low-ms") - 1,
  },
  "a-delay-above-the-median-leaves-it": {
    doc: "At the default delay the median is exactly the unhedged one at every seed judged: a backup fires only after the delay.",
    holds: (_c, core) => overTheSeeds(core, (r) => r.p50After === r.p50Before).every(Boolean),
  },
};
