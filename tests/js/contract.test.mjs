// The contract between the core's three renderings of a result (the JS object, the generated
// TypeScript declaration and `tail-lab report --json`), for every registered model that has a
// wasm call: `models()` is iterated, so a model added later is checked without a line here
// (how the report runs it: `reportRunOf` in support.mjs, its options from the entry's fields).
//
// For each model: (a) the keys of the JS object, recursively, equal (b) the keys of its
// `export interface <resultType>` in web/pkg/tail_lab.d.ts (nested interfaces too) and (c) the
// camelCased keys of its entry in `tail-lab report --json --requests 1000`; every value has its
// declared type, in JS and in the JSON; and the call reproduces every report entry bit for bit.
// Exact comparisons only: nothing statistical here.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  camelKeys,
  conforms,
  dtsInterfaces,
  loadPackage,
  nativeReport,
  plain,
  reportRunOf,
  readDts,
} from "../support.mjs";

const pkg = await loadPackage();
const REQUESTS = 1000; // the smallest run loaded (requests) and balance (arrivals) accept
const SEED = 3;
const report = nativeReport(SEED, REQUESTS);
const dts = readDts();
const interfaces = dtsInterfaces(dts);
const models = pkg.models().filter((m) => m.call !== null);

/** Every key path of a value, recursively: `["curves.tMs", "delayMs", …]`, sorted. */
function keyPaths(value, prefix = "") {
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return [];
  if (Array.isArray(value)) return keyPaths(value[0] ?? null, prefix);
  return Object.entries(value)
    .flatMap(([k, v]) => {
      const p = `${prefix}${k}`;
      const inner = keyPaths(v, `${p}.`);
      return inner.length > 0 ? [p, ...inner] : [p];
    })
    .sort();
}

/** Every key path an interface declares, following fields typed by other interfaces. */
function declaredPaths(name, prefix = "") {
  return Object.entries(interfaces[name])
    .flatMap(([k, { type }]) => {
      const p = `${prefix}${k}`;
      return interfaces[type] ? [p, ...declaredPaths(type, `${p}.`)] : [p];
    })
    .sort();
}

/** The options interface of `call`, from its generated signature. */
function optionsOf(call) {
  const m = new RegExp(`export function ${call}\\(opts\\?: (\\w+)\\): (\\w+);`).exec(dts);
  assert.ok(m, `${call} has a typed signature in the .d.ts`);
  return { options: m[1], result: m[2] };
}

/** A run against simulated time kept small: ms of arrivals (`spanMs`). */
const SMALL_SPAN_MS = 6_000;

/**
 * Defaults, but small: any count option the call has (`requests`, `arrivals`, `probes`) at
 * REQUESTS, or the span of simulated time of a run drawn against time (`spanMs`) at
 * SMALL_SPAN_MS. A call whose length is simulated time as `durationMs` runs its defaults,
 * which its model keeps small (the report runs them too).
 */
function smallDefaults(call) {
  const fields = interfaces[optionsOf(call).options];
  const opts = {};
  for (const k of ["requests", "arrivals", "probes"]) if (k in fields) opts[k] = REQUESTS;
  if ("spanMs" in fields) opts.spanMs = SMALL_SPAN_MS;
  assert.ok(
    Object.keys(opts).length > 0 || "durationMs" in fields,
    `${call}: no requests, arrivals, probes, spanMs or durationMs option`,
  );
  return opts;
}

/** What a JSON value of the report may be for a declared type (arrays stand for typed arrays). */
function jsonConforms(value, type, path) {
  const asJs = (v, t) => {
    if (Array.isArray(v) && splitUnion(t).includes("Float64Array")) return Float64Array.from(v);
    if (v !== null && typeof v === "object" && interfaces[t])
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [k, asJs(x, interfaces[t][k]?.type ?? "")]),
      );
    return v;
  };
  return conforms(asJs(value, type), type, interfaces, path);
}
const splitUnion = (t) => t.split("|").map((x) => x.trim());

test("the registry has models with calls, and the .d.ts parser reads their shapes", () => {
  assert.ok(models.length >= 4, models.map((m) => m.call).join());
  for (const name of ["FanoutResult", "HedgeResult", "SurvivalCurves", "LoadedResult"])
    assert.ok(Object.keys(interfaces[name] ?? {}).length > 3, name);
  assert.deepEqual(interfaces.LoadedResult.p99, { type: "number | null", optional: false });
  assert.deepEqual(interfaces.HedgeResult.curves, { type: "SurvivalCurves", optional: false });
  assert.equal(interfaces.LoadedOptions.requests.optional, true);
  // The type check itself tells a wrong type, a missing key and an extra key apart.
  assert.deepEqual(conforms(null, "number | null", interfaces), []);
  assert.equal(conforms("1", "number | null", interfaces).length, 1);
  assert.equal(conforms([1], "Float64Array", interfaces).length, 1);
  assert.match(conforms({ medianMs: 1 }, "LogNormal", interfaces).join(), /keys \[medianMs\]/);
  assert.match(conforms({ medianMs: 1, sigma: 1, x: 0 }, "LogNormal", interfaces).join(), /keys/);
  assert.deepEqual(conforms({ medianMs: 1, sigma: 1 }, "LogNormal", interfaces), []);
});

for (const model of models) {
  test(`${model.call}: the JS object, the .d.ts interface and the report entry have the same fields and types`, () => {
    const { result } = optionsOf(model.call);
    assert.equal(result, model.resultType, "the signature returns the model's result type");
    assert.ok(interfaces[result], `export interface ${result} in tail_lab.d.ts`);
    const js = pkg[model.call](smallDefaults(model.call));
    const entry = report[model.key];
    assert.ok(entry !== undefined, `the report has "${model.key}"`);
    assert.equal(Array.isArray(entry), model.sweep, "a sweep's entry is an array");
    const entries = model.sweep ? entry : [entry];
    assert.ok(entries.length > 0);

    const declared = declaredPaths(result);
    assert.deepEqual(keyPaths(js), declared, "(a) JS object = (b) .d.ts interface");
    for (const e of entries)
      assert.deepEqual(keyPaths(camelKeys(e)), declared, "(c) report entry = (b) .d.ts interface");

    assert.deepEqual(conforms(js, result, interfaces, model.call), []);
    for (const [i, e] of entries.entries())
      assert.deepEqual(jsonConforms(camelKeys(e), result, `${model.key}[${i}]`), []);
  });

  test(`${model.call} reproduces every field of every "${model.key}" report entry, bit for bit`, () => {
    const run = reportRunOf(model, dts);
    const entries = model.sweep ? report[model.key] : [report[model.key]];
    for (const e of entries) {
      const opts = { ...run(e, REQUESTS), seed: SEED };
      assert.deepEqual(plain(pkg[model.call](opts)), camelKeys(e), JSON.stringify(opts));
    }
  });
}
