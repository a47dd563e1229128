// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatNumber } from "../../../format.js";

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateBalancerSignals({ signal: "stale", arrivals: 600_000 });

export const note = "lengths 50 old";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-balancer-stale",
    label: "simulateBalancerSignals (stale every 50, λ = 90%): mean",
    show: (r) => formatNumber(r.mean),
    readout: "stale-mean",
  },
];
