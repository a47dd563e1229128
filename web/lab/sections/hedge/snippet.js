// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatMs, formatPct } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateHedge({ delayQ: 0.95 });

export const note = "backup after the leaf's p95";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-p999-after",
    label: "simulateHedge (backup at the p95): p99.9 with hedge",
    show: (r) => formatMs(r.p999After),
    readout: "p999-after",
  },
  {
    name: "snippet-extra-work",
    label: "simulateHedge (backup at the p95): extra work",
    show: (r) => formatPct(r.extraWork, 2),
    readout: "extra-work",
  },
];
