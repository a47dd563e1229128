// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatMs } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateLoaded({ load: 0.6, policy: "hedge" });

export const note = "hedge on busy replicas";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-loaded-p50",
    label: "simulateLoaded (hedge, load 60%): p50",
    show: (r) => formatMs(r.p50),
    readout: "p50",
  },
  {
    name: "snippet-loaded-p99",
    label: "simulateLoaded (hedge, load 60%): p99",
    show: (r) => formatMs(r.p99),
    readout: "p99",
  },
];
