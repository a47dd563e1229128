// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatMs } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateFairness({ load: 0.5 });

export const note = "tenant A duplicates, tenant B does not";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-fairness-p99",
    label: "simulateFairness (load 50%): tenant A's p99",
    show: (r) => formatMs(r.aP99),
    readout: "a-p99",
  },
];
