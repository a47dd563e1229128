// The core as the Lab's sections see it on the main thread: its closed forms and model
// descriptions, microseconds each, and nothing that simulates. A section gets this facade as
// `api` in its mount context; its simulations go through the worker client (lab/sim.js, the
// `client` it is given). So "no simulation on the main thread" holds by construction: a
// section has no way to reach `simulate*`, `TailRun` or a measured quantile from here.

// It imports nothing: the page passes it the core (wasm.js), and a section may import its
// helpers without reaching the core.

/** The facade's keys: the core's closed forms and descriptions, and nothing else. */
export const CLOSED_FORMS = [
  "slowShare",
  "crossover",
  "parentLevel",
  "fixedPointMeanTime",
  "queueTheory",
  "binEdges",
  "labDefaults",
];

/** The facade over an initialised core module: a frozen object with `CLOSED_FORMS` only. */
export function closedForms(core) {
  const api = Object.create(null);
  for (const name of CLOSED_FORMS) {
    const fn = core[name];
    if (typeof fn !== "function")
      throw new Error(`the core has no ${name}(): rebuild web/pkg (cargo xtask pkg)`);
    api[name] = fn;
  }
  return Object.freeze(api);
}

/** A fan-out result's 95% interval, `[low, high]` (fractions): the core's Wilson interval. */
export const fanoutInterval = (r) => [r.ciLow, r.ciHigh];
