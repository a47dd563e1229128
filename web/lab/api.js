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
/** @typedef {import("../pkg/tail_lab.js").FanoutLatencyResult} FanoutLatencyResult */
/** @typedef {import("../pkg/tail_lab.js").HedgeResult} HedgeResult */
/** @typedef {import("../pkg/tail_lab.js").LoadedResult} LoadedResult */
/** @typedef {import("../pkg/tail_lab.js").BalanceResult} BalanceResult */
/** @typedef {import("../pkg/tail_lab.js").QueueResult} QueueResult */
/** @typedef {import("../pkg/tail_lab.js").ParseLatenciesOptions} ParseLatenciesOptions */
/** @typedef {import("../pkg/tail_lab.js").SimulateGraphOptions} SimulateGraphOptions */
/** @typedef {import("../pkg/tail_lab.js").GraphStageOptions} GraphStageOptions */
/** @typedef {import("../pkg/tail_lab.js").GraphResult} GraphResult */
/** @typedef {import("../pkg/tail_lab.js").ServiceOptions} ServiceOptions */
/** @typedef {import("../pkg/tail_lab.js").CorrelatedResult} CorrelatedResult */
/** @typedef {import("../pkg/tail_lab.js").OmissionOptions} OmissionOptions */
/** @typedef {import("../pkg/tail_lab.js").BudgetOptions} BudgetOptions */
/** @typedef {import("../pkg/tail_lab.js").BudgetResult} BudgetResult */
/**
 * The core without what simulates or measures (what the runtime check below refuses too).
 * @typedef {Readonly<Omit<Core, Extract<keyof Core, `simulate${string}`> | "TailRun" |
 *   "TailRunBuilder" | "requestAt" | "leafSample" | "leafQuantile" | "parentQuantile" |
 *   "heapBytes" | "default" | "initSync">>} ClosedForms
 */

/** What every section may read besides the models' closed forms: the shared bins, the Lab's
 * defaults and the run-length rules its notes quote. */
export const SHARED = ["binEdges", "labDefaults", "runLengths"];

/** A name no closed form has: the simulations, the Tail run and anything measured. */
const NOT_CLOSED = /^simulate|TailRun|requestAt|leafSample|Quantile$|heapBytes|^init/;

/**
 * The facade's keys for an initialised core module: `SHARED`, then each registered model's
 * closed forms (`core.models()[i].closedForms`), which a model declares beside its code.
 */
export function closedFormNames(core) {
  const names = [...SHARED, ...core.models().flatMap((m) => m.closedForms)];
  for (const name of names) {
    if (NOT_CLOSED.test(name)) throw new Error(`${name} is not a closed form`);
  }
  return [...new Set(names)];
}

/**
 * The facade over an initialised core module: a frozen object with its closed forms only.
 * @param {Core} core
 * @returns {ClosedForms}
 */
export function closedForms(core) {
  const api = Object.create(null);
  for (const name of closedFormNames(core)) {
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
