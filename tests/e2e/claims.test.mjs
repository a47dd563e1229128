// Every number in the pages' prose is a claim bound to the core (web/claims.js): this test
// recomputes each claim through the wasm API in node, parses every prose file with Chromium's
// own HTML parser, and checks
// - that each `data-claim` span reads exactly as its value formats (with its rounding);
// - that every span names a defined claim, and every defined claim is stated somewhere;
// - that no digit stands in the prose outside a claim, a formula (`.math`), a citation (`cite`,
//   a `.refs` paragraph), a quotation of a source (`q`, which must name it in `data-source`), a
//   control's label (`.ui-label`), code or the Lab's seed as the reader set it
//   (`[data-lab-seed]`), except the names of percentiles (p99, p99.9) and of queues (M/M/1,
//   M/G/1).
// Then, on the live pages, that each passage corrected for issue 18 says what it now means.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fanoutControl } from "../../web/lab/sections/fanout/section.js";
import { SITE, WEB, launchChromium, loadPackage, serveWeb } from "../support.mjs";

const { SECTIONS } = await import("../../web/lab/sections.js");
const { formatClaim, loadClaims, loadStatements } = await import("../../web/claims.js");

/** Every file whose text a reader sees as prose. */
const PROSE_FILES = [
  "index.html",
  "tail.html",
  ...SECTIONS.map((name) => `lab/sections/${name}/prose.html`),
];

/** Digits that name a thing rather than state a number: p50, p99.9, M/M/1, M/G/1, the wrk2 tool. */
const NAMES = /\bp\d+(?:\.\d+)?\b|\bM\/[MGD]\/(?:\d+|c)\b|\bwrk2\b/g;

let browser, server;
before(async () => {
  browser = await launchChromium();
  server = await serveWeb(SITE);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** What Chromium's parser finds in one prose file's `html`: its claim spans and its free text. */
function readProse(page, html) {
  return page.evaluate((html) => {
    const doc = new DOMParser().parseFromString(html, "text/html");
    const claims = [...doc.body.querySelectorAll("[data-claim]")].map((e) => ({
      key: e.dataset.claim,
      format: e.dataset.format,
      digits: e.dataset.digits === undefined ? 0 : Number(e.dataset.digits),
      text: e.textContent.replace(/\s+/g, " ").trim(),
    }));
    // `[data-lab-seed]` is the Lab's seed as the page sets it: a setting the reader chooses;
    // `.ui-label` is a control's label as the page shows it.
    const exempt =
      "[data-claim], [data-lab-seed], .ui-label, .math, cite, .refs, q, code, script, style";
    // A quotation names its source: a seed document (000–004) or a cited paper.
    const unsourced = [...doc.body.querySelectorAll("q")]
      .filter((q) => !q.dataset.source)
      .map((q) => q.textContent);
    const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
    const texts = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode())
      if (!n.parentElement.closest(exempt)) texts.push(n.textContent);
    return { claims, unsourced, text: texts.join(" ").replace(/\s+/g, " ") };
  }, html);
}

/**
 * The problems in `files` (`[[name, html]]`) against the claims `defined` computed with `core`:
 * `{ wrong: string[], stated: Set<string> }`.
 */
async function check(page, files, defined, core) {
  const stated = new Set();
  const wrong = [];
  for (const [file, html] of files) {
    const { claims, unsourced, text } = await readProse(page, html);
    for (const q of unsourced)
      wrong.push(`${file}: the quotation "${q}" names no source (data-source)`);
    for (const c of claims) {
      stated.add(c.key);
      const claim = defined.get(c.key);
      if (!claim) {
        wrong.push(`${file}: data-claim="${c.key}" names no claim (define it in a claims.js)`);
        continue;
      }
      let expected;
      try {
        expected = formatClaim(claim.value(core), c.format, c.digits);
      } catch (e) {
        wrong.push(`${file}: ${c.key}: ${e.message}`);
        continue;
      }
      if (c.text !== expected)
        wrong.push(`${file}: ${c.key} reads "${c.text}", the core gives "${expected}"`);
    }
    const stray = text.replace(NAMES, "").match(/[^\s]*\d[^\s]*/g) ?? [];
    for (const s of stray)
      wrong.push(`${file}: "${s}" is a number typed by hand: make it a data-claim`);
  }
  return { wrong, stated };
}

test("every number in the prose is a claim, and every claim reads as the core computes it", async () => {
  const core = await loadPackage();
  const defined = await loadClaims();
  const page = await browser.newPage();
  const files = PROSE_FILES.map((f) => [f, readFileSync(join(WEB, f), "utf8")]);
  const { wrong, stated } = await check(page, files, defined, core);
  for (const key of defined.keys())
    if (!stated.has(key)) wrong.push(`claim ${key} is defined but no page states it`);
  assert.deepEqual(wrong, [], `\n${wrong.join("\n")}`);

  // The check can fail: a quotation with no source, one digit off, a name nobody defines, a
  // list that reads differently at the text's precision, a number typed by hand. (Percentile
  // and queue names pass.)
  const bad = `<p>At <span data-claim="fanout.slow-share" data-format="percent" data-digits="1">63.5%</span>
    and <span data-claim="fanout.nothing" data-format="number">1</span>, with 12 leaves at p99.9
    (<q>quoted 3x</q>)
    on an M/G/1 queue, <span data-claim="list" data-format="percent" data-digits="1">2.2%</span>.</p>`;
  const withList = new Map([...defined, ["list", { doc: "", value: () => [0.022, 0.033] }]]);
  const caught = (await check(page, [["bad.html", bad]], withList, core)).wrong;
  await page.close();
  assert.equal(caught.length, 5, caught.join("\n"));
  assert.match(caught[0], /the quotation "quoted 3x" names no source/);
  assert.match(caught[1], /fanout.slow-share reads "63.5%", the core gives "63.4%"/);
  assert.match(caught[2], /fanout.nothing.* names no claim/);
  assert.match(caught[3], /list: the values read differently at this precision: 2.2%, 3.3%/);
  assert.match(caught[4], /"12" is a number typed by hand/);
});

/** The statements of `statements` that do not hold (or cannot be judged) with `core`. */
function falseStatements(statements, core) {
  const wrong = [];
  for (const [key, { statement, claim }] of statements) {
    const memo = new Map();
    const value = (/** @type {string} */ name) => {
      if (!memo.has(name)) memo.set(name, claim(name, core));
      return memo.get(name);
    };
    try {
      if (statement.holds(value, core) !== true)
        wrong.push(`${key} does not hold: ${statement.doc}`);
    } catch (e) {
      wrong.push(`${key}: ${/** @type {Error} */ (e).message}`);
    }
  }
  return wrong;
}

test("every statement the prose makes about its numbers holds", async () => {
  const core = await loadPackage();
  const statements = await loadStatements();
  assert.ok(statements.size >= 5, `${statements.size} statements`);
  const wrong = falseStatements(statements, core);
  assert.deepEqual(wrong, [], `\n${wrong.join("\n")}`);
  // The check can fail: a statement that is false, and one that reads a claim nobody defines.
  const bad = new Map([
    ["x.false", { statement: { doc: "one is two", holds: () => false }, claim: () => 0 }],
    [
      "x.unknown",
      {
        statement: { doc: "reads a missing claim", holds: (/** @type {any} */ c) => c("nope") > 0 },
        claim: () => {
          throw new RangeError("x has no claim nope");
        },
      },
    ],
  ]);
  const caught = falseStatements(bad, core);
  assert.deepEqual(caught, ["x.false does not hold: one is two", "x.unknown: x has no claim nope"]);
});

/** The page's text in `selector`, whitespace collapsed, once the page is ready. */
async function textOf(path, selector) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(new URL(path, server.url).href);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  const texts = await page.$$eval(selector, (els) =>
    els.map((e) => e.textContent.replace(/\s+/g, " ")),
  );
  await page.close();
  assert.ok(texts.length > 0, `${path}: nothing matches ${selector}`);
  return texts.join(" ");
}

test("the corrected passages read as intended on the live pages", async () => {
  const lab = (name) => textOf("index.html", `[data-section="${name}"]`);
  // Correlation: a reference point, not a bound, and in which direction (issue 18, item 1).
  assert.match(await lab("fanout"), /reference point, not a bound/);
  assert.match(await lab("fanout"), /fewer requests meet a slow leaf, not more/);
  const strip = await textOf("tail.html", "[aria-labelledby=strip-title] p");
  assert.match(strip, /reference point, not a bound/);
  assert.match(strip, /the parent is no slower than the curves say/);
  // The parent's percentile ranks, stated in the prose.
  assert.match(strip, /the parent's median is the leaf's 99\.31st percentile/);
  // The hedge's product needs independent copies (item 2), in the prose and the note.
  const hedge = await lab("hedge");
  assert.match(hedge, /slow independently of each other/);
  assert.match(hedge, /barely helps/);
  assert.doesNotMatch(hedge, /holds for any service model,/);
  // The loaded section: the default rule, the cost's reason, the boundary (items 3–6, 12).
  const loaded = await lab("loaded");
  assert.match(loaded, /a primary is never cancelled, even after its backup has answered/);
  assert.match(loaded, /its backup usually runs to completion/);
  assert.match(loaded, /duplicating reaches the stability boundary/);
  assert.match(loaded, /cannot be cancelled away/);
  assert.doesNotMatch(loaded, /cancelled as soon as the primary answers/);
  // The fixed point is sᵢ, and the sum follows from it (item 11).
  assert.match(
    await lab("balance"),
    /share of servers holding at least i jobs settles at Mitzenmacher's fixed point/,
  );
  // The Tail page's fixes say what they drop (item 10).
  const tail = await textOf("tail.html", "main");
  assert.match(tail, /drop slowest 1% drops nothing/);
  assert.match(tail, /even when none of them was slow/);
  // Neither page calls correlation strictly worse (only the aside quotes the source that
  // does); the Lab lists the sources' mistakes.
  for (const path of ["index.html", "tail.html"])
    assert.doesNotMatch(await textOf(path, "header, main"), /strictly worse/);
  const sources = await textOf("index.html", "aside.sources");
  assert.match(sources, /99\.9th-percentile latency/);
  assert.match(sources, /from 1,800ms to 74ms/);
  assert.match(sources, /1\.54/);
});

test("the fan-out prose's numbers follow p and n, and read as the defaults' again at the defaults", async () => {
  const core = await loadPackage();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(new URL("index.html", server.url).href);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  const prose = (key, within = "[data-section=fanout]") =>
    page.$eval(`${within} [data-claim="${key}"]`, (e) => e.textContent);
  const setSlider = (id, value) =>
    page.$eval(
      `#${id}`,
      (input, v) => {
        input.value = v;
        input.dispatchEvent(new Event("input", { bubbles: true }));
      },
      value,
    );
  /** Waits until the section's slow share reads `text`. */
  const reads = (text) =>
    page.waitForFunction(
      (t) =>
        document.querySelector('[data-section=fanout] [data-claim="fanout.slow-share"]')
          .textContent === t,
      text,
      { timeout: 10_000 },
    );
  assert.equal(await prose("fanout.slow-share"), "63.4%");
  assert.equal(
    await page.$eval('[data-section=fanout] [data-claim="fanout.slow-share"]', (e) =>
      e.hasAttribute("data-live"),
    ),
    true,
  );
  // p = 10^-1.5, as the slider rounds it (3 significant digits): 3.16%.
  await setSlider("fanout-p", "-1.5");
  const moved = formatClaim(core.slowShare(0.0316, 100), "percent", 1);
  assert.equal(moved, "96.0%");
  await reads(moved);
  assert.equal(await prose("fanout.p"), "3.2%");
  assert.equal(await prose("fanout.n"), "100");
  // n follows too, and a small share keeps two significant digits.
  // (The fan-out slider holds a stop index: fanoutControl(n) is n's position on it.)
  await setSlider("fanout-n", fanoutControl(3));
  await reads(formatClaim(core.slowShare(0.0316, 3), "percent", 1));
  assert.equal(await prose("fanout.n"), "3");
  // The opening and the aside quote the defaults, and stay as they are.
  assert.equal(await prose("fanout.slow-share", "aside.sources"), "63.4%");
  assert.equal(await prose("fanout.slow-share", "header"), "63%");
  // The latencies of the second paragraph are the defaults' ("At the defaults").
  assert.equal(await prose("fanout.leaf-p50-ms"), "7.7 ms");
  // Back at the defaults, the text is the default text again.
  await setSlider("fanout-p", "-2");
  await setSlider("fanout-n", fanoutControl(100));
  await reads("63.4%");
  assert.equal(await prose("fanout.p"), "1%");
  assert.equal(
    await page.$eval('[data-section=fanout] [data-claim="fanout.p"]', (e) =>
      e.hasAttribute("data-moved"),
    ),
    false,
  );
  await page.close();
});

test("the Tail page's prose follows the fan-out slider, and reads as the defaults' at the defaults", async () => {
  const core = await loadPackage();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(new URL("tail.html?speed=paused&fanout=64", server.url).href);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  const prose = (key) =>
    page.$$eval(`main [data-claim="tail.${key}"]`, (els) => [
      ...new Set(els.map((e) => e.textContent)),
    ]);
  const pause = core.profiles().find((p) => p.name === "default").pause.probability;
  assert.deepEqual(await prose("n"), ["64"]);
  assert.deepEqual(await prose("median-rank"), [formatClaim(core.parentLevel(0.5, 64), "rank", 2)]);
  assert.deepEqual(await prose("pause-share"), [
    formatClaim(core.slowShare(pause, 64), "percent", 1),
  ]);
  // The constants stay.
  assert.deepEqual(await prose("crossover-n"), ["69"]);
  await page.$eval("#fanout", (input) => {
    input.value = "100";
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await page.waitForFunction(
    () => document.querySelector('main [data-claim="tail.median-rank"]').textContent === "99.31st",
  );
  assert.deepEqual(await prose("n"), ["100"]);
  assert.deepEqual(await prose("pause-share"), ["39.4%"]);
  await page.close();
});

test("the queue and balance prose follow their sliders too", async () => {
  const core = await loadPackage();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(new URL("index.html", server.url).href);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  const prose = (section, key) =>
    page.$$eval(`[data-section=${section}] [data-claim="${section}.${key}"]`, (els) => [
      ...new Set(els.map((e) => e.textContent)),
    ]);
  const setSlider = (id, value) =>
    page.$eval(
      `#${id}`,
      (input, v) => {
        input.value = v;
        input.dispatchEvent(new Event("input", { bubbles: true }));
      },
      value,
    );
  await setSlider("balance-lambda", "0.55");
  await page.waitForFunction(
    () =>
      document.querySelector('[data-section=balance] [data-claim="balance.lambda"]').textContent ===
      "0.55",
  );
  assert.deepEqual(await prose("balance", "random-mean"), [
    formatClaim(core.fixedPointMeanTime(0.55, 1), "number", 1),
  ]);
  assert.deepEqual(await prose("balance", "two-deep-share"), [
    formatClaim(core.fixedPointShare(0.55, 2, 5), "percent", 1),
  ]);
  await setSlider("queue-load", "0.5");
  await page.waitForFunction(
    () =>
      document.querySelector('[data-section=queue] [data-claim="queue.load"]').textContent ===
      "50%",
  );
  assert.deepEqual(await prose("queue", "shared-mean"), [
    formatClaim(core.queueTheory(4, 0.5).mean, "number", 2),
  ]);
  // The example loads are the prose's, not the slider's.
  assert.deepEqual(await prose("queue", "high-load"), ["90%"]);
  await page.close();
});
