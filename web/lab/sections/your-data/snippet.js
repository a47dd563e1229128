// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatMs } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateEmpirical();

export const note = "the bundled example, sampled and fanned out";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-data-p99",
    label: "simulateEmpirical (the example): p99 of the draws",
    show: (r) => formatMs(r.p99),
    readout: "data-p99",
  },
];
