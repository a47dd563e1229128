// The numbers the fan-out section's prose states (and the page's opening, which quotes it), each
// computed through the API at the section's default settings (see web/claims.js).

import { params } from "./section.js";

const P = Number(params.find((s) => s.name === "fanout-p").default);
const N = Number(params.find((s) => s.name === "fanout-n").default);

/** The closed forms of the parent's and one leaf's latency at the defaults (ms). */
const latency = (core) => core.fanoutLatencyTheory(P, N);

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  p: { doc: "The default chance (fraction) that one leaf is slow.", value: () => P },
  n: { doc: "The default fan-out: leaves per request.", value: () => N },
  "slow-share": {
    doc: "The share of requests that meet at least one slow leaf, 1 − (1 − p)ⁿ, at the defaults.",
    value: (core) => core.slowShare(P, N),
  },
  "parent-mean-ms": {
    doc: "The request's mean latency (ms) at the defaults: the mean of the slowest of n leaves.",
    value: (core) => latency(core).parentMean,
  },
  "parent-p50-ms": {
    doc: "The request's median latency (ms) at the defaults.",
    value: (core) => latency(core).parentP50,
  },
  "slow-leaf-calls": {
    doc: "The share (fraction) of leaf calls that meet a hiccup at the defaults: the slow probability p, which the second paragraph's latencies are computed at.",
    value: () => P,
  },
  "leaf-mean-ms": {
    doc: "One leaf's mean latency (ms): the Lab's service model with slow probability p.",
    value: (core) => latency(core).leafMean,
  },
  "leaf-p50-ms": {
    doc: "One leaf's median latency (ms).",
    value: (core) => latency(core).leafP50,
  },
  "leaf-mean-over-median": {
    doc: "One leaf's mean over its median.",
    value: (core) => latency(core).leafMean / latency(core).leafP50,
  },
};

/**
 * The claims the prose's first paragraph states that are closed forms of the section's
 * settings, at `values` (its p and n): the page's text follows the sliders (web/claims.js).
 * The second paragraph's latencies stay the defaults' (the text says so): their sentence
 * compares them, and at other settings the comparison can turn.
 * @param {Record<string, any>} values
 * @param {import("../../api.js").ClosedForms} api
 */
export function live(values, api) {
  const p = Number(values["fanout-p"]);
  const n = Number(values["fanout-n"]);
  return { p, n, "slow-share": api.slowShare(p, n) };
}
