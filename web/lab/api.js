// The core as the Lab's sections see it on the main thread: its closed forms and model
// descriptions, microseconds each, and nothing that simulates. A section gets this facade as
// `api` in its mount context; its simulations go through the worker client (lab/sim.js, the
// `client` it is given). So "no simulation on the main thread" holds by construction: a
// section has no way to reach `simulate*`, `TailRun` or a measured quantile from here.

// It imports nothing: the page passes it the core (wasm.js), and a section may import its
// helpers without reaching the core. Its JSDoc names the core's types (web/pkg/tail_lab.d.ts)
// for the type check, which is no import at run time: sections name them from here.

/** @typedef {typeof import("../pkg/tail_lab.js")} Core */
/** @typedef {import("../pkg/tail_lab.js").LabDefaults} LabDefaults */
/** @typedef {import("../pkg/tail_lab.js").HedgeOptions} HedgeOptions */
/** @typedef {import("../pkg/tail_lab.js").FanoutResult} FanoutResult */
/** @typedef {import("../pkg/tail_lab.js").HedgeResult} HedgeResult */
/** @typedef {import("../pkg/tail_lab.js").LoadedResult} LoadedResult */
/** @typedef {import("../pkg/tail_lab.js").BalanceResult} BalanceResult */
/** @typedef {Readonly<Pick<Core, (typeof CLOSED_FORMS)[number]>>} ClosedForms */

/** The facade's keys: the core's closed forms and descriptions, and nothing else. */
export const CLOSED_FORMS = /** @type {const} */ ([
  "slowShare",
  "crossover",
  "parentLevel",
  "fixedPointMeanTime",
  "binEdges",
  "labDefaults",
]);

/**
 * The facade over an initialised core module: a frozen object with `CLOSED_FORMS` only.
 * @param {Core} core
 * @returns {ClosedForms}
 */
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

/**
 * A fan-out result's 95% interval, `[low, high]` (fractions): the core's Wilson interval.
 * @param {FanoutResult} r
 */
export const fanoutInterval = (r) => [r.ciLow, r.ciHigh];
