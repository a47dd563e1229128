// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatNumber } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateQueue({ servers: 4, load: 0.8, requests: "auto" });

export const note = "four servers, run to ±5%";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-queue-p99",
    label: "simulateQueue (4 servers, load 80%): p99",
    show: (r) => formatNumber(r.p99),
    readout: "queue-p99",
  },
];
