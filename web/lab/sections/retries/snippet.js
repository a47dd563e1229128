// The "In code" section's call for this section, at its default settings, and what it prints
// of the result (lab/snippet.js assembles the program from every section's file).

/** @param {import("../../snippet.js").Core} core */
export const call = (core) => core.simulateRetries();

export const note = "timeout and retry through a load spike: a storm";

/** @type {readonly import("../../snippet.js").SnippetReadoutSpec[]} */
export const readouts = [
  {
    name: "snippet-retries-amplification",
    label: "simulateRetries (retries, no budget, a 2.5× spike): attempts per request",
    show: (r) => `${r.amplification.toFixed(2)}×`,
    readout: "retry-amplification",
  },
];
