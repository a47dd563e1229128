// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatMs } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateGraph({ preset: "search", deadlineMs: 100 });

export const note = "auth → 10 shards → rank";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-graph-p99",
    label: "simulateGraph (search, deadline 100 ms): p99",
    show: (r) => formatMs(r.p99),
    readout: "p99",
  },
];
