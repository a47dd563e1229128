// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatPct } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateBudget();

export const note = "a hedge on a token budget through a 10× outage";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-budget-fraction",
    label: "simulateBudget (ratio 0.15, a 10× outage): share of requests hedged",
    show: (r) => formatPct(r.budgeted.hedgeFraction),
    readout: "fraction-budgeted",
  },
];
