// The Tail panel's run (web/tail/run.js) in node, against the built package: prepared over
// several tasks, accumulated on the main-thread path or through the worker pool (fake workers
// that run blocks as web/tail/worker.js does, answering out of order), reconfigured, reset and
// settled. Whatever the path, the histograms are those of a direct TailRun of the same settings,
// bit for bit.

import assert from "node:assert/strict";
import { test } from "node:test";
import { digest, openRun, prepareRun, runOptions } from "../../web/tail/run.js";
import { loadPackage } from "../support.mjs";

const pkg = await loadPackage();

const SETTINGS = { fanout: 40, profile: "gc-pause", fix: "hedge-p95", seed: 7, requests: 3000 };

/** A direct TailRun of `settings`, run to its cap in one call: what every path must equal. */
function direct(settings) {
  const run = new pkg.TailRun(runOptions(settings));
  run.run(settings.requests);
  const out = {
    leaf: run.leafBins().slice(),
    parent: run.parentBins().slice(),
    requests: run.requests,
  };
  run.free();
  return out;
}

const sameBits = (a, b, what) =>
  assert.deepEqual(new Uint32Array(a.buffer), new Uint32Array(b.buffer), what);

function assertMatches(life, settings) {
  const want = direct(settings);
  assert.equal(life.run.requests, want.requests);
  sameBits(life.run.leafBins().slice(), want.leaf, "leaf histogram");
  sameBits(life.run.parentBins().slice(), want.parent, "parent histogram");
  assert.equal(life.digest(), digest(want.leaf, want.parent));
}

/** Frames of `budget` ms on the main-thread path until the run settles; returns the digest. */
async function runToCap(life, budget = 1) {
  for (let frames = 0; frames < 100_000; frames++) {
    life.accumulate(performance.now(), budget);
    const d = life.settle();
    if (d !== null) return d;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error("the run never settled");
}

test("prepareRun gives the run new TailRun gives", async () => {
  const prepared = await prepareRun(pkg, runOptions(SETTINGS));
  const made = new pkg.TailRun(runOptions(SETTINGS));
  assert.deepEqual(prepared.config, made.config);
  assert.equal(prepared.leafQuantile(0.99), made.leafQuantile(0.99));
  prepared.run(500);
  made.run(500);
  sameBits(prepared.parentBins().slice(), made.parentBins().slice());
  prepared.free();
  made.free();
});

test("main thread: accumulated in frames, settled, the same bits as one direct run", async () => {
  const life = await openRun(pkg, SETTINGS, { workers: 0 });
  assert.equal(life.inWorkers, false);
  assert.equal(life.preparing, false);
  assert.equal(life.run.requests, 0);
  assert.equal(life.settle(), null, "nothing to settle before the cap");
  // Small budgets: many calls of adaptive size, which must not change a number.
  const d = await runToCap(life, 0.5);
  assert.match(d, /^[0-9a-f]{8}$/);
  assert.equal(life.hasWork, false);
  assertMatches(life, SETTINGS);
  assert.equal(life.settle(), null, "settles once");
  assert.equal(life.digest(), d, "the digest is stable");
  // One big frame gives the same run.
  life.reset();
  assert.equal(life.run.requests, 0);
  life.accumulate(performance.now(), Number.POSITIVE_INFINITY);
  assert.equal(life.settle(), d, "a reset run settles again, to the same digest");
  life.close();
});

test("reconfigure: fan-out and fix at once, profile and seed prepared; each starts again", async () => {
  const life = await openRun(pkg, SETTINGS, { workers: 0 });
  await runToCap(life, 5);
  const first = life.run;

  // Fan-out: the same run, reconfigured, from request 0.
  const fanout = life.reconfigure({ fanout: 12 });
  assert.equal(life.preparing, false);
  assert.equal(await fanout, true);
  assert.equal(life.run, first);
  assert.equal(life.run.requests, 0);
  assert.equal(life.settled, false);
  await runToCap(life);
  assertMatches(life, { ...SETTINGS, fanout: 12 });

  // Seed: a new run, prepared over tasks; nothing accumulates meanwhile.
  const seed = life.reconfigure({ seed: 8 });
  assert.equal(life.preparing, true);
  life.accumulate(performance.now(), Number.POSITIVE_INFINITY);
  assert.equal(life.settle(), null, "no settling while preparing");
  assert.equal(await seed, true);
  assert.equal(life.preparing, false);
  assert.notEqual(life.run, first);
  assert.equal(life.run.requests, 0);
  await runToCap(life);
  assertMatches(life, { ...SETTINGS, fanout: 12, seed: 8 });

  // A new cap (reset), and a cap given with other settings.
  life.reset(1000);
  await runToCap(life);
  assertMatches(life, { ...SETTINGS, fanout: 12, seed: 8, requests: 1000 });
  assert.equal(await life.reconfigure({ fix: "none", requests: 2000 }), true);
  await runToCap(life);
  assertMatches(life, { ...SETTINGS, fanout: 12, seed: 8, fix: "none", requests: 2000 });
  life.close();
});

test("reconfigure: a newer profile or seed supersedes one being prepared; fan-out waits for it", async () => {
  const life = await openRun(pkg, SETTINGS, { workers: 0 });
  const a = life.reconfigure({ seed: 2 });
  const b = life.reconfigure({ profile: "tight" });
  const c = life.reconfigure({ fanout: 3 });
  assert.deepEqual(await Promise.all([a, b, c]), [false, true, false]);
  assert.deepEqual(
    life.run.config,
    runOptions({ ...SETTINGS, seed: 2, profile: "tight", fanout: 3 }),
  );
  await runToCap(life);
  assertMatches(life, { ...SETTINGS, seed: 2, profile: "tight", fanout: 3 });
  life.close();
});

test("abort: a mount or a reconfigure under way stops, and frees what it prepared", async () => {
  const gone = new AbortController();
  gone.abort();
  await assert.rejects(openRun(pkg, SETTINGS, { signal: gone.signal }), { name: "AbortError" });
  const controller = new AbortController();
  const life = await openRun(pkg, SETTINGS, { signal: controller.signal });
  const before = pkg.heapBytes();
  const seed = life.reconfigure({ seed: 99 });
  controller.abort();
  assert.equal(await seed, false);
  assert.equal(pkg.heapBytes(), before, "the run being prepared was freed");
  life.close();
});

// ---- the worker path, with workers that run blocks in this thread and answer out of order

/** Stands in for a module Worker running web/tail/worker.js: answers in a scrambled order. */
class FakeWorker {
  static all = [];
  constructor() {
    this.onmessage = null;
    this.onerror = null;
    this.queue = [];
    FakeWorker.all.push(this);
  }
  postMessage(data) {
    this.queue.push(data);
    // Answer later, the newest first, so blocks come back out of index order.
    setTimeout(() => this.answer(), this.queue.length % 2);
  }
  answer() {
    const data = this.queue.pop();
    if (!data || !this.onmessage) return;
    const { channel, generation, index, options, first, count } = data;
    const run = new pkg.TailRun(options);
    run.runRange(first, count);
    const block = run.block();
    run.free();
    this.onmessage({ data: { channel, generation, index, block } });
  }
  terminate() {
    this.onmessage = null;
  }
}

test("workers: blocks answered out of order merge to the direct run's bits; a lost worker costs nothing", async () => {
  globalThis.Worker = FakeWorker;
  globalThis.document ??= { addEventListener() {}, hidden: false };
  const warn = console.warn;
  const warned = [];
  console.warn = (message) => warned.push(message);
  try {
    const settings = { ...SETTINGS, requests: 40_000 };
    const life = await openRun(pkg, settings, { workers: 2 });
    assert.equal(life.inWorkers, true);
    assert.equal(FakeWorker.all.length, 2);
    await runToCap(life);
    assert.equal(life.inWorkers, true, "no worker failed");
    assertMatches(life, settings);
    const d = life.digest();

    // A new fan-out: blocks of the old settings still out are dropped.
    assert.equal(await life.reconfigure({ fanout: 7 }), true);
    await runToCap(life);
    assertMatches(life, { ...settings, fanout: 7 });

    // One worker is lost mid-run (an error event): its blocks go to the other.
    life.reset();
    life.accumulate(performance.now(), 1);
    FakeWorker.all[0].onerror({ message: "lost in a test" });
    const seven = direct({ ...settings, fanout: 7 });
    assert.equal(await runToCap(life), digest(seven.leaf, seven.parent));
    assert.equal(life.inWorkers, true);

    // The last one is lost too: the main thread carries on from the blocks merged so far.
    assert.equal(await life.reconfigure({ fanout: 40 }), true);
    life.accumulate(performance.now(), 1);
    await new Promise((r) => setTimeout(r, 5));
    FakeWorker.all[1].onerror({ message: "lost in a test" });
    assert.equal(await runToCap(life), d);
    assert.equal(life.inWorkers, false);
    assert.match(
      warned.at(-1),
      /^Tail workers stopped \(no worker left \(lost in a test\)\); accumulating on the main thread$/,
    );
    life.close();
  } finally {
    console.warn = warn;
    delete globalThis.Worker;
  }
});
