// A number in the prose that follows the controls (web/claims.js `liveDigits`): a moved share
// keeps enough decimals to be true. Near 0 it never reads "0%"; near 100% it never reads
// "100.0%" for a share short of all (the fan-out section at n = 1000 read "100.0%" for 99.996%).

import assert from "node:assert/strict";
import { test } from "node:test";
import { formatClaim, liveDigits } from "../../web/claims.js";

const shown = (v) => formatClaim(v, "percent", liveDigits(v, "percent", 1));

test("a share short of 100% never reads 100%, and the text's digits hold elsewhere", () => {
  assert.equal(shown(0.99996), "99.996%");
  assert.equal(shown(0.9995), "99.95%");
  assert.equal(shown(0.999), "99.9%");
  assert.equal(shown(0.634), "63.4%");
  assert.equal(shown(1), "100.0%");
  for (let k = 1; k <= 300; k++) {
    const v = 1 - 0.99 ** (k * 3);
    const text = shown(v);
    if (v < 0.999995) assert.notEqual(text, "100.0%", `${v}`);
    assert.doesNotMatch(text, /NaN|^0(\.0+)?%$/, `${v}`);
  }
});

test("a small share keeps two significant digits instead of reading 0%", () => {
  assert.equal(shown(0.0032), "0.32%");
  assert.equal(shown(0.032), "3.2%");
});
