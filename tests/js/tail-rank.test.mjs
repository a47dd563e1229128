// The Tail page's percentile ranks (web/tail/rank.js) over the core's `parentLevel(q, n)`: the
// parent's q-quantile over n independent leaves is the leaf's q^(1/n)-quantile, said as an
// ordinal ("the leaf's 99.31st percentile") that never rounds a level below 1 up to "100th".

import assert from "node:assert/strict";
import { test } from "node:test";
import { formatPercentileRank, ordinalSuffix } from "../../web/tail/rank.js";
import { loadPackage } from "../support.mjs";

const pkg = await loadPackage();

test("the parent's median and p99 as the leaf's percentiles: 99.31st and 99.99th at n = 100", () => {
  const rank = (q, n) => formatPercentileRank(pkg.parentLevel(q, n));
  assert.equal(rank(0.5, 100), "99.31st");
  assert.equal(rank(0.99, 100), "99.99th");
  // One leaf is its own parent.
  assert.equal(rank(0.5, 1), "50th");
  assert.equal(rank(0.99, 1), "99th");
  // 0.5^(1/8) = 0.91700: trailing zeros go; 0.99^(1/2) = 0.994987.
  assert.equal(rank(0.5, 8), "91.7th");
  assert.equal(rank(0.99, 2), "99.5th");
  // The crossover: at n = 69 the parent median passes the leaf p99 (0.5^(1/69) = 0.990005).
  assert.equal(rank(0.5, 69), "99th");
  assert.ok(pkg.parentLevel(0.5, 69) > 0.99 && pkg.parentLevel(0.5, 68) < 0.99);
  // Two decimals would say 100.00 from n = 201 on for p99 (0.99^(1/256) = 0.99996074).
  assert.equal(rank(0.99, 256), "99.996th");
  assert.equal(rank(0.99, 1024), "99.999th");
  // Every fan-out the core accepts: a level below 1 never reads 100, and the rank, read back,
  // is the core's level to within half its last printed digit.
  for (let n = 1; n <= 1024; n++) {
    for (const q of [0.5, 0.9, 0.99, 0.999]) {
      const level = pkg.parentLevel(q, n);
      const text = formatPercentileRank(level);
      const [, number, suffix] = text.match(/^(\d+(?:\.\d+)?)(st|nd|rd|th)$/) ?? [];
      assert.ok(number, `q ${q} n ${n}: ${text}`);
      assert.ok(Number(number) < 100, `q ${q} n ${n}: ${text}`);
      const decimals = number.split(".")[1]?.length ?? 0;
      assert.ok(
        Math.abs(Number(number) - 100 * level) <= 0.5 * 10 ** -Math.max(decimals, 2) + 1e-12,
        `q ${q} n ${n}: ${text} vs ${100 * level}`,
      );
      assert.equal(suffix, ordinalSuffix(number));
    }
  }
});

test("ordinal suffixes: 1st 2nd 3rd 4th, 11th 12th 13th, 21st 22nd 23rd, 101st 111th", () => {
  const cases = {
    1: "st",
    2: "nd",
    3: "rd",
    4: "th",
    10: "th",
    11: "th",
    12: "th",
    13: "th",
    14: "th",
    21: "st",
    22: "nd",
    23: "rd",
    50: "th",
    99: "th",
    101: "st",
    111: "th",
    112: "th",
    // After a decimal point digits are read one by one: "point three one" → first.
    99.31: "st",
    99.11: "st",
    99.12: "nd",
    99.13: "rd",
    99.5: "th",
    98.62: "nd",
    99.99: "th",
  };
  for (const [digits, suffix] of Object.entries(cases))
    assert.equal(ordinalSuffix(digits), suffix, digits);
});

test("no level, no rank: a dash, never NaN", () => {
  for (const level of [null, undefined, Number.NaN, Infinity, -0.1, 1.5])
    assert.equal(formatPercentileRank(level), "—", String(level));
  assert.equal(formatPercentileRank(1), "100th");
  assert.equal(formatPercentileRank(0), "0th");
});

test("parentLevel refuses what has no rank, naming the argument", () => {
  for (const q of [0, 1, -0.5, Number.NaN])
    assert.throws(
      () => pkg.parentLevel(q, 100),
      (e) => e instanceof RangeError && /^q must be a quantile level in \(0, 1\)/.test(e.message),
      String(q),
    );
  for (const n of [0, 1025, 2.5])
    assert.throws(
      () => pkg.parentLevel(0.5, n),
      (e) => e instanceof RangeError && /^n must be an integer in 1\.\.=1024/.test(e.message),
      String(n),
    );
  // @ts-expect-error: a string where the API wants a number
  assert.throws(() => pkg.parentLevel("0.5", 100), TypeError);
});
