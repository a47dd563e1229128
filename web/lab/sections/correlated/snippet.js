// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

import { formatPct } from "../../../format.js";

/** A share shown as this section shows it: three decimals below 1%. */
const share = (/** @type {number} */ x) => formatPct(x, x > 0 && x < 0.01 ? 3 : 1);

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateCorrelated({ c: 0.3, drop: 0.05 });

export const note = "leaves share slow episodes";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-corr-slow-drop",
    label: "simulateCorrelated (c = 0.3, drop 5%): slow share",
    show: (r) => share(r.slowDrop),
    readout: "slow-drop",
  },
];
