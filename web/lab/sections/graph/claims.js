// The numbers the graph section's prose states, each computed through the API from the
// section's default settings (see web/claims.js).

import { SEED_PARAM } from "../../seed.js";
import { REQUESTS, params } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;

/** The default deadline (ms). */
const DEADLINE = Number(params.find((s) => s.name === "graph-deadline")?.default);

const runs = new WeakMap();
/** The fan-out preset at the default deadline, as the section runs it. */
function fanout(core) {
  if (!runs.has(core))
    runs.set(
      core,
      core.simulateGraph({
        preset: "fanout",
        deadlineMs: DEADLINE,
        requests: REQUESTS,
        seed: SEED,
      }),
    );
  return runs.get(core);
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
  "fanout-cut-theory": {
    doc: "Its theory, P(T > D) = 1 − F(D)^n.",
    value: (core) => core.graphTheory({ preset: "fanout", deadlineMs: DEADLINE }).miss,
  },
  "fanout-complete": {
    doc: "Mean completeness of the fan-out preset at the default deadline (simulated).",
    value: (core) => fanout(core).completeness,
  },
  "fanout-complete-theory": {
    doc: "Its theory: F(D), the share of leaves in by D.",
    value: (core) => core.graphTheory({ preset: "fanout", deadlineMs: DEADLINE }).completeness,
  },
  "fanout-cut-complete": {
    doc: "Mean completeness of the requests the default deadline cuts (simulated): a request in by the deadline has every leaf, so the cut ones' mean is (C − (1 − m)) / m for the mean completeness C and the cut share m.",
    value: (core) => cutComplete(fanout(core)),
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
