// The numbers the your-data section's prose states, each computed through the API from the
// bundled example (see web/claims.js).

import { FANOUT } from "./section.js";

const parsed = new WeakMap();
/** The bundled example, read and fitted by the core. */
function example(core) {
  if (!parsed.has(core)) parsed.set(core, core.parseLatencies(core.exampleLatencies()));
  return parsed.get(core);
}

/** The closed forms of a fan-out on the example. */
const fanout = (core) => core.fanoutLatencyTheory(0, FANOUT, example(core).service);

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  "example-count": {
    doc: "Latencies in the bundled example.",
    value: (core) => example(core).count,
  },
  "example-p50-ms": {
    doc: "The bundled example's median (ms): its interpolated empirical CDF's.",
    value: (core) => example(core).summary.p50Ms,
  },
  "example-p99-ms": {
    doc: "The bundled example's p99 (ms).",
    value: (core) => example(core).summary.p99Ms,
  },
  "example-p999-ms": {
    doc: "The bundled example's p99.9 (ms).",
    value: (core) => example(core).summary.p999Ms,
  },
  fanout: { doc: "Leaves per request in the section's fan-out check.", value: () => FANOUT },
  "parent-p50-ms": {
    doc: "The median (ms) of a request that waits for all its leaves, each from the example: the example's 0.5^(1/n) quantile.",
    value: (core) => fanout(core).parentP50,
  },
  "parent-rank": {
    doc: "The leaf quantile level that median sits at, 0.5^(1/n).",
    value: () => 0.5 ** (1 / FANOUT),
  },
};
