// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatMs } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateNewModel({ meanMs: 10 });

export const note = "exponential service times, mean 10 ms";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-new-model-p99",
    label: "simulateNewModel (mean 10 ms): p99",
    show: (r) => formatMs(r.p99),
    readout: "new-model-p99",
  },
];
