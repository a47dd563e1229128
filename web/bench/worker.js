// Runs the loaded-replica sweep off the main thread and reports how long it took.
import init, { simulateLoaded } from "../pkg/tail_lab.js";

self.onmessage = async ({ data }) => {
  await init();
  const t0 = performance.now();
  const results = [];
  for (const load of data.loads) {
    for (const policy of /** @type {const} */ (["none", "hedge", "duplicate"])) {
      results.push(simulateLoaded({ load, policy, requests: data.requests, seed: 1 }));
    }
  }
  self.postMessage({ ms: performance.now() - t0, results });
};
