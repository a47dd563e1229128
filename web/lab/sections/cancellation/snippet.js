// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatMs } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateCancellation({ cancelDelayMs: 0 });

export const note = "duplicates cancelled at once";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-cancel-p99",
    label: "simulateCancellation (cancelled at once, load 50%): duplicate p99",
    show: (r) => formatMs(r.duplicateP99),
    readout: "dup-p99-0",
  },
];
