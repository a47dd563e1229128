// Soak: the Tail page keeps accumulating while a reader keeps changing its settings, and
// nothing leaks, breaks or stalls. In CI: at least 300,000 requests and four cycles of
// settings (in practice about 10^7 requests, since each setting accumulates for 0.6 s in the
// workers); on demand as long as you like:
//   SOAK_REQUESTS=100000000 node --test tests/e2e/soak.test.mjs
//
// Every ~0.6 s a setting moves: the fan-out slider by an arrow key (as a keyboard drag does),
// and the fix and profile through all twelve combinations, a cycle of twelve moves. Each move
// resets the run, so the total is the sum of what each setting showed just before the next
// move. After two full cycles (every combination has run twice) the JS heap (after a forced
// GC), wasm memory and the core's live heap (`heapBytes()`) are sampled, and again at the end
// of a whole cycle, at the same settings: the core's live heap must be the same to the byte
// (a leak of any size shows), wasm memory at most one 64 KB page larger (it only grows, in
// pages, and where a freed block lands can cost a page once), the JS heap at most 2 MB. The
// page runs two accumulation workers (`?workers=2`), and each one's core is sampled the same
// way (`tailWorkerHeaps()`, after the setting has run 0.6 s more in them, so each has run blocks
// of the latest settings: a run's few bytes of configuration follow its fan-out and fix): its
// live heap the same to the byte, its wasm memory at most a page larger. Throughout: no console
// error or warning, no NaN/∞/undefined in any readout; at the end, frames still arriving.
//
// The Lab's workers soak in a second test: the same sweeps, run again and again in them (see
// there for what "the same settings" means with the page's result cache), every worker's live
// heap the same to the byte a whole number of cycles apart.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchChromium, serveWeb } from "../support.mjs";

const TARGET = Number(process.env.SOAK_REQUESTS ?? 300_000);
const CYCLE = 12;
let server, browser, page, cdp;
const problems = [];

before(async () => {
  server = await serveWeb();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  cdp = await page.context().newCDPSession(page);
  await page.goto(`${server.url}tail.html?workers=2`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/**
 * JS heap in use after a full GC, wasm memory, and the core's live heap (`heapBytes()`), in
 * bytes, once any new calibration has finished (so nothing is half built).
 */
async function memory() {
  await page.waitForFunction(() => document.querySelector("#tail").dataset.preparing !== "true");
  // And once the page has merged requests at these settings: a sample taken between a move and
  // the first block merged after it can find the core 16 bytes short of where every merge
  // leaves it (seen once on a loaded machine), which is timing, not a leak.
  await page.waitForFunction(
    () =>
      Number(document.querySelector('[data-readout="requests"]')?.textContent.replace(/,/g, "")) >
      0,
  );
  await cdp.send("HeapProfiler.collectGarbage");
  const { usedSize } = await cdp.send("Runtime.getHeapUsage");
  // The page's glue module is a singleton: init() again returns the live instance's exports.
  const { wasm, heap } = await page.evaluate(async () => {
    const glue = await import("./pkg/tail_lab.js");
    return { wasm: (await glue.default()).memory.buffer.byteLength, heap: glue.heapBytes() };
  });
  return { js: usedSize, wasm, heap };
}

/**
 * Every Tail worker's core: `{ heapBytes, wasmBytes }` each, after the current setting has run
 * 0.6 s more in them (blocks of a few ms each, so every worker has run some).
 */
async function workerMemory() {
  await page.waitForTimeout(600);
  return page.evaluate(async () => (await import("./tail/pool.js")).tailWorkerHeaps());
}

/**
 * Each worker's core now against at warm-up: the live heap to the byte, wasm memory at most one
 * 64 KB page larger (as the page's own core).
 */
function sameWorkerMemory(warm, end, pool) {
  assert.equal(end.length, warm.length, `${pool} workers: ${warm.length} → ${end.length}`);
  warm.forEach((w, i) => {
    assert.equal(
      end[i].heapBytes,
      w.heapBytes,
      `${pool} worker ${i}'s live heap changed after warm-up: ${w.heapBytes} → ${end[i].heapBytes} bytes`,
    );
    assert.ok(
      end[i].wasmBytes - w.wasmBytes <= 65_536,
      `${pool} worker ${i}'s wasm memory grew after warm-up: ${w.wasmBytes} → ${end[i].wasmBytes} bytes`,
    );
  });
}

/** Animation frames delivered in one second (printed, never asserted). */
const framesPerSecond = () =>
  page.evaluate(
    () =>
      new Promise((done) => {
        let frames = 0;
        const start = performance.now();
        const tick = () => {
          frames++;
          if (performance.now() - start < 1000) requestAnimationFrame(tick);
          else done(frames);
        };
        requestAnimationFrame(tick);
      }),
  );

const readouts = () =>
  page.$$eval("[data-readout]", (els) => els.map((e) => [e.dataset.readout, e.textContent]));

test(`${TARGET.toLocaleString("en")} requests while the sliders move: flat memory, no errors, no NaN, frames arriving`, {
  timeout: 60 * 60_000,
}, async () => {
  let total = 0;
  let moves = 0;
  let warm = null;
  let warmWorkers = null;
  const fixes = ["none", "hedge-p95", "drop-1", "drop-5"];
  const profiles = ["default", "gc-pause", "tight"];
  // Whole cycles only, so the end is sampled at the same settings as the warm point.
  while (total < TARGET || moves < 4 * CYCLE || moves % CYCLE !== 0) {
    await page.waitForTimeout(600);
    // What this setting accumulated, read just before the next move resets the run.
    const shown = await readouts();
    for (const [name, text] of shown) {
      assert.ok(!/NaN|Infinity|undefined|null/.test(text), `readout ${name} shows “${text}”`);
    }
    total += Number(shown.find(([n]) => n === "requests")[1].replace(/,/g, ""));
    // The fan-out slider: six steps one way, six back, by keyboard.
    await page.focus("#fanout");
    await page.keyboard.press(moves % CYCLE < CYCLE / 2 ? "ArrowRight" : "ArrowLeft");
    await page.selectOption("#fix", fixes[moves % fixes.length]);
    await page.selectOption("#profile", profiles[Math.floor((moves % CYCLE) / fixes.length)]);
    moves++;
    if (moves === 2 * CYCLE) {
      warm = await memory();
      warmWorkers = await workerMemory();
    }
  }
  const end = await memory();
  const endWorkers = await workerMemory();
  const fps = await framesPerSecond();
  assert.ok(warm, "warmed up");
  // No leak: the core holds the same bytes at the same settings, to the byte. Wasm memory may
  // take one more 64 KB page (where a free block falls depends on the order of allocations),
  // never more.
  assert.equal(
    end.heap,
    warm.heap,
    `the core's live heap changed after warm-up: ${warm.heap} → ${end.heap} bytes`,
  );
  assert.ok(
    end.wasm - warm.wasm <= 65_536,
    `wasm memory grew after warm-up: ${warm.wasm} → ${end.wasm} bytes`,
  );
  assert.ok(
    end.js - warm.js < 2 * 2 ** 20,
    `JS heap grew after warm-up: ${warm.js} → ${end.js} bytes`,
  );
  assert.equal(warmWorkers.length, 2, "two accumulation workers");
  sameWorkerMemory(warmWorkers, endWorkers, "Tail");
  // Frames still arrive: ten more are delivered (a count; the rate is printed, not checked,
  // as it depends on the machine).
  await page.evaluate(
    () =>
      new Promise((done) => {
        let left = 10;
        const tick = () => (--left > 0 ? requestAnimationFrame(tick) : done());
        requestAnimationFrame(tick);
      }),
  );
  assert.deepEqual(problems, []);
  console.log(
    `soak: ${total.toLocaleString("en")} requests, ${moves} moves, JS heap ${warm.js} → ${end.js} B, wasm ${warm.wasm} → ${end.wasm} B, core heap ${warm.heap} → ${end.heap} B, ${fps} frames/s at the end`,
  );
  console.log(`soak: Tail workers ${describeWorkers(warmWorkers, endWorkers)}`);
});

/** Each worker's core at warm-up and at the end, for the log. */
const describeWorkers = (warm, end) =>
  warm
    .map(
      (w, i) =>
        `#${i} heap ${w.heapBytes} → ${end[i].heapBytes} B, wasm ${w.wasmBytes} → ${end[i].wasmBytes} B`,
    )
    .join("; ");

/** The Lab panels of one cycle: multi-point sweeps (dealt across both workers) and a single run. */
const LAB_CYCLE = [
  ["fanout", { "fanout-n": "50", "fanout-p": "0.02", seed: "5" }],
  ["queue", { seed: "5" }],
  ["hedge", { seed: "5" }],
];

// The Lab's workers. A Lab client caches every result by its call, so moving a slider away and
// back, or a seed away and back, runs nothing in the workers the second time; fresh seeds every
// cycle would run, but at new settings, and grow the cache. The cycle here is a whole set of
// panels added to the page and removed again at the same attributes: each new panel is a new
// client with an empty cache, so every cycle runs the very same calls in the workers (counted:
// each worker answers points every cycle, the same number each time). A panel of the host page
// stays throughout, so the pool is never released and the workers sampled are the same ones.
test("the Lab's workers run the same sweeps cycle after cycle: every worker's live heap the same to the byte", {
  timeout: 10 * 60_000,
}, async () => {
  const lab = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const trouble = [];
  lab.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") trouble.push(`${m.type()}: ${m.text()}`);
  });
  lab.on("pageerror", (e) => trouble.push(`pageerror: ${e.message}`));
  // Counts the messages each Lab worker sends the page (its points), worker by worker.
  await lab.addInitScript(() => {
    const Real = window.Worker;
    window.__labAnswers = [];
    window.Worker = class extends Real {
      constructor(url, options) {
        super(url, options);
        if (!String(url).includes("lab/worker.js")) return;
        const i = window.__labAnswers.push(0) - 1;
        this.addEventListener("message", () => {
          window.__labAnswers[i]++;
        });
      }
    };
  });
  await lab.goto(`${server.url}panel.html?kind=hedge&seed=3&workers=2`);
  /** Every panel mounted and every sweep's every point answered. */
  const answered = () =>
    lab.waitForFunction(
      () =>
        [...document.querySelectorAll("tail-lab-panel")].every(
          (p) =>
            p.dataset.ready === "true" &&
            [...p.shadowRoot.querySelectorAll("[data-progress]")].every(
              (g) => g.dataset.total && g.dataset.done === g.dataset.total,
            ),
        ),
      null,
      { timeout: 120_000 },
    );
  await answered();
  /** One cycle: the panels added, their sweeps answered, the panels removed; the points each worker answered. */
  const cycle = async () => {
    const before = await lab.evaluate(() => [...window.__labAnswers]);
    await lab.evaluate((panels) => {
      for (const [kind, attrs] of panels) {
        const p = document.createElement("tail-lab-panel");
        p.setAttribute("kind", kind);
        for (const [k, v] of Object.entries(attrs)) p.setAttribute(k, v);
        p.className = "cycled";
        document.querySelector("main, body").append(p);
      }
    }, LAB_CYCLE);
    await answered();
    const shown = await lab.$$eval("tail-lab-panel.cycled", (ps) =>
      ps.map((p) =>
        [...p.shadowRoot.querySelectorAll("[data-readout]")].map((e) => e.textContent).join("|"),
      ),
    );
    for (const text of shown) assert.doesNotMatch(text, /NaN|Infinity|undefined|…/, text);
    await lab.evaluate(() => {
      for (const p of document.querySelectorAll("tail-lab-panel.cycled")) p.remove();
      return new Promise((r) => setTimeout(r, 0));
    });
    const after = await lab.evaluate(() => [...window.__labAnswers]);
    return { points: after.map((n, i) => n - before[i]), shown };
  };
  const heaps = () => lab.evaluate(async () => (await import("./lab/sim.js")).labWorkerHeaps());
  // Warm-up: two cycles. Then three more, the workers sampled before and after.
  const first = await cycle();
  await cycle();
  const warm = await heaps();
  const runs = [await cycle(), await cycle(), await cycle()];
  const end = await heaps();
  assert.equal(warm.length, 2, "two Lab workers");
  for (const run of runs) {
    assert.deepEqual(run.shown, first.shown, "the same settings show the same numbers");
    assert.equal(run.points.length, 2, "the same two workers throughout");
    for (const [i, n] of run.points.entries())
      assert.ok(n > 0, `worker ${i} answered no point in a cycle: ${run.points}`);
    // Compared among the cycles after warm-up: the first (warm-up) cycle answered one point
    // more in two CI runs (67 against 66; never in local runs, and the extra point's cause is
    // not pinned down), and the check is about the steady state the heaps are sampled in.
    assert.equal(
      run.points.reduce((a, b) => a + b, 0),
      runs[0].points.reduce((a, b) => a + b, 0),
      "every cycle after warm-up runs the same points",
    );
  }
  sameWorkerMemory(warm, end, "Lab");
  const status = await lab.evaluate(async () => (await import("./lab/sim.js")).labWorkStatus());
  assert.deepEqual(status, { workers: 2, clients: 1, waiting: 0 });
  assert.deepEqual(trouble, []);
  console.log(
    `soak: Lab workers, ${first.points.reduce((a, b) => a + b, 0)} points a cycle (${runs.map((r) => r.points.join("+")).join(", ")}), ${describeWorkers(warm, end)}`,
  );
  await lab.close();
});
