// runSweep's drafts (web/lab/section.js): every point first at 1/100 and 1/10 of its sample,
// ranked before the full-size points, each answer replaced in place by a larger one, never by a
// smaller one that arrives late. Driven by a fake client that records what it was asked and
// answers in the order a test chooses.

import assert from "node:assert/strict";
import { test } from "node:test";
import { DRAFT_FRACTIONS, runSweep } from "../../web/lab/section.js";

/**
 * A client that records one run and lets the test answer its calls by index (typed `any`: it
 * stands in for a SimClient).
 * @returns {any}
 */
function fakeClient(cachedKeys = new Set()) {
  /** @type {any} */
  const client = {
    calls: null,
    ranks: null,
    handlers: null,
    cached: (call) => cachedKeys.has(JSON.stringify(call)),
    run(calls, handlers) {
      client.calls = calls;
      client.ranks = handlers.ranks;
      client.handlers = handlers;
      handlers.onProgress(0, calls.length);
    },
    answer(index, result, error) {
      client.handlers.onPoint(index, result, error);
      client.handlers.onProgress();
    },
  };
  return client;
}

function fakeUi() {
  const ui = { last: null, progress: (...args) => (ui.last = args) };
  return ui;
}

const call = (load) => ({ fn: "simulateLoaded", args: [{ load, requests: 200_000, seed: 1 }] });

test("each point runs at 1/100, 1/10 and full size, drafts ranked first", () => {
  assert.deepEqual(DRAFT_FRACTIONS, [1 / 100, 1 / 10]);
  const client = fakeClient();
  runSweep(client, fakeUi(), [call(0.1), call(0.2)], {
    size: "requests",
    onResult: () => {},
    onError: () => {},
    redraw: () => {},
  });
  assert.deepEqual(
    client.calls.map((c) => [c.args[0].load, c.args[0].requests]),
    [
      [0.1, 2_000],
      [0.2, 2_000],
      [0.1, 20_000],
      [0.2, 20_000],
      [0.1, 200_000],
      [0.2, 200_000],
    ],
  );
  assert.deepEqual(client.ranks, [0, 0, 1, 1, 2, 2]);
  // Everything but the size is the caller's call, untouched.
  assert.equal(client.calls[0].fn, "simulateLoaded");
  assert.equal(client.calls[0].args[0].seed, 1);
});

test("a larger answer replaces a smaller one; a smaller one arriving late is ignored", () => {
  const client = fakeClient();
  const ui = fakeUi();
  const seen = [];
  runSweep(client, ui, [call(0.1), call(0.2)], {
    size: "requests",
    onResult: (r, final) => seen.push([r, final]),
    onError: () => assert.fail("no error expected"),
    redraw: () => {},
  });
  client.answer(4, "full 0.1"); // point 0 at full size first (another worker was faster)
  client.answer(0, "rough 0.1"); // ...then its 1/100 draft: ignored
  client.answer(2, "tenth 0.1"); // ...and its 1/10 draft: ignored
  client.answer(1, "rough 0.2");
  assert.deepEqual(ui.last, [1, 2, 2, 1], "done 1 of 2, both drafted, one at a tenth or more");
  client.answer(3, "tenth 0.2");
  assert.deepEqual(ui.last, [1, 2, 2, 2]);
  client.answer(5, "full 0.2");
  assert.deepEqual(ui.last, [2, 2, 2, 2]);
  assert.deepEqual(seen, [
    ["full 0.1", true],
    ["rough 0.2", false],
    ["tenth 0.2", false],
    ["full 0.2", true],
  ]);
});

test("a point cached at full size has no drafts; a draft's error is dropped, a final's is not", () => {
  const cached = call(0.1);
  const client = fakeClient(new Set([JSON.stringify(cached)]));
  const errors = [];
  runSweep(client, fakeUi(), [cached, call(0.2)], {
    size: "requests",
    onResult: () => {},
    onError: (e) => errors.push(e),
    redraw: () => {},
  });
  assert.deepEqual(
    client.calls.map((c) => [c.args[0].load, c.args[0].requests]),
    [
      [0.2, 2_000],
      [0.2, 20_000],
      [0.1, 200_000],
      [0.2, 200_000],
    ],
  );
  client.answer(0, undefined, "RangeError: too small");
  assert.deepEqual(errors, []);
  client.answer(3, undefined, "RangeError: final");
  assert.deepEqual(errors, ["RangeError: final"]);
});

test("without a size, a sweep runs each call once at rank 0", () => {
  const client = fakeClient();
  const ui = fakeUi();
  runSweep(client, ui, [call(0.1)], {
    onResult: () => {},
    onError: () => {},
    redraw: () => {},
  });
  assert.equal(client.calls.length, 1);
  assert.deepEqual(client.ranks, [0]);
  client.answer(0, "full");
  assert.deepEqual(ui.last, [1, 1, 1, 1]);
});

test("a draft never asks for less than minSize, nor more than its full size", () => {
  const client = fakeClient();
  const small = (/** @type {number} */ n) => ({ fn: "f", args: [{ arrivals: n }] });
  runSweep(client, fakeUi(), [small(50_000), small(1_500)], {
    size: "arrivals",
    minSize: 1000,
    onResult: () => {},
    onError: () => {},
    redraw: () => {},
  });
  assert.deepEqual(
    client.calls.map((/** @type {any} */ c) => c.args[0].arrivals),
    [1000, 1000, 5000, 1000, 50_000, 1500],
  );
});

test('a sweep of "auto" lengths drafts with the pilot its lengths are planned from', () => {
  const client = fakeClient();
  const ui = fakeUi();
  const seen = [];
  const auto = (load) => ({ fn: "simulateQueue", args: [{ load, requests: "auto", seed: 1 }] });
  runSweep(client, ui, [auto(0.1), auto(0.9)], {
    size: "requests",
    onResult: (r, final) => seen.push([r, final]),
    onError: () => assert.fail("no error expected"),
    redraw: () => {},
  });
  // One draft tier, the pilot (the core runs it on a seed of its own), then the planned run.
  assert.deepEqual(
    client.calls.map((c) => [c.args[0].load, c.args[0].requests, c.args[0].seed]),
    [
      [0.1, "pilot", 1],
      [0.9, "pilot", 1],
      [0.1, "auto", 1],
      [0.9, "auto", 1],
    ],
  );
  assert.deepEqual(client.ranks, [0, 0, 1, 1]);
  client.answer(0, "pilot 0.1");
  assert.deepEqual(ui.last, [0, 2, 1, 1]);
  client.answer(2, "planned 0.1");
  client.answer(1, "pilot 0.9");
  assert.deepEqual(ui.last, [1, 2, 2, 2]);
  assert.deepEqual(seen, [
    ["pilot 0.1", false],
    ["planned 0.1", true],
    ["pilot 0.9", false],
  ]);
});
