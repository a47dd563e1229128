// The core as the Lab's sections see it on the main thread: its closed forms and model
// descriptions, microseconds each, and nothing that simulates. A section gets this facade as
// `api` in its mount context; its simulations go through the worker client (lab/sim.js, the
// `client` it is given). So "no simulation on the main thread" holds by construction: a
// section has no way to reach `simulate*`, `TailRun` or a measured quantile from here.

// It imports nothing: the page passes it the core (wasm.js), and a section may import its
// helpers without reaching the core.

/** The facade's keys: the core's closed forms and descriptions, and nothing else. */
export const CLOSED_FORMS = ["slowShare", "crossover", "parentLevel", "fixedPointMeanTime", "binEdges", "labDefaults"];

/** The facade over an initialised core module: a frozen object with `CLOSED_FORMS` only. */
export function closedForms(core) {
  const api = Object.create(null);
  for (const name of CLOSED_FORMS) {
    const fn = name === "labDefaults" && typeof core.labDefaults !== "function" ? shimLabDefaults : core[name];
    if (typeof fn !== "function") throw new Error(`the core has no ${name}(): rebuild web/pkg (cargo xtask pkg)`);
    api[name] = fn;
  }
  return Object.freeze(api);
}

// SHIM until labDefaults() lands: the core's Lab defaults as the README documents them, in
// the shape the lead's binding returns. idleDelayMs is the calibrated idle p95 at seed 1, as
// simulateLoaded({ delayBasis: "idle" }) reports it. Delete this, and the fallback above,
// when web/pkg exports labDefaults.
function shimLabDefaults() {
  return {
    service: { body: { medianMs: 7.7, sigma: 0.5 }, slow: { p: 0.01, medianMs: 1000, sigma: 0.35 } },
    loaded: {
      replicas: 10,
      policies: ["none", "hedge", "duplicate"],
      cancellations: ["backup", "either", "either-any", "queued", "never"],
      delayBases: ["loaded", "idle"],
      idleDelayMs: 18.41836724342325,
    },
    balance: { servers: 100, policies: { random: 1, two: 2, three: 3 } },
  };
}

/**
 * A fan-out result's 95% interval, `[low, high]` (fractions).
 * SHIM until the core's simulateFanout returns ciLow and ciHigh: then read those, and delete
 * the fallback here.
 */
export const fanoutInterval = (r) => [r.ciLow ?? r.sim - 1.96 * r.stdErr, r.ciHigh ?? r.sim + 1.96 * r.stdErr];
