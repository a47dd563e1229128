// The Tail page's worker pool (web/tail/pool.js) in node, with fake workers the test answers by
// hand: how a run is cut into blocks, that a channel gives them back strictly in block order
// whatever order the workers answer in, that stale answers are dropped, that a lost
// worker's blocks are handed out again with the same ranges, and that the last channel closed
// terminates the workers (the next one starts new ones).

import assert from "node:assert/strict";
import { after, test } from "node:test";

/** Stands in for a module Worker: keeps what it is sent until the test answers. */
class FakeWorker {
  static all = [];
  constructor(url, options) {
    assert.match(String(url), /\/web\/tail\/worker\.js$/);
    assert.deepEqual(options, { type: "module" });
    this.onmessage = null;
    this.onerror = null;
    this.sent = [];
    this.terminated = false;
    FakeWorker.all.push(this);
  }
  postMessage(data) {
    this.sent.push(data);
  }
  /** Answers the block sent `at`th among those still held (a block that echoes its range). */
  answer(at = 0) {
    const [m] = this.sent.splice(at, 1);
    const { channel, generation, index, first, count } = m;
    this.onmessage?.({ data: { channel, generation, index, block: { first, count } } });
  }
  terminate() {
    this.terminated = true;
  }
}

globalThis.Worker = FakeWorker;
globalThis.document ??= { addEventListener() {}, hidden: false };
const warn = console.warn;
const warned = [];
console.warn = (message) => warned.push(message);
after(() => {
  console.warn = warn;
  delete globalThis.Worker;
});

const { blockSize, sharedPool, tailWorkStatus } = await import("../../web/tail/pool.js");

assert.deepEqual(
  tailWorkStatus(),
  { workers: 0, channels: 0, inflight: 0 },
  "no pool before first use",
);
const pool = sharedPool(3);
/** The pool's workers now: the last three started (closing the last channel ends them). */
const current = () => FakeWorker.all.slice(-3);

/** Everything the workers hold, answered in the order `pick` chooses, until nothing is left. */
function drain(workers, pick) {
  for (;;) {
    const holding = workers.filter((w) => w.sent.length > 0 && !w.terminated);
    if (holding.length === 0) return;
    const w = pick(holding);
    w.answer(w.sent.length - 1);
  }
}

test("the pool is shared: one per page, whatever is asked later", () => {
  assert.equal(sharedPool(1), pool);
  assert.equal(FakeWorker.all.length, 3);
  assert.deepEqual(tailWorkStatus(), { workers: 3, channels: 0, inflight: 0 });
});

test("blocks: 1/64 of the full size, doubling to it, contiguous, the last cut at the cap", () => {
  assert.equal(blockSize(100), 4000);
  assert.equal(blockSize(1), 400_000);
  assert.equal(blockSize(1_000_000), 16);
  const c = pool.channel();
  c.configure({ fanout: 100, profile: "default", fix: "none", seed: 1 }, 30_000);
  assert.equal(tailWorkStatus().inflight, 0, "nothing is handed out until the panel asks");
  // Cut the whole run here, without handing anything to a worker.
  // Time stands still for this test: the panel asked at 0, and every question is asked then,
  // so no stall of the machine can end the run early.
  c.lastWanted = 0;
  const blocks = [];
  while (c.wants(0)) blocks.push(c.nextBlock());
  assert.deepEqual(
    blocks.map((b) => b.count),
    [62, 124, 248, 496, 992, 1984, 3968, 4000, 4000, 4000, 4000, 4000, 2126],
  );
  assert.deepEqual(
    blocks.map((b) => b.index),
    blocks.map((_, i) => i),
  );
  let next = 0;
  for (const b of blocks) {
    assert.equal(b.first, next);
    next += b.count;
  }
  assert.equal(next, 30_000);
  c.close();
});

test("take() gives blocks in block order, whatever order the workers answer in", () => {
  const c = pool.channel();
  const [w0, w1, w2] = current();
  c.configure({ fanout: 400, profile: "default", fix: "none", seed: 1 }, 20_000);
  c.keepFeeding();
  // Every worker holds two blocks: one running, one queued.
  assert.deepEqual(tailWorkStatus(), { workers: 3, channels: 1, inflight: 6 });
  assert.deepEqual(c.take(), [], "nothing has come back");
  const merged = [];
  let turn = 0;
  // The last worker answers first, its newest block first; then the others.
  drain([w0, w1, w2], (holding) => holding[(holding.length - 1 + turn++) % holding.length]);
  merged.push(...c.take());
  // Asked at the moment the panel last asked (keepFeeding), so the 250 ms idle cut-off never
  // depends on how fast this machine runs the loop.
  for (let rounds = 0; c.wants(c.lastWanted) || tailWorkStatus().inflight > 0; rounds++) {
    assert.ok(rounds < 1000);
    c.keepFeeding();
    drain([w2, w0, w1], (holding) => holding[(turn++ * 7) % holding.length]);
    merged.push(...c.take());
  }
  let next = 0;
  for (const b of merged) {
    assert.equal(b.first, next, "merged strictly in order, each block once");
    next += b.count;
  }
  assert.equal(next, 20_000);
  assert.equal(c.error, null);
  c.close();
  assert.equal(tailWorkStatus().channels, 0);
});

test("answers from settings since changed are dropped", () => {
  const c = pool.channel();
  const [w0, w1, w2] = current();
  c.configure({ fanout: 400, profile: "default", fix: "none", seed: 1 }, 5000);
  c.keepFeeding();
  const stale = tailWorkStatus().inflight;
  assert.ok(stale > 0);
  c.configure({ fanout: 200, profile: "default", fix: "none", seed: 2 }, 5000);
  // The old blocks come back: none is taken.
  for (const w of [w0, w1, w2]) while (w.sent.length > 0 && w.sent[0].generation === 1) w.answer(0);
  assert.deepEqual(c.take(), []);
  c.keepFeeding();
  drain([w0, w1, w2], (holding) => holding.at(-1));
  const got = c.take();
  assert.ok(got.length > 0);
  assert.equal(got[0].first, 0);
  c.close();
  drain([w0, w1, w2], (holding) => holding[0]);
});

test("a lost worker's blocks go to the others, with the same ranges; with none left the channel fails", () => {
  const c = pool.channel();
  const [w0, w1, w2] = current();
  c.configure({ fanout: 400, profile: "default", fix: "none", seed: 1 }, 8000);
  c.keepFeeding();
  const held = w1.sent.map((m) => `${m.index}:${m.first}+${m.count}`);
  assert.equal(held.length, 2);
  w1.onerror({ message: "lost in a test", preventDefault() {} });
  assert.equal(w1.terminated, true);
  assert.equal(tailWorkStatus().workers, 2);
  assert.match(warned.at(-1), /^Tail: lost in a test; 2 worker\(s\) left$/);
  // Answer the two others' first blocks: the lost ones are handed out again next, first.
  w0.answer(0);
  w2.answer(0);
  const again = [...w0.sent, ...w2.sent].map((m) => `${m.index}:${m.first}+${m.count}`);
  for (const h of held) assert.ok(again.includes(h), `block ${h} handed out again`);
  const merged = [];
  // Asked at the moment the panel last asked (keepFeeding), so the 250 ms idle cut-off never
  // depends on how fast this machine runs the loop.
  for (let rounds = 0; c.wants(c.lastWanted) || tailWorkStatus().inflight > 0; rounds++) {
    assert.ok(rounds < 1000);
    c.keepFeeding();
    drain([w2, w0], (holding) => holding.at(-1));
    merged.push(...c.take());
  }
  let next = 0;
  for (const b of merged) {
    assert.equal(b.first, next, "merged strictly in order, each block once");
    next += b.count;
  }
  assert.equal(next, 8000);
  assert.equal(c.error, null);

  // Both others lost: every channel fails, so its panel carries on on the main thread.
  c.configure({ fanout: 400, profile: "default", fix: "none", seed: 1 }, 8000);
  c.keepFeeding();
  w0.onerror({ message: "lost in a test" });
  w2.onerror({ message: "lost again" });
  assert.equal(c.error, "no worker left (lost again)");
  assert.deepEqual(tailWorkStatus(), { workers: 0, channels: 1, inflight: 0 });
  const late = pool.channel();
  late.configure({ fanout: 1, profile: "default", fix: "none", seed: 1 }, 10);
  assert.equal(
    late.error,
    "no worker left (lost again)",
    "a channel opened with no worker fails at once",
  );
  c.close();
  late.close();
});

test("the last channel closed terminates every worker; the next channel starts new ones", () => {
  const before = FakeWorker.all.length;
  const a = pool.channel();
  const b = pool.channel();
  assert.equal(FakeWorker.all.length, before + 3, "a pool with none left starts again");
  const started = current();
  a.configure({ fanout: 400, profile: "default", fix: "none", seed: 1 }, 8000);
  a.keepFeeding();
  assert.ok(tailWorkStatus().inflight > 0);
  a.close();
  assert.deepEqual(
    started.map((w) => w.terminated),
    [false, false, false],
    "a channel still open keeps them",
  );
  b.close();
  assert.deepEqual(
    started.map((w) => w.terminated),
    [true, true, true],
  );
  assert.deepEqual(tailWorkStatus(), { workers: 0, channels: 0, inflight: 0 });
  b.close();
  assert.equal(FakeWorker.all.length, before + 3, "closing twice starts nothing");
  const c = pool.channel();
  assert.equal(FakeWorker.all.length, before + 6);
  assert.equal(tailWorkStatus().workers, 3);
  c.configure({ fanout: 400, profile: "default", fix: "none", seed: 1 }, 8000);
  c.keepFeeding();
  const [w0, w1, w2] = current();
  drain([w0, w1, w2], (holding) => holding[0]);
  assert.ok(c.take().length > 0, "the new workers answer");
  c.close();
  assert.ok(current().every((w) => w.terminated));
});
