// Number formatting shared by every page: what a reader sees, never how it was computed.

/** A latency for labels and readouts: "4.03 ms", "12.1 ms", "312 ms", "1.25 s"; "—" if absent. */
export function formatMs(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms >= 1000) return `${(ms / 1000).toPrecision(3)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/** A probability as a crosshair reads it, three significant digits: "4.71%", "0.0012%"; "—" if absent. */
export const formatProb = (v) =>
  Number.isFinite(v) ? `${Number((100 * v).toPrecision(3))}%` : "—";

/** A fraction (0..1) as a percentage with `digits` decimals: 0.634 → "63.4%"; "—" if absent. */
export function formatPct(fraction, digits = 1) {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return "—";
  return `${(100 * fraction).toFixed(digits)}%`;
}

/** A plain number with `digits` significant digits (times in units of service time). */
export function formatNumber(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  return x >= 1000 ? formatCount(x) : x.toPrecision(digits);
}

/** A round latency for axis ticks: "2 ms", "500 ms", "1 s", "30 s". */
export function formatTickMs(ms) {
  return ms >= 1000 ? `${Number((ms / 1000).toPrecision(3))} s` : `${Number(ms.toPrecision(3))} ms`;
}

/**
 * A whole number with thousands separators: 1234567 → "1,234,567". Written out rather than
 * `toLocaleString`, whose first call loads locale data for ~100 ms on a slow machine.
 */
export function formatCount(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

const WORDS = [
  "no",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
  "twenty",
];

/** A count as prose says it: `countWord(4)` is "four"; digits past twenty. */
export const countWord = (n) => WORDS[n] ?? String(n);

/** Superscript digits for a power ("10⁻³"). */
const SUP = {
  "-": "⁻",
  0: "⁰",
  1: "¹",
  2: "²",
  3: "³",
  4: "⁴",
  5: "⁵",
  6: "⁶",
  7: "⁷",
  8: "⁸",
  9: "⁹",
};
/** `n` in superscript characters: superscript(-3) is "⁻³". */
export const superscript = (n) => String(n).replace(/[-0-9]/g, (c) => SUP[c]);

/**
 * `ys` at `x`, linear in log x between the grid points `xs` (ascending), clamped to its ends:
 * a survival curve read between its grid points, as a marker dragged to `x` asks.
 * @param {ArrayLike<number>} xs
 * @param {ArrayLike<number>} ys
 * @param {number} x
 */
export function atLogX(xs, ys, x) {
  let j = 1;
  while (j < xs.length - 1 && xs[j] < x) j++;
  const f = Math.min(1, Math.max(0, Math.log(x / xs[j - 1]) / Math.log(xs[j] / xs[j - 1])));
  return ys[j - 1] + f * (ys[j] - ys[j - 1]);
}
