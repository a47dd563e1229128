// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatPct } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateOmission();

export const note = "a 100 s stall, measured closed and open loop";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-omission-raw",
    label: "simulateOmission (the worked example): ≤ 1 ms, closed loop",
    show: (r) => formatPct(r.rawFracLe1ms, 2),
    readout: "classic-raw",
  },
  {
    name: "snippet-omission-corrected",
    label: "simulateOmission (the worked example): ≤ 1 ms, corrected",
    show: (r) => formatPct(r.correctedFracLe1ms, 2),
    readout: "classic-corrected",
  },
];
