// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatPct } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.slowShare(0.01, 100);

export const note = "1 − 0.99¹⁰⁰";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-slow-share",
    label: "slowShare(0.01, 100)",
    show: (r) => formatPct(r),
    readout: "slow-share",
    attr: "theory",
    prefix: "theory ",
  },
];
