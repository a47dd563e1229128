// The Tail page in real Chromium: readable numbers and text, not pixels.
//
// The page is seeded and stops at an exact request count (`?requests=300000`), so every readout
// it settles on must equal, character for character, what the same wasm computes in node for
// the same settings and count (`expected` below). The seed 002 figures are checked beside them
// only as the story a reader sees; the core's tests check those numbers against the seed with
// tolerances derived from the sample size (crates/tail-lab-core/tests/it/seed_figures.rs).

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { formatCount, formatMs, formatPct } from "../../web/format.js";
import { formatPercentileRank } from "../../web/tail/rank.js";
import { ROOT, launchChromium, loadPackage, serveWeb } from "../support.mjs";

const pkg = await loadPackage();
/** Where the page stops accumulating (its `requests` parameter). */
const CAP = 300_000;

const SHOTS = join(ROOT, "tests", "screenshots");
let server, browser, page;
const problems = [];

const ms = (text) => Number.parseFloat(text);
async function readouts() {
  return page.$$eval("[data-readout]", (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.readout, e.textContent])),
  );
}
/** Waits for the page to stop at CAP requests; returns its readouts. */
async function settle() {
  await page.waitForSelector('[data-settled="true"]', { timeout: 120_000 });
  return readouts();
}
/** The readouts the page must show for `options` after CAP requests: the same wasm, in node. */
function expected(options) {
  const settings = { fanout: 100, profile: "default", fix: "none", seed: 1, ...options };
  const run = new pkg.TailRun(settings);
  for (let done = 0; done < CAP; done += 50_000) run.run(Math.min(50_000, CAP - done));
  const q = (which, level) => run[`${which}Percentile`](level);
  const values = {
    "leaf-p50": formatMs(q("leaf", 0.5)),
    "leaf-p99": formatMs(q("leaf", 0.99)),
    "parent-p50": formatMs(q("parent", 0.5)),
    "parent-p99": formatMs(q("parent", 0.99)),
    ratio: `${(q("parent", 0.99) / q("leaf", 0.99)).toFixed(1)}×`,
    requests: formatCount(run.requests),
    // The leaf percentiles the parent's median and p99 sit at: q^(1/n), from the core.
    "parent-p50-leaf-rank": formatPercentileRank(pkg.parentLevel(0.5, settings.fanout)),
    "parent-p99-leaf-rank": formatPercentileRank(pkg.parentLevel(0.99, settings.fanout)),
    // What the fix costs: the share of leaves dropped, the hedge's backups and their work.
    "dropped-share":
      pkg.droppedLeaves(settings.fix, settings.fanout).firstFanout === null
        ? "—"
        : formatPct(pkg.droppedLeaves(settings.fix, settings.fanout).share, 1),
    "hedge-extra-requests":
      run.hedgeDelayMs === null ? "—" : formatPct(run.hedgeCost().extraRequests, 2),
    "hedge-extra-work": run.hedgeDelayMs === null ? "—" : formatPct(run.hedgeCost().extraWork, 2),
  };
  run.free();
  return values;
}
/** The line under each readout that has one (`data-note`). */
async function notes(p = page) {
  return p.$$eval("[data-note]", (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.note, e.textContent])),
  );
}
/** Settles, and asserts every readout equals node's for `options`. */
async function settleExactly(options) {
  const r = await settle();
  const want = expected(options);
  const got = Object.fromEntries(Object.keys(want).map((k) => [k, r[k]]));
  assert.deepEqual(got, want, `readouts for ${JSON.stringify(options)}`);
  return r;
}
const near = (got, want, rel, what) =>
  assert.ok(
    Math.abs(got - want) <= rel * want,
    `${what}: ${got} not within ${rel * 100}% of ${want}`,
  );

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await serveWeb();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 1500 } });
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(`${server.url}tail.html?requests=${CAP}`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("the page loads, runs the wasm core and settles exactly on node's numbers, near seed 002's", async () => {
  const r = await settleExactly({});
  near(ms(r["leaf-p99"]), 12.1, 0.04, "leaf p99");
  near(ms(r["parent-p99"]), 310, 0.06, "parent p99");
  near(ms(r["parent-p50"]), 13.9, 0.04, "parent p50");
  near(ms(r["leaf-p50"]), 4.0, 0.03, "leaf p50");
  near(Number.parseFloat(r.ratio), 26, 0.1, "ratio");
  assert.ok(!/NaN|undefined/.test(JSON.stringify(r)), JSON.stringify(r));
  await page.screenshot({ path: join(SHOTS, "default.png"), fullPage: true });
  assert.deepEqual(problems, []);
});

test("hedging after the leaf p95 cuts parent p99 by more than 10x; dropping 5% too", async () => {
  const before = ms((await readouts())["parent-p99"]);
  await page.selectOption("#fix", "hedge-p95");
  const r = await settleExactly({ fix: "hedge-p95" });
  const hedged = ms(r["parent-p99"]);
  assert.ok(before / hedged > 10, `parent p99 ${before} → ${hedged}`);
  near(hedged, 18.4, 0.06, "hedged parent p99");
  // What it cost (equal to node's above): about one leaf call in twenty sent a backup, and the
  // backups' work is a small share of the primaries'.
  near(Number.parseFloat(r["hedge-extra-requests"]), 5, 0.1, "hedge extra requests (%)");
  assert.ok(Number.parseFloat(r["hedge-extra-work"]) < 5, r["hedge-extra-work"]);
  const n = await notes();
  assert.match(n["hedge-extra-requests"], /^of leaf calls sent a backup, after \d/);
  assert.equal(r["dropped-share"], "—");
  assert.equal(n["dropped-share"], "this fix waits for every leaf");
  // Only hedging moves the leaf readouts: a hedged leaf call costs less.
  assert.ok(ms(r["leaf-p99"]) < 12.0, `leaf p99 with hedge ${r["leaf-p99"]}`);
  assert.match(await page.textContent("#arena-caption"), /hedged/);
  await page.screenshot({ path: join(SHOTS, "hedged.png"), fullPage: true });
  await page.selectOption("#fix", "drop-5");
  const d = await settleExactly({ fix: "drop-5" });
  near(ms(d["parent-p99"]), 10.4, 0.06, "drop 5% parent p99");
  near(ms(d["leaf-p99"]), 12.1, 0.04, "leaf p99 unchanged by dropping");
  assert.equal(d["dropped-share"], "5.0%");
  assert.equal((await notes())["dropped-share"], "5 of 100 leaves, slow or not");
  assert.equal(d["hedge-extra-requests"], "—");
  assert.equal((await notes())["hedge-extra-work"], "no hedge");
  assert.match(await page.textContent("#arena-caption"), /5 dropped/);
  await page.selectOption("#fix", "none");
});

test("the tight profile: fan-out costs about 1.4x, not 26x", async () => {
  await page.selectOption("#profile", "tight");
  const r = await settleExactly({ profile: "tight" });
  near(ms(r["leaf-p99"]), 7.0, 0.03, "tight leaf p99");
  near(ms(r["parent-p99"]), 9.8, 0.04, "tight parent p99");
  near(Number.parseFloat(r.ratio), 1.4, 0.05, "tight ratio");
  await page.screenshot({ path: join(SHOTS, "tight.png"), fullPage: true });
  await page.selectOption("#profile", "gc-pause");
  const g = await settleExactly({ profile: "gc-pause" });
  near(ms(g["parent-p99"]), 816, 0.06, "GC parent p99");
  // A new profile is calibrated over several tasks; the old run stays on screen meanwhile.
  await page.selectOption("#profile", "default");
  await settleExactly({});
  assert.equal(await page.getAttribute("#tail", "data-preparing"), "false");
});

test("samples are addressed: the first leaves stay put when fan-out changes", async () => {
  await page.selectOption("#speed", "paused");
  const arena = async () =>
    page.$eval("#arena", (c) => ({ k: c.dataset.request, leaves: c.dataset.firstLeaves }));
  const setFanout = (n) =>
    page.$eval(
      "#fanout",
      (el, v) => {
        el.value = String(v);
        el.dispatchEvent(new Event("input"));
      },
      n,
    );
  const at100 = await arena();
  await setFanout(8);
  const at8 = await arena();
  assert.equal(at8.k, at100.k);
  assert.equal(at8.leaves, at100.leaves);
  assert.match(await page.textContent("#arena-caption"), /: 8 leaves/);
  await setFanout(100);
  assert.deepEqual(await arena(), at100);
  // Fewer draws, a nearer maximum: at fan-out 8 the parent median is the leaf's
  // 0.5^(1/8) = 91.7th percentile, back in the body (about 7.3 ms, against 13.9 ms at 100).
  await setFanout(8);
  const r = await settleExactly({ fanout: 8 });
  near(ms(r["parent-p50"]), 7.3, 0.05, "parent p50 at fan-out 8");
  await setFanout(100);
  await page.selectOption("#speed", "live");
});

test("the parent's median and p99 as leaf percentiles follow the fan-out slider", async () => {
  const setFanout = (n) =>
    page.$eval(
      "#fanout",
      (el, v) => {
        el.value = String(v);
        el.dispatchEvent(new Event("input"));
      },
      n,
    );
  const ranks = async () => {
    const r = await readouts();
    return [r["parent-p50-leaf-rank"], r["parent-p99-leaf-rank"]];
  };
  const caption = () => page.textContent('[data-part="strip-caption"]');
  // Source 002's figures at the default fan-out, from the core's q^(1/n).
  assert.deepEqual(await ranks(), ["99.31st", "99.99th"]);
  assert.equal(
    await caption(),
    "At n = 100 the parent's median is the leaf's 99.31st percentile and its p99 the leaf's 99.99th.",
  );
  assert.equal((await notes())["parent-p50-leaf-rank"], "percentile, at n = 100");
  for (const n of [1, 2, 69, 256]) {
    await setFanout(n);
    const want = [0.5, 0.99].map((q) => formatPercentileRank(pkg.parentLevel(q, n)));
    await page.waitForFunction(
      (w) => document.querySelector('[data-readout="parent-p99-leaf-rank"]')?.textContent === w,
      want[1],
    );
    assert.deepEqual(await ranks(), want, `n = ${n}`);
    assert.match(await caption(), new RegExp(`^At n = ${n} the parent's median is the leaf's `));
  }
  // One leaf is its own parent; at 256 the p99 needs three decimals to stay below 100.
  await setFanout(1);
  await page.waitForFunction(
    () => document.querySelector('[data-readout="parent-p50-leaf-rank"]')?.textContent === "50th",
  );
  assert.deepEqual(await ranks(), ["50th", "99th"]);
  await setFanout(256);
  await page.waitForFunction(
    () =>
      document.querySelector('[data-readout="parent-p99-leaf-rank"]')?.textContent === "99.996th",
  );
  await setFanout(100);
  await settleExactly({});
});

test("drop slowest 1% at fan-out 50 drops nothing, and says so; 5% drops 2 of 50", async () => {
  const p = await browser.newPage({ viewport: { width: 390, height: 900 } });
  p.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  await p.goto(`${server.url}tail.html?requests=${CAP}&fix=drop-1&fanout=50`);
  await p.waitForSelector('[data-settled="true"]', { timeout: 120_000 });
  const shown = async () =>
    p.$$eval("[data-readout]", (els) =>
      Object.fromEntries(els.map((e) => [e.dataset.readout, e.textContent])),
    );
  const r = await shown();
  const want = expected({ fix: "drop-1", fanout: 50 });
  assert.deepEqual(
    Object.fromEntries(Object.keys(want).map((k) => [k, r[k]])),
    want,
    "readouts for drop-1 at fan-out 50",
  );
  assert.equal(pkg.droppedLeaves("drop-1", 50).leaves, 0);
  assert.equal(r["dropped-share"], "0.0%");
  assert.equal(
    (await notes(p))["dropped-share"],
    "0 of 50 leaves: “drop slowest 1%” drops nothing below n = 100",
  );
  // Dropping nothing changes nothing: the same parent p99 as no fix at all.
  assert.equal(r["parent-p99"], expected({ fanout: 50 })["parent-p99"]);
  // At 390 px the readouts and their notes fit: nothing scrolls sideways.
  const overflow = await p.evaluate(() => [
    document.documentElement.scrollWidth - innerWidth,
    Array.from(document.querySelectorAll(".readouts > div"))
      .filter((d) => d.scrollWidth > d.clientWidth)
      .map((d) => d.textContent),
  ]);
  assert.deepEqual(overflow, [0, []]);
  await p.selectOption("#fix", "drop-5");
  await p.waitForSelector('[data-settled="true"]', { timeout: 120_000 });
  assert.equal((await shown())["dropped-share"], "4.0%");
  assert.equal((await notes(p))["dropped-share"], "2 of 50 leaves, slow or not");
  await p.close();
  assert.deepEqual(problems, []);
});

test("a bad seed gets a message naming the argument, and no NaN reaches the screen", async () => {
  await page.fill("#seed", "-5");
  await page.dispatchEvent("#seed", "change");
  assert.equal(
    await page.textContent("#seed-error"),
    "seed must be a whole number from 0 to 18446744073709551615; you typed “-5”",
  );
  assert.equal(await page.getAttribute("#seed", "aria-invalid"), "true");
  assert.equal(await page.getAttribute("#seed", "aria-describedby"), "seed-error");
  const r = await readouts();
  assert.ok(!/NaN/.test(JSON.stringify(r)), JSON.stringify(r));
  await page.fill("#seed", "2");
  await page.dispatchEvent("#seed", "change");
  assert.equal(await page.textContent("#seed-error"), "");
  const s = await settleExactly({ seed: 2 });
  near(ms(s["parent-p99"]), 310, 0.06, "parent p99 under seed 2");
  assert.equal(await page.isHidden("#notice"), true);
  assert.deepEqual(problems, []);
});

test("1, 2 or 4 workers (or none) accumulate the same histograms, to the bit", async () => {
  // Workers take blocks of requests in any order; the page merges them in block order. The
  // histograms' digest and every readout must not depend on how many workers there were.
  const seen = new Map();
  for (const workers of [0, 1, 2, 4]) {
    const p = await browser.newPage({ viewport: { width: 1100, height: 1500 } });
    p.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    await p.goto(`${server.url}tail.html?requests=${CAP}&fix=hedge-p95&workers=${workers}`);
    await p.waitForSelector('[data-settled="true"]', { timeout: 120_000 });
    const digest = await p.getAttribute("#histograms", "data-digest");
    const shown = await p.$$eval("[data-readout]", (els) =>
      els.map((e) => e.textContent).join(" | "),
    );
    seen.set(workers, { digest, shown });
    await p.close();
  }
  const one = seen.get(1);
  assert.match(one.digest, /^[0-9a-f]{8}$/);
  for (const [workers, s] of seen) assert.deepEqual(s, one, `${workers} workers`);
  // And they are the numbers node computes for the same run.
  const want = expected({ fix: "hedge-p95" });
  for (const v of Object.values(want)) assert.ok(one.shown.includes(v), `${v} in ${one.shown}`);
  assert.deepEqual(problems, []);
});
