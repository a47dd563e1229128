// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatMs } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateTied();

export const note = "queued at two replicas, the first to start cancels the other";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-tied-p99",
    label: "simulateTied (tied to two, load 50%): p99",
    show: (r) => formatMs(r.p99),
    readout: "tied-p99",
  },
];
