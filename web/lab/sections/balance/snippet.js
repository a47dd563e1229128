// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatNumber } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) =>
  core.simulateBalance({ lambda: 0.9, policy: "two", arrivals: "auto" });

export const note = "best of two";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-mean-time",
    label: "simulateBalance (λ = 0.9, best of two): mean time",
    show: (r) => formatNumber(r.meanTime),
    readout: "mean-time",
  },
];
