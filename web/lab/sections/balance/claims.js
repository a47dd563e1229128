// The numbers the balance section's prose states, each computed through the API's closed forms
// at the section's default λ (see web/claims.js).

import { params } from "./section.js";

const LAMBDA = Number(params.find((s) => s.name === "balance-lambda").default);
/** The queue length the prose compares the policies at: "this many jobs or more". */
const DEEP = 5;

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  servers: {
    doc: "The servers jobs are sent to.",
    value: (core) => core.labDefaults().balance.servers,
  },
  lambda: {
    doc: "The section's default arrival rate per server (λ, fraction of capacity).",
    value: () => LAMBDA,
  },
  "random-mean": {
    doc: "Mean time in system (mean service times) under random assignment at the default λ.",
    value: (core) => core.fixedPointMeanTime(LAMBDA, 1),
  },
  "two-mean": {
    doc: "Mean time in system (mean service times) with two choices at the default λ, from the fixed point.",
    value: (core) => core.fixedPointMeanTime(LAMBDA, 2),
  },
  deep: { doc: "The queue length the prose compares the policies at.", value: () => DEEP },
  "random-deep-share": {
    doc: "The share of servers with at least that many jobs under random assignment (λ^i).",
    value: (core) => core.fixedPointShare(LAMBDA, 1, DEEP),
  },
  "two-deep-share": {
    doc: "The share of servers with at least that many jobs with two choices (the fixed point).",
    value: (core) => core.fixedPointShare(LAMBDA, 2, DEEP),
  },
};

/**
 * The claims that are closed forms of the section's λ, at `values` (web/claims.js's
 * followClaims): λ itself (two decimals once moved, as the slider steps), the fixed point's
 * mean times and the shares of deep queues. The server count and the depth stay.
 * @param {Record<string, any>} values
 * @param {import("../../api.js").ClosedForms} api
 */
export function live(values, api) {
  const lambda = Number(values["balance-lambda"]);
  return {
    lambda: { value: lambda, digits: 2 },
    "random-mean": api.fixedPointMeanTime(lambda, 1),
    "two-mean": api.fixedPointMeanTime(lambda, 2),
    "random-deep-share": api.fixedPointShare(lambda, 1, DEEP),
    "two-deep-share": api.fixedPointShare(lambda, 2, DEEP),
  };
}
