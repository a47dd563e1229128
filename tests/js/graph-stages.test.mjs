// The graph section's stage text (web/lab/sections/graph/stages.js), read as params.js reads a
// URL: round trips, clamps with a notice, refuses anything else whole, and what it gives is
// what simulateGraph accepts.

import assert from "node:assert/strict";
import test from "node:test";
import { readParams } from "../../web/params.js";
import {
  formatStages,
  fromPreset,
  parseStages,
  stageOptions,
} from "../../web/lab/sections/graph/stages.js";
import { loadPackage } from "../support.mjs";

const pkg = await loadPackage();

test("the stage text round-trips, and every preset's stages are a text the URL can carry", () => {
  for (const text of ["s", "p10", "p5k3", "s.e5,s.e10,s.e20", "p100.l,s.e0.5,p1000k1", "s,p10,s"]) {
    const [stages, why] = parseStages(text);
    assert.equal(why, null, text);
    assert.equal(formatStages(stages), text);
  }
  const texts = pkg.graphPresets().map((p) => formatStages(fromPreset(p.stages)));
  assert.deepEqual(texts, ["p100", "s,p10,s", "p5k3", "s.e5,s.e10,s.e20"]);
});

test("out of range is clamped with a notice; anything else drops the text whole", () => {
  assert.deepEqual(parseStages("p2000k5"), [
    [{ kind: "parallel", width: 1000, k: 5, service: "page", mean: 10 }],
    "a width of 2000 is outside 1..1000; using 1000",
  ]);
  assert.equal(parseStages("p5k9")[1], "k = 9 is outside 1..5; using 5");
  assert.equal(parseStages("s.e0.1")[1], "a mean of 0.1 ms is outside 0.2..10000; using 0.2");
  const [nine, why] = parseStages(Array(9).fill("s").join(","));
  assert.equal(nine.length, 8);
  assert.match(why ?? "", /at most 8 stages/);
  for (const bad of ["p", "x1", "s,", "p-3", "s.e", "p10k", " s", "s;p2", "<b>s</b>", "p1e3"]) {
    const [stages, notice] = parseStages(bad);
    assert.deepEqual(stages, [], bad);
    assert.match(notice ?? "", /is not a list of stages/, bad);
  }
  // Through params.js, as a URL is read: the value and a notice naming the parameter.
  const params = [
    {
      name: "graph-stages",
      type: "string",
      default: "",
      parse: (/** @type {string} */ t) => {
        const [stages, why] = parseStages(t);
        return [formatStages(stages), why];
      },
    },
  ];
  const read = readParams(params, () => "p5k7,s");
  assert.deepEqual(read.values, { "graph-stages": "p5,s" });
  assert.deepEqual(read.notices, ["graph-stages: k = 7 is outside 1..5; using 5"]);
});

test("the stages' options are what simulateGraph accepts, the Lab's stages on the Lab's model", () => {
  const lab = pkg.labDefaults().service;
  const [stages] = parseStages("s.l,p10k8,s.e4");
  const opts = stageOptions(stages, lab);
  assert.deepEqual(opts, [
    { kind: "single", service: lab },
    { kind: "parallel", width: 10, k: 8 },
    { kind: "single", service: { exponentialMs: 4 } },
  ]);
  // With the page's service given, only the "page" stage takes it.
  const own = { body: { medianMs: 30, sigma: 0.3 } };
  const r = pkg.simulateGraph({ stages: opts, service: own, requests: 500 });
  const s = pkg.simulateGraph({
    stages: [opts[0], { ...opts[1], service: own }, opts[2]],
    requests: 500,
  });
  assert.deepEqual(r, s);
});
