// Lost workers, in real Chromium. A worker that closes without a word sends no event at all, so
// the tests play one by terminating it from the page's side after it has been handed some work
// (the page's Worker is wrapped before load). The pages must notice it (a deadline on the work
// it holds, several seconds past what a block or a point takes), carry on elsewhere, and end on
// exactly the numbers a run without the loss shows. A Lab worker that cannot load at all must
// end in a clear notice, with no "…" left on screen and no unhandled rejection.
//
// TAIL_LAB_WEB=dir serves another copy of the site (e.g. an older one, to see these tests fail).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SITE, launchChromium, serveWeb } from "../support.mjs";

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
