// What the budget section reads off a `simulateBudget` result for its readouts, chart and
// prose: per-window ratios and the outage's windows. Arithmetic on the core's numbers only (no
// model here); node loads it too (claims.js).

/** The policies in the result, in drawing order, with their palette colours, labels and dashes. */
/** @type {[key: "none" | "hedge" | "budgeted" | "disabled", color: string, label: string, dash: number[]][]} */
export const POLICIES = [
  ["none", "none", "no backups", []],
  ["hedge", "hedge", "plain hedge", []],
  ["budgeted", "duplicate", "budgeted hedge", []],
  // Dashed: where the switch never fires it lies on the plain hedge, which shows through.
  ["disabled", "third", "hedge with disable switch", [6, 4]],
];

/** The centre (ms) of each window of `result`. */
export const windowCentres = (result) =>
  Array.from(result.none.windowRequests, (_, i) => (i + 0.5) * result.windowMs);

/** The windows that lie wholly inside the outage, as indices. */
export function outageWindows(result) {
  const out = [];
  for (let i = 0; i < result.none.windowRequests.length; i++) {
    const start = i * result.windowMs;
    if (start >= result.outageStartMs && start + result.windowMs <= result.outageEndMs) out.push(i);
  }
  return out;
}

/** Copies sent per request in each window of `run`: 1 + backups ÷ requests (NaN when none came). */
export const multipliers = (run) =>
  Array.from(run.windowRequests, (n, i) => (n > 0 ? (n + run.windowBackups[i]) / n : NaN));

/** The mean copies-per-request multiplier of `run` over the outage's windows. */
export function outageMultiplier(result, run) {
  const m = multipliers(run);
  const w = outageWindows(result).filter((i) => Number.isFinite(m[i]));
  return w.length ? w.reduce((s, i) => s + m[i], 0) / w.length : NaN;
}

/** The worst window p99 (ms) of `run` in the outage; NaN when unstable or no window. */
export function outageP99(result, run) {
  const p = run.windowP99Ms;
  const w = outageWindows(result).filter((i) => Number.isFinite(p[i]));
  return w.length ? Math.max(...w.map((i) => p[i])) : NaN;
}
