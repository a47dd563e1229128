// After any failure the module still answers (issue 10, found case 2). A trapped wasm instance
// leaks its shadow stack, and before this fix about 800 traps made every later call throw
// "memory access out of bounds"; an out-of-memory trap said nothing at all. The binding now
// reports both and has wasm-bindgen replace the instance before the next call.
//
// Bad input cannot make the shipped module fail, so these tests load target/fault-pkg: the
// same binding with two test-only exports, `injectPanic` and `injectOutOfMemory`
// (`cargo xtask ci` builds it; see xtask's build_fault_package).

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "../support.mjs";

const DIR = join(ROOT, "target", "fault-pkg");
assert.ok(
  existsSync(join(DIR, "tail_lab.js")),
  "target/fault-pkg is missing: `cargo xtask ci` builds it",
);
const pkg = await import(join(DIR, "tail_lab.js"));
pkg.initSync({ module: readFileSync(join(DIR, "tail_lab_bg.wasm")) });

/** Runs `f` with console.error and globalThis.tailLabOnPanic recorded instead of printed. */
function capturing(f) {
  const logged = [];
  const shown = [];
  const original = console.error;
  console.error = (m) => logged.push(String(m));
  globalThis.tailLabOnPanic = (m) => shown.push(m);
  try {
    f();
  } finally {
    console.error = original;
    delete globalThis.tailLabOnPanic;
  }
  return { logged, shown };
}

const exactShare = 1 - 0.99 ** 100;
const percentileAfter = (requests) => {
  const run = new pkg.TailRun({ fanout: 20, seed: 7 });
  run.run(requests);
  const p = run.parentPercentile(0.99);
  run.free();
  return p;
};

test("a panic is reported, the call throws, and the next call gets a fresh instance (1,000 times)", () => {
  const before = percentileAfter(2000);
  const old = new pkg.TailRun({});
  old.run(10);
  const traps = 1000;
  const { logged, shown } = capturing(() => {
    for (let i = 0; i < traps; i++) {
      assert.throws(() => pkg.injectPanic(), WebAssembly.RuntimeError);
      // Every call after a trap answers, and answers right.
      assert.ok(Math.abs(pkg.slowShare(0.01, 100) - exactShare) < 1e-12);
    }
  });
  assert.equal(logged.length, traps, "every panic is written to console.error");
  assert.deepEqual(shown, logged, "and shown through tailLabOnPanic");
  assert.match(
    logged[0],
    /^tail-lab: internal error: .*injected fault.*reset before the next call/s,
  );
  // The same seed gives the same numbers on the fresh instance.
  assert.equal(percentileAfter(2000), before);
  // An object made before the reset refuses to run rather than read another instance's memory.
  assert.throws(() => old.run(1), /stale object/);
});

test("running out of wasm memory is reported and the module answers afterwards", () => {
  const before = percentileAfter(2000);
  const { logged } = capturing(() => {
    for (let i = 0; i < 3; i++) {
      assert.throws(() => pkg.injectOutOfMemory(), WebAssembly.RuntimeError);
      assert.ok(Math.abs(pkg.slowShare(0.01, 100) - exactShare) < 1e-12);
    }
  });
  assert.equal(logged.length, 3);
  assert.match(logged[0], /^tail-lab: out of wasm memory/);
  assert.equal(percentileAfter(2000), before);
  // Options still cross and errors still name their argument after a reset.
  assert.throws(() => pkg.simulateFanout({ n: 0 }), RangeError);
});
