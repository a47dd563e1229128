// Lost workers, in real Chromium. A worker that closes without a word sends no event at all, so
// the tests play one by terminating it from the page's side after it has been handed some work
// (the page's Worker is wrapped before load). The pages must notice it (a deadline on the work
// it holds, several seconds past what a block or a point takes), carry on elsewhere, and end on
// exactly the numbers a run without the loss shows. A Lab worker that cannot load at all must
// end in a clear notice, with no "…" left on screen and no unhandled rejection.
//
// And pools that nothing uses let their workers go: with every embedded panel removed, no
// worker of either pool is left running; a panel added back starts them again.
//
// TAIL_LAB_WEB=dir serves another copy of the site (e.g. an older one, to see these tests fail).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatCount, formatMs, formatPct } from "../../web/format.js";
import { SITE, launchChromium, loadPackage, serveWeb } from "../support.mjs";

const pkg = await loadPackage();
let server, browser;

before(async () => {
  server = await serveWeb(SITE);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/**
 * Wraps the page's Worker: the first worker whose script URL contains `match` is terminated
 * silently right after its `after`-th message from the page (as if it had closed itself), or,
 * with `missing`, every such worker loads a script that does not exist.
 */
function sabotage({ match, after = 3, missing = false }) {
  const Real = window.Worker;
  window.__killed = 0;
  window.__rejections = 0;
  window.addEventListener("unhandledrejection", () => {
    window.__rejections++;
  });
  window.Worker = class extends Real {
    constructor(url, options) {
      const hit = String(url).includes(match);
      super(hit && missing ? new URL("./no-such-worker.js", url) : url, options);
      this.doomed = hit && !missing && !window.__doomed;
      if (this.doomed) window.__doomed = true;
      this.sent = 0;
    }

    postMessage(...args) {
      super.postMessage(...args);
      if (this.doomed && ++this.sent === after) {
        this.terminate();
        window.__killed++;
      }
    }
  };
}

async function open(path, sabotaged) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.errors = [];
  page.warnings = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "warning") page.warnings.push(m.text());
  });
  if (sabotaged) await page.addInitScript(sabotage, sabotaged);
  await page.goto(new URL(path, server.url).href);
  await page.waitForSelector("body[data-ready=true]", { timeout: 60_000 });
  return page;
}

/** The Tail page settled at its cap: the histograms' digest and every readout. */
async function tailResult(page) {
  await page.waitForSelector('#tail[data-settled="true"]', { timeout: 180_000 });
  return {
    digest: await page.getAttribute("#histograms", "data-digest"),
    shown: await page.$$eval("[data-readout]", (els) =>
      els.map((e) => `${e.dataset.readout}=${e.textContent}`).join(" | "),
    ),
  };
}

/** The Lab once every sweep has answered every point: each section's readouts. */
async function labResult(page) {
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll("[data-progress]")].every(
        (p) => p.dataset.total && p.dataset.done === p.dataset.total,
      ),
    null,
    { timeout: 240_000 },
  );
  return page.$$eval("[data-section]", (roots) =>
    roots.map((root) => ({
      section: root.dataset.section,
      readouts: [...root.querySelectorAll("[data-readout]")].map((e) => e.textContent).join("|"),
    })),
  );
}

test("a Tail worker that closes without a word: its blocks go to the other worker, or to the main thread, and the histograms are the same bits", {
  timeout: 15 * 60_000,
}, async () => {
  const path = "tail.html?requests=300000&fix=hedge-p95&speed=paused";
  const clean = await open(`${path}&workers=2`);
  const want = await tailResult(clean);
  await clean.close();
  assert.match(want.digest, /^[0-9a-f]{8}$/);
  for (const workers of [2, 1]) {
    const page = await open(`${path}&workers=${workers}`, { match: "tail/worker.js", after: 3 });
    const got = await tailResult(page);
    assert.equal(await page.evaluate(() => window.__killed), 1, "the worker was lost mid-run");
    assert.deepEqual(got, want, `${workers} workers, one lost`);
    assert.ok(
      page.warnings.some((w) => /stopped answering/.test(w)),
      page.warnings.join("\n"),
    );
    assert.equal(await page.evaluate(() => window.__rejections), 0);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("a Lab worker that closes without a word is replaced, and every section ends on the same numbers", {
  timeout: 15 * 60_000,
}, async () => {
  const path = "index.html?workers=2&loaded-load=0.4&balance-lambda=0.8";
  const clean = await open(path);
  const want = await labResult(clean);
  await clean.close();
  const page = await open(path, { match: "lab/worker.js", after: 3 });
  const got = await labResult(page);
  assert.equal(await page.evaluate(() => window.__killed), 1, "the worker was lost mid-sweep");
  assert.deepEqual(got, want);
  assert.doesNotMatch(JSON.stringify(got), /…/);
  assert.ok(
    page.warnings.some((w) => /stopped answering/.test(w)),
    page.warnings.join("\n"),
  );
  assert.equal(await page.isHidden("#notice"), true);
  assert.equal(await page.evaluate(() => window.__rejections), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('Lab workers that cannot load end in a clear notice, not in "…", with no unhandled rejection', {
  timeout: 10 * 60_000,
}, async () => {
  const page = await open("index.html?workers=2", { match: "lab/worker.js", missing: true });
  await page.waitForSelector("#notice:not([hidden])", { timeout: 120_000 });
  assert.match(
    await page.textContent("#notice"),
    /The Lab's numbers could not be computed: the simulation workers stopped/,
  );
  const got = await labResult(page);
  assert.doesNotMatch(JSON.stringify(got), /…/);
  // The closed forms still show: they run on the main thread.
  assert.equal(await page.textContent('[data-section=balance] [data-readout="theory"]'), "2.61");
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(() => window.__rejections), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("panels of both pools removed: every worker is terminated; a panel added back starts them again and shows the API's numbers", {
  timeout: 10 * 60_000,
}, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  // embed.html's three panels (Tail histograms, Lab fanout and loaded), and two more of each pool.
  await page.goto(new URL("embed.html?workers=2", server.url).href);
  await page.evaluate(() => {
    for (const kind of ["tail", "strip", "hedge", "balance"]) {
      const p = document.createElement("tail-lab-panel");
      p.setAttribute("kind", kind);
      document.querySelector("main").append(p);
    }
  });
  await page.waitForFunction(
    () => [...document.querySelectorAll("tail-lab-panel")].every((p) => p.dataset.ready === "true"),
    null,
    { timeout: 180_000 },
  );
  /** Live workers of both pools, as the pools and as workers.js count them. */
  const status = () =>
    page.evaluate(async () => ({
      tail: (await import("./tail/pool.js")).tailWorkStatus(),
      lab: (await import("./lab/sim.js")).labWorkStatus(),
      running: (await import("./workers.js")).runningWorkers(),
    }));
  // Both pools at work: the Lab's sweeps (loaded's takes seconds) and the Tail's blocks.
  const busy = await status();
  assert.equal(busy.lab.workers, 2, JSON.stringify(busy));
  assert.ok(busy.tail.workers >= 1, JSON.stringify(busy));
  assert.deepEqual(
    busy.running,
    { "lab/worker.js": 2, "tail/worker.js": busy.tail.workers },
    JSON.stringify(busy),
  );
  assert.ok(busy.lab.waiting > 0, `the Lab's workers still hold points: ${JSON.stringify(busy)}`);

  // Every panel removed (a removal is final a microtask later).
  await page.evaluate(() => {
    for (const p of document.querySelectorAll("tail-lab-panel")) p.remove();
    return new Promise((r) => setTimeout(r, 0));
  });
  const none = await status();
  assert.deepEqual(none, {
    tail: { workers: 0, channels: 0, inflight: 0 },
    lab: { workers: 0, clients: 0, waiting: 0 },
    running: {},
  });
  // Past the deadline watch's period (2.5 s): nothing woke up, nothing was started or lost.
  await page.waitForTimeout(3000);
  assert.deepEqual(await status(), none);

  // One panel of each pool added back: the pools start again and the numbers are the API's.
  await page.evaluate(() => {
    const main = document.querySelector("main");
    const hedge = document.createElement("tail-lab-panel");
    hedge.setAttribute("kind", "hedge");
    hedge.setAttribute("seed", "7");
    hedge.id = "hedge";
    const tail = document.createElement("tail-lab-panel");
    for (const [k, v] of Object.entries({
      kind: "histograms",
      fanout: "100",
      profile: "gc-pause",
      fix: "none",
      seed: "1",
      requests: "20000",
    }))
      tail.setAttribute(k, v);
    tail.id = "tail";
    // First in the page, so the Tail panel is on screen (one scrolled out of view pauses).
    main.prepend(tail, hedge);
  });
  const h = pkg.simulateHedge({ delayQ: 0.95, requests: 200_000, seed: 7 });
  const run = new pkg.TailRun({ fanout: 100, profile: "gc-pause", fix: "none", seed: 1 });
  run.run(20_000);
  const want = {
    hedge: [
      formatMs(h.p999Before),
      formatMs(h.p999After),
      formatPct(h.extraRequests),
      formatPct(h.extraWork, 2),
      formatMs(h.delayMs),
    ].join("|"),
    tail: [
      formatMs(run.leafPercentile(0.5)),
      formatMs(run.leafPercentile(0.99)),
      formatMs(run.parentPercentile(0.5)),
      formatMs(run.parentPercentile(0.99)),
      formatCount(run.requests),
    ].join("|"),
  };
  run.free();
  const shown = () =>
    page.evaluate(() => {
      const text = (id, names) =>
        names
          .map(
            (n) =>
              document.getElementById(id)?.shadowRoot?.querySelector(`[data-readout="${n}"]`)
                ?.textContent,
          )
          .join("|");
      return {
        hedge: text("hedge", [
          "p999-before",
          "p999-after",
          "extra-requests",
          "extra-work",
          "hedge-delay",
        ]),
        tail: text("tail", ["leaf-p50", "leaf-p99", "parent-p50", "parent-p99", "requests"]),
      };
    });
  await page.waitForFunction(
    () =>
      document.querySelector("#tail")?.shadowRoot?.querySelector(".embed")?.dataset.settled ===
        "true" &&
      [...document.querySelector("#hedge").shadowRoot.querySelectorAll("[data-progress]")].every(
        (g) => g.dataset.total && g.dataset.done === g.dataset.total,
      ),
    null,
    { timeout: 120_000 },
  );
  assert.deepEqual(await shown(), want);
  const again = await status();
  assert.equal(again.lab.workers, 2, JSON.stringify(again));
  assert.ok(again.tail.workers >= 1, JSON.stringify(again));
  assert.deepEqual(
    again.running,
    { "lab/worker.js": 2, "tail/worker.js": again.tail.workers },
    JSON.stringify(again),
  );
  // The workers did the work: the Tail run accumulated in them, the hedge point ran in one.
  assert.ok(
    await page.evaluate(
      async () => (await import("./tail/pool.js")).tailWorkStatus().channels === 1,
    ),
  );
  assert.deepEqual(problems, []);
  await page.close();
});
