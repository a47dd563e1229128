// <tail-lab-panel> in a host page, and panel.html behind a link, in real Chromium: what a hostile
// link can do (nothing: no handler runs, no attribute is set, the page still shows its panel),
// settings changed after mount, panels removed and added again (the wasm heap back to the byte,
// no worker left with their jobs), thirty panels at once mounting one at a time, and the
// SVG and CSV downloads of text that is not ours.
//
// TAIL_LAB_WEB=dir serves another copy of the site (e.g. an older one, to see these tests fail).

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { formatMs, formatPct } from "../../web/format.js";
import { SECTIONS } from "../../web/lab/sections.js";
import { ROOT, SITE, launchChromium, loadPackage, serveWeb } from "../support.mjs";

const SHOTS = join(ROOT, "tests", "screenshots");
/** Every kind a panel can be: the Tail piece and its three parts, then the Lab's sections. */
const KINDS = ["tail", "arena", "histograms", "strip", ...SECTIONS];
const pkg = await loadPackage();
let server, browser;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await serveWeb(SITE);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** A page that records page errors and unhandled rejections, at `path`, once its panel is ready. */
async function open(path, { ready = true, viewport = { width: 1280, height: 900 }, init } = {}) {
  const page = await browser.newPage({ viewport });
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  await page.addInitScript(() => {
    window.__rejections = 0;
    window.addEventListener("unhandledrejection", () => {
      window.__rejections++;
    });
  });
  if (init) await page.addInitScript(init.fn, init.arg);
  await page.goto(new URL(path, server.url).href);
  if (ready) await page.waitForSelector("tail-lab-panel[data-ready=true]", { timeout: 60_000 });
  return page;
}

/** The text of the first panel's shadow root. */
const shadowText = (page, selector = "tail-lab-panel") =>
  page.$eval(selector, (p) => p.shadowRoot?.textContent ?? "");

/** The core's live heap in the page (the page's glue module is a singleton). */
const heap = (page) => page.evaluate(async () => (await import("./pkg/tail_lab.js")).heapBytes());

/** Adds panels of `kinds` to <main> (each `[kind, { attr: value }]` or a kind); returns how many panels there are. */
const addPanels = (page, kinds) =>
  page.evaluate((list) => {
    window.__added ??= [];
    for (const item of list) {
      const [kind, attrs] = Array.isArray(item) ? item : [item, {}];
      const p = document.createElement("tail-lab-panel");
      p.setAttribute("kind", kind);
      for (const [k, v] of Object.entries(attrs)) p.setAttribute(k, v);
      document.querySelector("main").append(p);
      window.__added.push(p);
    }
    return document.querySelectorAll("tail-lab-panel").length;
  }, kinds);
const allReady = (page, timeout = 180_000) =>
  page.waitForFunction(
    () => [...document.querySelectorAll("tail-lab-panel")].every((p) => p.dataset.ready === "true"),
    null,
    { timeout },
  );
/** Removes every panel added with addPanels (they stay in window.__added). */
const removeAdded = (page) =>
  page.evaluate(() => {
    for (const p of window.__added) p.remove();
  });
/** Two animation frames and a task: removal is final after a microtask. */
const settleFrames = (page) =>
  page.evaluate(
    () =>
      new Promise((r) =>
        requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))),
      ),
  );

test("a hostile panel.html link runs no code, sets no attribute, and the page still shows its panel", async () => {
  const url = new URL("panel.html", server.url);
  for (const [k, v] of [
    ["kind", "histograms"],
    ["tabindex", "0"],
    ["autofocus", ""],
    ["onfocus", "window.__pwned = 'onfocus'"],
    ["onclick", "window.__pwned = 'onclick'"],
    ["style", "position:fixed;inset:0;background:red;z-index:9"],
    ["fanout", "999"],
    ["class", "x"],
    ["id", "y"],
    ["slot", "z"],
  ])
    url.searchParams.append(k, v);
  const page = await open(url.href);
  const panel = await page.$("tail-lab-panel");
  // Focus and click it, as a reader would: an injected handler would run now.
  await page.evaluate((p) => {
    p.focus();
    p.dispatchEvent(new FocusEvent("focus"));
    p.click();
  }, panel);
  await page.mouse.click(640, 300);
  assert.equal(await page.evaluate(() => window.__pwned), undefined, "an injected handler ran");
  assert.deepEqual(await panel.evaluate((p) => p.getAttributeNames()), ["data-ready"]);
  assert.notEqual(await panel.evaluate((p) => getComputedStyle(p).position), "fixed");
  // Its own settings are read, and checked as every link's are.
  assert.match(await shadowText(page), /fanout=999 is above the largest value, 256; using 256/);
  assert.deepEqual(page.errors, []);
  await page.close();

  // A parameter name that is no attribute name used to leave the page blank.
  const odd = await open("panel.html?a%20b=1&kind=strip&%3Cx%3E=1&=2");
  assert.ok(await odd.$eval("tail-lab-panel", (p) => !!p.shadowRoot.querySelector("canvas")));
  assert.deepEqual(odd.errors, []);
  await odd.close();

  // Names that every object inherits, and markup, are unknown kinds like any other.
  for (const kind of [
    "__proto__",
    "toString",
    "constructor",
    "hasOwnProperty",
    "<img src=x onerror=\"window.__pwned='img'\">",
  ]) {
    const p = await open(`panel.html?kind=${encodeURIComponent(kind)}`, { ready: false });
    await p.waitForFunction(
      () =>
        /could not start/.test(
          document.querySelector("tail-lab-panel").shadowRoot?.textContent ?? "",
        ),
      null,
      { timeout: 30_000 },
    );
    const text = await shadowText(p);
    assert.match(text, new RegExp(`kind must be one of ${KINDS.join(", ")} \\(got “`), kind);
    assert.doesNotMatch(text, /is not a function/, kind);
    assert.equal(
      await p.$eval("tail-lab-panel", (el) => el.shadowRoot.querySelectorAll("img, script").length),
      0,
      kind,
    );
    await p.waitForTimeout(100);
    assert.equal(await p.evaluate(() => window.__pwned), undefined, kind);
    assert.deepEqual(p.errors, [], kind);
    await p.close();
  }
});

test("an attribute changed after mount is applied, checked like a link's parameter; a new kind mounts the new panel", async () => {
  const page = await open("panel.html?kind=strip");
  await addPanels(page, [
    ["tail", { speed: "paused", requests: "1000" }],
    ["fanout", {}],
  ]);
  await allReady(page);
  const tail = "tail-lab-panel:nth-of-type(2)";
  const lab = "tail-lab-panel:nth-of-type(3)";
  const inShadow = (selector, query, fn = "value") =>
    page.$eval(
      selector,
      (p, [q, f]) => {
        const el = p.shadowRoot.querySelector(q);
        return f === "text" ? el?.textContent : el?.value;
      },
      [query, fn],
    );
  const waitIn = (selector, query, want, fn = "value") =>
    page.waitForFunction(
      ([s, q, w, f]) => {
        const el = document.querySelector(s).shadowRoot.querySelector(q);
        const got = f === "text" ? el?.textContent : el?.value;
        return w instanceof RegExp ? w.test(got ?? "") : got === w;
      },
      [selector, query, want, fn],
      { timeout: 60_000 },
    );
  const set = (selector, name, value) =>
    page.$eval(selector, (p, [n, v]) => p.setAttribute(n, v), [name, value]);

  // The Tail piece: the fan-out moves the control and the request shown.
  await set(tail, "fanout", "7");
  await waitIn(tail, "input[type=range]", "7");
  assert.match(await inShadow(tail, ".caption", "text"), /: 7 leaves/);
  // Out of range: clamped, with the notice a link gets.
  await set(tail, "fanout", "999");
  await waitIn(tail, "input[type=range]", "256");
  assert.match(
    await inShadow(tail, ".embed-notice", "text"),
    /fanout=999 is above the largest value, 256; using 256/,
  );
  // A new cap: the run starts again and stops there exactly.
  await set(tail, "requests", "2000");
  await page.waitForFunction(
    (s) => document.querySelector(s).shadowRoot.querySelector(".embed").dataset.settled === "true",
    tail,
    { timeout: 60_000 },
  );
  assert.equal(await inShadow(tail, '[data-readout="requests"]', "text"), "2,000");
  // A new profile is calibrated over several tasks, then shown.
  await set(tail, "profile", "tight");
  await waitIn(tail, "select", "tight");
  await page.waitForFunction(
    (s) =>
      document.querySelector(s).shadowRoot.querySelector(".embed").dataset.preparing === "false",
    tail,
  );

  // A Lab section: the fan-out section answers as it does to its own slider.
  await waitIn(lab, '[data-readout="slow-share"]', /%$/, "text");
  await set(lab, "fanout-n", "20");
  const n20 = pkg.simulateFanout({ p: 0.01, n: 20, requests: 100_000, seed: 1 });
  await waitIn(lab, '[data-readout="slow-share"]', formatPct(n20.sim), "text");
  // The fan-out slider holds a stop's index (a log slider); its output shows n.
  assert.equal(await inShadow(lab, 'input[id$="fanout-n"] + output', "text"), "20");
  await set(lab, "fanout-p", "0.05");
  await waitIn(
    lab,
    '[data-theory="slow-share"]',
    `theory ${formatPct(pkg.slowShare(0.05, 20))}`,
    "text",
  );
  await set(lab, "fanout-p", "banana");
  await waitIn(lab, ".embed-notice", /fanout-p: “banana” is not a number; using 0.01/, "text");

  // A new kind: the old panel goes, the new one mounts.
  await set(tail, "kind", "strip");
  await page.waitForFunction(
    (s) => {
      const root = document.querySelector(s).shadowRoot;
      return (
        document.querySelector(s).dataset.ready === "true" &&
        root.querySelector("[data-part=strip] canvas") &&
        !root.querySelector("select")
      );
    },
    tail,
    { timeout: 60_000 },
  );
  assert.equal(await page.evaluate(() => window.__rejections), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** What an embedded hedge panel shows for the API's result at `seed` (the section's defaults). */
const hedgeText = (seed) => {
  const h = pkg.simulateHedge({ delayQ: 0.95, requests: 200_000, seed });
  return [
    formatMs(h.p999Before),
    formatMs(h.p999After),
    formatPct(h.extraRequests),
    formatPct(h.extraWork, 2),
    formatMs(h.delayMs),
  ];
};

test("a Lab panel's seed: `seed=\"7\"` gives the API's numbers at seed 7, the link carries it, a change re-runs it, a bad one gets a notice and seed 1", async () => {
  // "copy link" writes to the clipboard: the page's is replaced by one that keeps the text.
  const page = await open("panel.html?kind=hedge&seed=7", {
    init: {
      fn: () => {
        Object.defineProperty(navigator, "clipboard", {
          value: {
            writeText: async (text) => {
              window.__copied = text;
            },
          },
        });
      },
      arg: undefined,
    },
  });
  /** The hedge readouts of panel `selector`, once its run has answered. */
  const readouts = async (selector) => {
    await page.waitForFunction(
      (s) => {
        const p = document.querySelector(s).shadowRoot.querySelector("[data-progress]");
        return p?.dataset.total && p.dataset.done === p.dataset.total;
      },
      selector,
      { timeout: 60_000 },
    );
    return page.$eval(selector, (p) =>
      ["p999-before", "p999-after", "extra-requests", "extra-work", "hedge-delay"].map(
        (name) => p.shadowRoot.querySelector(`[data-readout="${name}"]`).textContent,
      ),
    );
  };
  /** Waits until panel `selector` shows `want` (the hedge readouts). */
  const shows = (selector, want) =>
    page.waitForFunction(
      ([s, w]) =>
        ["p999-before", "p999-after", "extra-requests", "extra-work", "hedge-delay"]
          .map(
            (name) =>
              document.querySelector(s).shadowRoot.querySelector(`[data-readout="${name}"]`)
                ?.textContent,
          )
          .join("|") === w.join("|"),
      [selector, want],
      { timeout: 60_000 },
    );
  // panel.html: the link's seed.
  const first = "tail-lab-panel:nth-of-type(1)";
  assert.deepEqual(await readouts(first), hedgeText(7));
  assert.notDeepEqual(hedgeText(7), hedgeText(1));
  await page.click(`${first} [data-export=copy-link]`);
  await page.waitForFunction(() => window.__copied);
  const copied = new URL(await page.evaluate(() => window.__copied));
  assert.equal(copied.searchParams.get("kind"), "hedge");
  assert.equal(copied.searchParams.get("seed"), "7");

  // Attributes: seed="7" on a host page's panel, and a bad seed on another.
  await addPanels(page, [
    ["hedge", { seed: "7" }],
    ["fanout", { seed: "abc" }],
  ]);
  await allReady(page);
  const hedge = "tail-lab-panel:nth-of-type(2)";
  const fanout = "tail-lab-panel:nth-of-type(3)";
  assert.deepEqual(await readouts(hedge), hedgeText(7));
  assert.match(
    await shadowText(page, fanout),
    /seed: “abc” is not a whole number from 0 to 18446744073709551615; using 1/,
  );
  const fan = pkg.simulateFanout({ p: 0.01, n: 100, requests: 100_000, seed: 1 });
  await page.waitForFunction(
    ([s, w]) =>
      document.querySelector(s).shadowRoot.querySelector('[data-readout="slow-share"]')
        ?.textContent === w,
    [fanout, formatPct(fan.sim)],
    { timeout: 60_000 },
  );
  // Changed after mount: the panel runs again at the new seed; a bad one is seed 1, with a notice.
  const set = (value) => page.$eval(hedge, (p, v) => p.setAttribute("seed", v), value);
  await set("-1");
  await shows(hedge, hedgeText(1));
  assert.match(
    await shadowText(page, hedge),
    /seed: “-1” is not a whole number from 0 to 18446744073709551615; using 1/,
  );
  // Past 2^53 as a BigInt, exactly: not the numbers at 2^53.
  await set("9007199254740993");
  await shows(hedge, hedgeText(9007199254740993n));
  assert.notDeepEqual(hedgeText(9007199254740993n), hedgeText(9007199254740992n));
  assert.doesNotMatch(await shadowText(page, hedge), /seed:/, "the notice is gone");
  assert.equal(await page.evaluate(() => window.__rejections), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("removed panels give back their wasm heap, their workers and their frames; added again, they mount again", {
  timeout: 15 * 60_000,
}, async () => {
  // The host's own panel is a small Tail panel that settles at once.
  const page = await open("panel.html?kind=arena&requests=1000&speed=paused");
  const status = () =>
    page.evaluate(async () => ({
      tail: (await import("./tail/pool.js")).tailWorkStatus(),
      lab: (await import("./lab/sim.js")).labWorkStatus(),
      labJobs: await (await import("./lab/sim.js")).labWorkerJobs(),
    }));
  // Warm-up: one of each kind, so whatever the core sets up once is set up.
  await addPanels(page, KINDS);
  await allReady(page);
  await removeAdded(page);
  await settleFrames(page);
  const base = await heap(page);

  // Forty panels, then none.
  await page.evaluate(() => {
    window.__added = [];
  });
  await addPanels(
    page,
    Array.from({ length: 40 }, (_, i) => KINDS[i % KINDS.length]),
  );
  await allReady(page);
  const full = await heap(page);
  // They hold something (so "back to the base" below says something).
  assert.ok(full > base, `forty panels hold their runs: ${base} → ${full} B`);
  await removeAdded(page);
  await settleFrames(page);
  assert.equal(await heap(page), base, "the core's live heap after removing forty panels");
  // No worker keeps working for them: the Lab's workers hold no job (asked after the cancels,
  // so counted after them), and the Tail pool's only channel is the host's, its blocks all back.
  const after = await status();
  assert.equal(after.labJobs, 0, JSON.stringify(after));
  assert.equal(after.lab.clients, 0, JSON.stringify(after));
  assert.equal(after.tail.channels, 1, JSON.stringify(after));
  await page.waitForFunction(
    async () => (await import("./tail/pool.js")).tailWorkStatus().inflight === 0,
    null,
    { timeout: 30_000 },
  );

  // Removed while still being prepared: nothing is left either.
  await page.evaluate(() => {
    window.__added = [];
  });
  await addPanels(
    page,
    Array.from({ length: 6 }, () => "tail"),
  );
  // Removed as soon as the first of them holds anything in the core, the rest still queued or
  // calibrating.
  await page.waitForFunction(
    async (b) => (await import("./pkg/tail_lab.js")).heapBytes() > b,
    base,
    { timeout: 60_000 },
  );
  await removeAdded(page);
  await page.waitForFunction(
    async (b) => (await import("./pkg/tail_lab.js")).heapBytes() === b,
    base,
    { timeout: 60_000 },
  );

  // Added again, a panel mounts again and runs; removed again, it gives everything back.
  const again = await page.evaluate(() => {
    const p = window.__added[0];
    p.setAttribute("kind", "histograms");
    document.querySelector("main").append(p);
    return document.querySelectorAll("tail-lab-panel").length;
  });
  assert.equal(again, 2);
  await allReady(page);
  await page.waitForFunction(
    () =>
      Number(
        document
          .querySelectorAll("tail-lab-panel")[1]
          .shadowRoot.querySelector('[data-readout="requests"]')
          .textContent.replace(/,/g, ""),
      ) > 0,
    null,
    { timeout: 60_000 },
  );
  // Moved within the page (removed and added in one task), it keeps running as it was.
  const moved = await page.evaluate(() => {
    const p = document.querySelectorAll("tail-lab-panel")[1];
    const root = p.shadowRoot.querySelector(".embed");
    document.querySelector("main").prepend(p);
    return new Promise((r) =>
      setTimeout(() => r(p.shadowRoot.querySelector(".embed") === root), 50),
    );
  });
  assert.ok(moved, "a moved panel is not rebuilt");
  await page.evaluate(() => document.querySelectorAll("tail-lab-panel")[0].remove());
  await settleFrames(page);
  assert.equal(await heap(page), base);
  assert.equal(await page.evaluate(() => window.__rejections), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("thirty panels on one page mount one at a time, each after the last is up", {
  timeout: 20 * 60_000,
}, async () => {
  // What keeps thirty panels from making a long task at start-up is structural: panels mount
  // one after another (embed.js `inTurn`), each in a task of its own, and the frame scheduler
  // leaves what does not fit in a frame to the next. This checks the first part from the
  // outside, with no clock: one MutationObserver watches every panel's shadow root and its
  // `data-ready`, and records come in the order the mutations happened, so panel k + 1 must
  // not touch its shadow DOM before panel k is ready. (How long the tasks are depends on the
  // machine: `node tests/bench/browser.mjs` measures and prints it, and asserts nothing.)
  const mixes = { histograms: ["histograms"], tails: ["tail"], mixed: KINDS };
  for (const [name, kinds] of Object.entries(mixes)) {
    const page = await open("panel.html?kind=strip", {
      ready: false,
      init: {
        fn: (list) => {
          window.__mountLog = [];
          document.addEventListener("DOMContentLoaded", () => {
            for (let i = 0; i < 30; i++) {
              const p = document.createElement("tail-lab-panel");
              p.setAttribute("kind", list[i % list.length]);
              document.querySelector("main").append(p);
            }
            const panels = [...document.querySelectorAll("tail-lab-panel")];
            const observer = new MutationObserver((records) => {
              for (const r of records) {
                const host = r.target.getRootNode().host ?? r.target;
                const i = panels.indexOf(host);
                if (i < 0) continue;
                const ready = r.type === "attributes" && r.attributeName === "data-ready";
                if (ready && host.dataset.ready !== "true") continue;
                // The shadow root's own children are set when the element connects (start()),
                // before its turn: the mount's work is inside them.
                if (!ready && r.target === host.shadowRoot) continue;
                window.__mountLog.push([i, ready ? "ready" : "build"]);
              }
            });
            for (const p of panels) {
              observer.observe(p, { attributes: true, attributeFilter: ["data-ready"] });
              observer.observe(p.shadowRoot, { childList: true, subtree: true, attributes: true });
            }
          });
        },
        arg: kinds,
      },
    });
    await page.waitForFunction(
      () => document.querySelectorAll("tail-lab-panel[data-ready=true]").length === 31,
      null,
      { timeout: 300_000 },
    );
    await settleFrames(page);
    const log = await page.evaluate(() => window.__mountLog);
    // Panels in the order they first did anything, and where each became ready.
    const order = [];
    const readyAt = new Map();
    log.forEach(([i, what], at) => {
      if (!order.includes(i)) order.push(i);
      if (what === "ready" && !readyAt.has(i)) readyAt.set(i, at);
    });
    assert.equal(order.length, 31, `${name}: every panel built something`);
    assert.equal(readyAt.size, 31, `${name}: every panel became ready once observed`);
    for (let k = 1; k < order.length; k++) {
      const previous = order[k - 1];
      const first = log.findIndex(([i]) => i === order[k]);
      assert.ok(
        first > readyAt.get(previous),
        `${name}: panel ${order[k]} started building (record ${first}) before panel ${previous} was ready (record ${readyAt.get(previous)})`,
      );
    }
    // The page's own panel first, then the thirty in the order they were added.
    assert.deepEqual(
      order,
      Array.from({ length: 31 }, (_, i) => i),
      `${name}: mounted in document order`,
    );
    assert.equal(await page.evaluate(() => window.__rejections), 0);
    assert.deepEqual(page.errors, []);
    if (name === "mixed") {
      await page.screenshot({ path: join(SHOTS, "panels-30-1280.png") });
      await page.setViewportSize({ width: 390, height: 900 });
      await page.waitForTimeout(500);
      await page.screenshot({ path: join(SHOTS, "panels-30-390.png") });
    }
    await page.close();
  }
});

test("text drawn on a chart cannot become markup in its SVG, nor a formula in its CSV", async () => {
  const page = await open("panel.html?kind=strip");
  const hostile =
    "</text><script>window.__pwned='svg'</script><text x=\"1\" onload='x'>&amp;\u0001\u0008\uFFFE";
  const out = await page.evaluate(async (text) => {
    const { svgCanvas } = await import("./svg.js");
    const { toCsv } = await import("./export.js");
    const canvas = document.createElement("canvas");
    canvas.setAttribute("height", "100");
    const stand = svgCanvas(canvas);
    const ctx = stand.getContext("2d");
    ctx.font = `12px "a" ${text}`;
    ctx.fillStyle = `red" onload="window.__pwned='fill'`;
    ctx.fillText(text, 10, 20);
    ctx.strokeStyle = text;
    ctx.beginPath();
    ctx.moveTo(0, 0);
    ctx.lineTo(5, 5);
    ctx.stroke();
    const svg = stand.toString();
    const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
    const csv = toCsv({
      title: "t\n=1+1",
      meta: { note: text, n: '=HYPERLINK("http://x")' },
      header: ["a", "b"],
      rows: [
        ["=1+1", -3],
        ["@SUM(A1)", "-2.5"],
        ["+x", 'a,"b"\nc'],
      ],
    });
    return {
      parseError: doc.querySelector("parsererror")?.textContent ?? null,
      elements: [...doc.querySelectorAll("*")].map((e) => e.localName),
      attributes: [...doc.querySelectorAll("*")].flatMap((e) => e.getAttributeNames()),
      text: doc.querySelector("text")?.textContent,
      csv,
    };
  }, hostile);
  assert.equal(out.parseError, null, "the SVG is well-formed XML");
  assert.deepEqual(out.elements, ["svg", "text", "path"]);
  assert.ok(!out.attributes.some((a) => a.startsWith("on")), out.attributes.join(" "));
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML forbids, on purpose
  const forbidden = /[\u0001\u0008\uFFFE]/g;
  assert.equal(
    out.text,
    hostile.replace(forbidden, ""),
    "the text is drawn as it was given, as text",
  );
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // CSV: one line per header note, no cell a spreadsheet would run, quoted where needed.
  const lines = out.csv.split("\n");
  assert.deepEqual(lines.slice(0, 3), [
    "# t =1+1",
    `"# note=</text><script>window.__pwned='svg'</script><text x=""1"" onload='x'>&amp;\u0001\u0008\uFFFE"`,
    `"# n==HYPERLINK(""http://x"")"`,
  ]);
  assert.deepEqual(lines.slice(3), ["a,b", "'=1+1,-3", "'@SUM(A1),-2.5", `'+x,"a,""b""`, `c"`, ""]);
  await page.close();
});
