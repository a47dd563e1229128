// The numbers the graph section's prose states, each computed through the API from the
// section's default settings (see web/claims.js).

import { overSeeds, SEEDS } from "../../../claims.js";
import { SEED_PARAM } from "../../seed.js";
import { REQUESTS, params } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;

/** The default deadline (ms). */
const DEADLINE = Number(params.find((s) => s.name === "graph-deadline")?.default);

/** The fan-out preset at the default deadline, as the section runs it, under each of SEEDS. */
const runs = overSeeds(SEEDS, (core, seed) =>
  core.simulateGraph({ preset: "fanout", deadlineMs: DEADLINE, requests: REQUESTS, seed }),
);
/** The same at the page's seed. */
const fanout = (core) => runs.at(core, SEED);

/**
 * The 95% Wilson score interval `[low, high]` of the cut share of the page's run: its requests
 * are independent draws (no queue joins them), so the share is a binomial proportion.
 */
function cutInterval(core) {
  const { miss: p, requests: n } = fanout(core);
  const z = 1.959964;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [centre - half, centre + half];
}

/** The mean completeness of cut requests, from a run's or a theory's `{ completeness, miss }`. */
const cutComplete = ({ completeness, miss }) => (completeness - (1 - miss)) / miss;

const leaves = (core) => core.graphPresets().find((p) => p.name === "fanout").stages[0].width;
const quorum = (core) => core.graphPresets().find((p) => p.name === "quorum").stages[0];

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  leaves: { doc: "Leaves of the fan-out preset's one stage.", value: leaves },
  "deadline-ms": { doc: "The section's default deadline (ms).", value: () => DEADLINE },
  "fanout-cut": {
    doc: "Share of the fan-out preset's requests the default deadline cuts (simulated).",
    value: (core) => fanout(core).miss,
  },
  "fanout-cut-low": {
    doc: "The low end of that share's 95% interval (Wilson's, the requests being independent).",
    value: (core) => cutInterval(core)[0],
  },
  "fanout-cut-high": {
    doc: "Its high end.",
    value: (core) => cutInterval(core)[1],
  },
  "fanout-cut-theory": {
    doc: "Its theory, P(T > D) = 1 − F(D)^n.",
    value: (core) => core.graphTheory({ preset: "fanout", deadlineMs: DEADLINE }).miss,
  },
  "fanout-complete": {
    doc: "Mean completeness of the fan-out preset at the default deadline (simulated), under each of SEEDS (the prose states one: every seed's).",
    value: (core) => runs(core).map((/** @type {any} */ r) => r.completeness),
  },
  "fanout-complete-theory": {
    doc: "Its theory: F(D), the share of leaves in by D.",
    value: (core) => core.graphTheory({ preset: "fanout", deadlineMs: DEADLINE }).completeness,
  },
  "fanout-cut-complete": {
    doc: "Mean completeness of the requests the default deadline cuts (simulated), under each of SEEDS (the prose states one: every seed's): a request in by the deadline has every leaf, so the cut ones' mean is (C − (1 − m)) / m for the mean completeness C and the cut share m.",
    value: (core) => runs(core).map(cutComplete),
  },
  "fanout-cut-complete-theory": {
    doc: "Its theory, from F(D)'s completeness and 1 − F(D)^n's cut share.",
    value: (core) => cutComplete(core.graphTheory({ preset: "fanout", deadlineMs: DEADLINE })),
  },
  "fanout-p999": {
    doc: "The fan-out preset's p99.9 completion time with no deadline (theory, ms).",
    value: (core) => core.graphTheory({ preset: "fanout" }).p999,
  },
  "quorum-n": { doc: "Replicas the quorum preset writes to.", value: (core) => quorum(core).width },
  "quorum-k": { doc: "Answers the quorum preset waits for.", value: (core) => quorum(core).k },
  "quorum-p999": {
    doc: "The quorum write's p99.9 (theory, ms): the 3rd of 5 answers.",
    value: (core) => core.graphTheory({ preset: "quorum" }).p999,
  },
  "quorum-all-p999": {
    doc: "The p99.9 (theory, ms) of the same write waiting for all 5.",
    value: (core) =>
      core.graphTheory({ stages: [{ kind: "parallel", width: quorum(core).width }] }).p999,
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "the-cut-share-holds-its-theory": {
    doc: "The closed form 1 − F(D)^n lies inside the simulated cut share's 95% interval.",
    holds: (c) =>
      c("fanout-cut-low") <= c("fanout-cut-theory") &&
      c("fanout-cut-theory") <= c("fanout-cut-high"),
  },
};
