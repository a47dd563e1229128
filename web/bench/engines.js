// The queueing engines, timed the same way in the bench page (`?engine=NAME`), in node
// (tests/bench/wasm-leaf.mjs --engine NAME --node) and natively (`cargo bench -p tail-lab-core
// -- engine NAME`): one fixed run per engine, median of five after a warm-up, in ns per unit.
// `cargo xtask bench` pairs each with its native run to take wasm ÷ native per round.

/**
 * Each engine's run: what it simulates and the unit its cost is counted in.
 * @type {Record<string, { unit: string, units: (quick: boolean) => number,
 *   run: (core: any, units: number) => unknown }>}
 */
export const ENGINES = {
  // The supermarket (the Lab's balance section): 100 servers, λ = 0.9, best of two.
  supermarket: {
    unit: "arrival",
    units: (quick) => (quick ? 10_000 : 10_000_000),
    run: (core, arrivals) =>
      core.simulateBalance({ lambda: 0.9, d: 2, servers: 100, arrivals, seed: 1 }),
  },
  // The loaded replicas' discrete-event engine without backups: one pass.
  "loaded-none": {
    unit: "request",
    units: (quick) => (quick ? 2_000 : 200_000),
    run: (core, requests) => core.simulateLoaded({ load: 0.7, policy: "none", requests, seed: 1 }),
  },
  // The same with a hedge at the loaded p95: a no-backup calibration pass, then the hedged one.
  "loaded-hedge": {
    unit: "request",
    units: (quick) => (quick ? 2_000 : 200_000),
    run: (core, requests) => core.simulateLoaded({ load: 0.7, policy: "hedge", requests, seed: 1 }),
  },
};

/** ns per unit of engine `name` on `core` (the wasm package's exports). */
export function engineNsPerUnit(core, name, quick) {
  const engine = ENGINES[name];
  if (!engine)
    throw new RangeError(`unknown engine ${name}; one of ${Object.keys(ENGINES).join(", ")}`);
  const units = engine.units(quick);
  const once = () => {
    const t0 = performance.now();
    engine.run(core, units);
    return performance.now() - t0;
  };
  once();
  const times = Array.from({ length: 5 }, once).sort((a, b) => a - b);
  return { ns: (times[2] * 1e6) / units, unit: engine.unit };
}
