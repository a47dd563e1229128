// The numbers the coordinated-omission section's prose states, each computed through the API
// from the call's defaults (the classic worked example, and the probe of a replica at load 0.5)
// at the page's default seed, and the probe's p99s over it and the next four (see web/claims.js).

import { claimRange, overSeeds, SEEDS } from "../../../claims.js";
import { SEED_PARAM } from "../../seed.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;

/** The classic worked example and the default probe, under each of SEEDS. */
const runs = overSeeds(SEEDS, (core, seed) => core.simulateOmission({ seed }));
/** The same at the page's seed. */
const run = (core) => runs.at(core, SEED);
/** `read(run)` under each of SEEDS. */
const over = (core, read) => runs(core).map(read);

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  "classic-stall-s": {
    doc: "The worked example's stall (s).",
    value: (core) => run(core).stallMs / 1000,
  },
  "classic-work-ms": {
    doc: "The worked example's answer time (ms), also the threshold its shares count up to.",
    value: (core) => run(core).workMs,
  },
  "classic-interval-ms": {
    doc: "The worked example's send interval (ms).",
    value: (core) => run(core).intervalMs,
  },
  "classic-raw-samples": {
    doc: "Samples the closed loop records in the worked example.",
    value: (core) => run(core).rawSamples,
  },
  "classic-raw": {
    doc: "The closed loop's share of samples at or under 1 ms in the worked example.",
    value: (core) => run(core).rawFracLe1ms,
  },
  "classic-fills": {
    doc: "Samples HdrHistogram's expected-interval correction adds in the worked example.",
    value: (core) => run(core).correctedSamples - run(core).rawSamples,
  },
  "classic-corrected": {
    doc: "The corrected share of samples at or under 1 ms in the worked example.",
    value: (core) => run(core).correctedFracLe1ms,
  },
  "probe-load": {
    doc: "The probed replica's utilisation (fraction).",
    value: (core) => run(core).probeLoad,
  },
  "probe-ms": {
    doc: "How often the probe client means to probe (ms).",
    value: (core) => run(core).probeMs,
  },
  ...claimRange(
    "probe-open-p99",
    "the replica's p99 (ms) probed on schedule (the truth), over SEEDS.",
    (core) => over(core, (r) => r.probeOpenP99),
  ),
  ...claimRange("probe-raw-p99", "the replica's p99 (ms) probed closed loop, over SEEDS.", (core) =>
    over(core, (r) => r.probeRawP99),
  ),
  ...claimRange(
    "probe-corrected-p99",
    "the closed-loop probe's p99 (ms) with HdrHistogram's fills, over SEEDS.",
    (core) => over(core, (r) => r.probeCorrectedP99),
  ),
  "probe-theory-mean": {
    doc: "Pollaczek–Khinchine's mean latency (ms) of the replica.",
    value: (core) => run(core).probeTheoryMean,
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "the-correction-does-not-reach-the-truth": {
    doc: "Over the seeds judged, the closed loop's raw p99 lies wholly below its corrected p99, which lies wholly below the open loop's.",
    holds: (c) =>
      c("probe-raw-p99-high") < c("probe-corrected-p99-low") &&
      c("probe-corrected-p99-high") < c("probe-open-p99-low"),
  },
};
