// The numbers the queue section's prose states, each computed through the API's closed forms
// (see web/claims.js).

import { params } from "./section.js";

const LOAD = Number(params.find((s) => s.name === "queue-load").default);
const SERVERS = Number(params.find((s) => s.name === "queue-servers").default);
/** The two utilisations the prose compares (fractions): its example, not a setting. */
const LOW_LOAD = 0.5;
const HIGH_LOAD = 0.9;

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  "low-load": { doc: "The lighter utilisation of the prose's example.", value: () => LOW_LOAD },
  "high-load": { doc: "The heavier utilisation of the prose's example.", value: () => HIGH_LOAD },
  "busy-ratio": {
    doc: "One server's mean and p99 at the heavier load over the lighter (the same ratio).",
    value: (core) => [
      core.queueTheory(1, HIGH_LOAD).mean / core.queueTheory(1, LOW_LOAD).mean,
      core.queueTheory(1, HIGH_LOAD).p99 / core.queueTheory(1, LOW_LOAD).p99,
    ],
  },
  load: { doc: "The section's default utilisation.", value: () => LOAD },
  servers: { doc: "The section's default server count.", value: () => SERVERS },
  "one-server-mean": {
    doc: "One server's mean time in system (mean service times) at the default load.",
    value: (core) => core.queueTheory(1, LOAD).mean,
  },
  "shared-mean": {
    doc: "The default servers' mean time in system (mean service times) at the default load.",
    value: (core) => core.queueTheory(SERVERS, LOAD).mean,
  },
};

/**
 * The claims that are closed forms of the section's load and servers, at `values`
 * (web/claims.js's followClaims): the load, the servers and the two mean times of the
 * sentence that compares them. The example loads and their ratio stay.
 * @param {Record<string, any>} values
 * @param {import("../../api.js").ClosedForms} api
 */
export function live(values, api) {
  const load = Number(values["queue-load"]);
  const servers = Number(values["queue-servers"]);
  return {
    load,
    servers,
    "one-server-mean": api.queueTheory(1, load).mean,
    "shared-mean": api.queueTheory(servers, load).mean,
  };
}
