// The Tail page's reads of a reader's latencies (web/tail/parse.js) in node, with stand-in
// workers the test answers by hand (issue 32, item 13): each read starts a worker of its own,
// and a read whose signal is aborted (a newer read superseded it) terminates its worker at once
// and resolves as aborted, whatever that worker would still have answered. The page's wiring
// (a newer upload aborts the older read) is tests/e2e/paste-surface.test.mjs's.

import assert from "node:assert/strict";
import { after, test } from "node:test";

/** Stands in for a module Worker: keeps what it is sent until the test answers on its port. */
class FakeWorker {
  /** @type {FakeWorker[]} */
  static all = [];
  constructor(url, options) {
    assert.match(String(url), /\/web\/tail\/worker\.js$/);
    assert.deepEqual(options, { type: "module" });
    /** @type {{ message: any, port: MessagePort }[]} */
    this.sent = [];
    this.terminated = false;
    FakeWorker.all.push(this);
  }
  /** @param {any} message @param {MessagePort[]} transfer */
  postMessage(message, transfer) {
    this.sent.push({ message, port: transfer[0] });
  }
  addEventListener() {}
  /** Answers the first question it holds, as web/tail/worker.js does, unless terminated. */
  answer(data) {
    const held = this.sent.shift();
    if (!held) return;
    if (!this.terminated) held.port.postMessage(data);
    held.port.close();
  }
  /** Ends it: the ports it holds close (in node an open port would keep the test running). */
  terminate() {
    this.terminated = true;
    for (const { port } of this.sent) port.close();
  }
}

globalThis.Worker = /** @type {any} */ (FakeWorker);
after(() => {
  // Whatever a failed test left open would keep node running.
  for (const w of FakeWorker.all) w.terminate();
  delete (/** @type {any} */ (globalThis).Worker);
});

const { exampleInWorker, parseInWorker } = await import("../../web/tail/parse.js");

/** Resolves once the reads aborted so far have run their `finally` (terminated their worker). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** The workers started and not terminated. */
const running = () => FakeWorker.all.filter((w) => !w.terminated).length;

test("a read whose signal is aborted stops its worker at once and resolves as aborted", async () => {
  // Four reads in a row, each superseding the one before (as four quick uploads do).
  const readers = [];
  const answers = [];
  for (let i = 0; i < 4; i++) {
    readers.at(-1)?.abort();
    const reader = new AbortController();
    readers.push(reader);
    answers.push(parseInWorker(`${i + 1}\n`, {}, reader.signal));
  }
  await settled();
  assert.equal(FakeWorker.all.length, 4, "one worker per read");
  assert.equal(running(), 1, "only the newest read's worker is still running");
  assert.ok(!FakeWorker.all[3].terminated, "the newest is the one left");
  for (const answer of answers.slice(0, 3)) {
    const got = await answer;
    assert.equal(got.aborted, true);
    assert.equal(got.result, undefined, "no result from a superseded read");
  }
  // What a superseded worker would have answered goes nowhere; the newest one's answer comes.
  FakeWorker.all[0].answer({ result: "stale" });
  assert.deepEqual(FakeWorker.all[3].sent[0].message, {
    type: "parse",
    source: "4\n",
    options: {},
  });
  FakeWorker.all[3].answer({ result: "fresh" });
  assert.deepEqual(await answers[3], { result: "fresh" });
  assert.equal(running(), 0, "a worker is let go once it answered");
});

test("a signal aborted before the read starts no worker; the example read stops the same way", async () => {
  const before = FakeWorker.all.length;
  const early = parseInWorker("1\n", {}, AbortSignal.abort());
  assert.equal(FakeWorker.all.length, before, "no worker for a read already superseded");
  assert.equal((await early).aborted, true);
  const reader = new AbortController();
  const example = exampleInWorker(reader.signal);
  assert.equal(running(), 1);
  assert.deepEqual(FakeWorker.all[before].sent[0].message, { type: "example" });
  reader.abort();
  await settled();
  assert.equal(running(), 0, "the example's worker is stopped");
  assert.equal((await example).aborted, true);
  // Without a signal a read runs to its answer, as the page's first read of a link does.
  const plain = parseInWorker("2\n");
  FakeWorker.all[before + 1].answer({ error: "line 1: no", line: 1 });
  assert.deepEqual(await plain, { error: "line 1: no", line: 1 });
  assert.equal(running(), 0);
});
