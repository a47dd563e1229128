// The Lab's plotting scales and ticks (web/lab/plot.js, `scale` and `ticks`: pure functions,
// importable in node without a DOM). The drawing itself (`chart`) needs a canvas and a
// stylesheet and is left to the browser tests.

import assert from "node:assert/strict";
import { test } from "node:test";
import { clipSegment, logFormat, scale, ticks } from "../../web/lab/plot.js";

const close = (a, b, what) =>
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} ≠ ${b}`);

test("linear scale: the domain's ends to the pixel range's, straight between, and back", () => {
  const s = scale("linear", 0, 10, 50, 550);
  assert.equal(s.type, "linear");
  assert.equal(s.min, 0);
  assert.equal(s.max, 10);
  assert.equal(s(0), 50);
  assert.equal(s(10), 550);
  assert.equal(s(2.5), 175);
  assert.equal(s(-1), 0, "outside the domain extrapolates");
  for (const v of [0, 1.25, 3, 9.99]) close(s.inverse(s(v)), v, `inverse at ${v}`);
  // A y axis: pixels grow downwards.
  const y = scale("linear", 0, 1, 300, 20);
  assert.equal(y(0), 300);
  assert.equal(y(1), 20);
  assert.equal(y(0.5), 160);
});

test("log scale: equal ratios are equal distances, and back", () => {
  const s = scale("log", 1, 1000, 0, 300);
  assert.equal(s.type, "log");
  close(s(1), 0, "min");
  close(s(1000), 300, "max");
  close(s(10), 100, "a decade is a third");
  close(s(100), 200, "two decades");
  close(s(20) - s(2), s(200) - s(20), "equal ratios");
  for (const v of [1, 3.7, 42, 999]) close(s.inverse(s(v)), v, `inverse at ${v}`);
  assert.ok(Number.isNaN(s(-1)), "no log of a negative");
});

test("log ticks: 1-2-5 per decade when they fit", () => {
  assert.deepEqual(ticks("log", 1, 100), [1, 2, 5, 10, 20, 50, 100]);
  assert.deepEqual(ticks("log", 0.001, 0.2, 10), [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2]);
  // Only values inside the domain, with no float noise (0.3 × 10^-1, not 0.030000000000000002).
  assert.deepEqual(ticks("log", 3, 70), [5, 10, 20, 50]);
  for (const v of ticks("log", 1e-4, 1e-2, 12)) assert.equal(v, Number(v.toPrecision(12)));
});

test("log ticks: thinned to 1-3, then to decades, then every other decade", () => {
  assert.deepEqual(ticks("log", 1, 1000, 8), [1, 3, 10, 30, 100, 300, 1000]);
  assert.deepEqual(ticks("log", 0.1, 1000, 8), [0.1, 1, 10, 100, 1000]);
  assert.deepEqual(ticks("log", 1, 1e9, 8), [1, 100, 10000, 1000000, 100000000]);
  for (const [min, max, n] of [
    [0.5, 2000, 8],
    [1e-3, 1e9, 8],
    [0.125, 5000, 4],
    [1, 1e12, 3],
  ]) {
    const out = ticks("log", min, max, n);
    assert.ok(out.length > 0, `${min}..${max}`);
    for (const v of out)
      assert.ok(v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9), `${v} in ${min}..${max}`);
    for (let i = 1; i < out.length; i++) assert.ok(out[i] > out[i - 1], "increasing");
  }
  // The domain's ends count as inside, to a relative 1e-9.
  assert.deepEqual(ticks("log", 1.0000000001, 99.9999999999), [1, 2, 5, 10, 20, 50, 100]);
});

test("linear ticks: steps of 1, 2, 2.5 or 5 times a power of ten, at most maxCount of them", () => {
  assert.deepEqual(ticks("linear", 0, 1), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(ticks("linear", 0, 7, 8), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(ticks("linear", 0, 100, 5), [0, 25, 50, 75, 100]);
  assert.deepEqual(ticks("linear", 0, 0.3, 4), [0, 0.1, 0.2, 0.3]);
  assert.deepEqual(ticks("linear", -1, 1, 5), [-1, -0.5, 0, 0.5, 1]);
  assert.deepEqual(ticks("linear", 0.03, 0.97, 6), [0.2, 0.4, 0.6, 0.8]);
  for (const [min, max, n] of [
    [0, 1, 3],
    [0, 1e6, 8],
    [0.001, 0.002, 5],
    [-7, 13, 6],
    [0, 0.95, 8],
  ]) {
    const out = ticks("linear", min, max, n);
    assert.ok(out.length >= 2 && out.length <= n + 1, `${min}..${max} by ${n}: ${out}`);
    for (const v of out)
      assert.ok(v >= min - 1e-9 * (max - min) && v <= max + 1e-9 * (max - min), `${v}`);
    const step = out[1] - out[0];
    const mantissa = Number((step / 10 ** Math.floor(Math.log10(step))).toPrecision(6));
    assert.ok([1, 2, 2.5, 5].includes(mantissa), `step ${step}`);
    for (const v of out) assert.equal(v, Number(v.toPrecision(12)), "no float noise");
  }
});

test("a line leaving the y range is cut at the edge, not drawn along it", () => {
  // Inside all the way: the whole segment.
  assert.deepEqual(clipSegment(1, 2, 0, 3), [0, 1]);
  // From inside to below the minimum: it stops where it crosses the minimum (halfway here).
  assert.deepEqual(clipSegment(1, -1, 0, 3), [0, 0.5]);
  // From below to inside: it starts at the crossing.
  assert.deepEqual(clipSegment(-1, 1, 0, 3), [0.5, 1]);
  // Wholly below or above: nothing is drawn (the old line ran flat along the edge).
  assert.equal(clipSegment(-2, -1, 0, 3), null);
  assert.equal(clipSegment(4, 5, 0, 3), null);
  // Through the whole range: both ends cut.
  assert.deepEqual(clipSegment(-1, 4, 0, 3), [0.2, 0.8]);
});

test("a log axis has one tick format: decimals, or powers of ten for every tick", () => {
  const small = logFormat(1e-5, 1);
  assert.deepEqual([1e-5, 1e-4, 1e-3, 0.01, 0.1, 1].map(small), [
    "10⁻⁵",
    "10⁻⁴",
    "10⁻³",
    "10⁻²",
    "10⁻¹",
    "10⁰",
  ]);
  assert.equal(small(0.002), "2×10⁻³");
  const plain = logFormat(0.5, 500);
  assert.deepEqual([0.5, 1, 2, 10, 300].map(plain), ["0.5", "1", "2", "10", "300"]);
  // Never both kinds on one axis.
  for (const [min, max] of [
    [1e-5, 1],
    [0.5, 500],
    [1, 1000],
    [1, 1e6],
  ]) {
    const f = logFormat(min, max);
    const kinds = new Set(ticks("log", min, max, 12).map((v) => /10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]/.test(f(v))));
    assert.equal(kinds.size, 1, `${min}..${max}`);
  }
});

test("atLogX reads a curve linearly in log x between its grid points, clamped at its ends", async () => {
  const { atLogX, formatProb } = await import("../../web/format.js");
  const xs = [1, 10, 100];
  const ys = [1, 0.5, 0.1];
  assert.equal(atLogX(xs, ys, 10), 0.5);
  // Half-way in log between 1 and 10: √10.
  assert.ok(Math.abs(atLogX(xs, ys, Math.sqrt(10)) - 0.75) < 1e-12);
  assert.ok(Math.abs(atLogX(xs, ys, Math.sqrt(1000)) - 0.3) < 1e-12);
  assert.equal(atLogX(xs, ys, 0.1), 1);
  // Clamped at the last point, to within an ulp of the interpolation's arithmetic.
  assert.ok(Math.abs(atLogX(xs, ys, 1e6) - 0.1) < 1e-15);
  assert.equal(formatProb(0.047123), "4.71%");
  assert.equal(formatProb(1.2e-5), "0.0012%");
  assert.equal(formatProb(Number.NaN), "—");
});
