// The numbers the fan-out section's prose states (and the page's opening, which quotes it), each
// computed through the API at the section's default settings (see web/claims.js).

import { params } from "./section.js";

const P = params.find((s) => s.name === "fanout-p").default;
const N = params.find((s) => s.name === "fanout-n").default;

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  p: { doc: "The default chance (fraction) that one leaf is slow.", value: () => P },
  n: { doc: "The default fan-out: leaves per request.", value: () => N },
  "slow-share": {
    doc: "The share of requests that meet at least one slow leaf, 1 − (1 − p)^n, at the defaults.",
    value: (core) => core.slowShare(P, N),
  },
};
