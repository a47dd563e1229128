// Charts you can touch, in real Chromium: dragging a chart's marker line, or the arrow keys on
// the focused chart, move the SAME setting as its slider (the slider's value, the URL); the
// crosshair's reading is the chart's exact numbers (compared with the readouts); every
// transformed slider has an aria-valuetext, no <output> is a live region, the fan-out slider
// keeps any n from a link exactly; a histograms panel without the arena draws no "this request".
//
// Each test fails without its change: against the web/ before it (`TAIL_LAB_WEB=old/web`) the
// canvases have no `data-marker-px` (nothing to drag), no `data-crosshair` caption, the sliders
// no aria-valuetext and the outputs are live (Chromium's tree says "polite"), and the panel's
// histograms draw "this request".

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatMs, formatPct } from "../../web/format.js";
import { SITE, launchChromium, loadPackage, serveWeb } from "../support.mjs";

const pkg = await loadPackage();
let server, browser, lab;
const problems = [];

const frames = (page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const param = (page, name) =>
  page.evaluate((n) => new URLSearchParams(location.search).get(n), name);
const labReady = () =>
  document.body.dataset.ready === "true" &&
  [...document.querySelectorAll("[data-progress]")].every(
    (p) => p.dataset.total && p.dataset.done === p.dataset.total,
  );

async function open(path) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  await page.goto(`${server.url}${path}`);
  return page;
}

before(async () => {
  server = await serveWeb(SITE);
  browser = await launchChromium();
  lab = await open("index.html");
  await lab.waitForFunction(labReady, null, { timeout: 240_000 });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/**
 * Drags `canvas`'s marker by `dx` CSS px with the mouse (press on the line, move, release);
 * returns the canvas.
 */
async function dragMarker(page, canvasSelector, dx) {
  const c = await page.$(canvasSelector);
  await c.scrollIntoViewIfNeeded();
  await frames(page);
  const { x, y, h, px } = await c.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { x: r.left + el.clientLeft, y: r.top, h: r.height, px: Number(el.dataset.markerPx) };
  });
  assert.ok(Number.isFinite(px), `${canvasSelector}: data-marker-px`);
  await page.mouse.move(x + px + 3, y + h / 2);
  await page.mouse.down();
  if (dx !== 0)
    for (let k = 1; k <= 4; k++) await page.mouse.move(x + px + 3 + (dx * k) / 4, y + h / 2);
  await page.mouse.up();
  await frames(page);
  return c;
}

const LAB_MARKERS = [
  // [section, slider id, URL parameter, drag in px]
  ["fanout", "fanout-n", "fanout-n", -120],
  ["hedge", "hedge-delayq", "hedge-delayq", 80],
  ["queue", "queue-load", "queue-load", -120],
  ["balance", "balance-lambda", "balance-lambda", -120],
  ["loaded", "loaded-load", "loaded-load", -120],
  ["graph", "graph-deadline", "graph-deadline", 80],
];

for (const [section, id, name, dx] of LAB_MARKERS) {
  test(`${section}: dragging the marker moves its slider and the URL; so do arrow keys on the chart`, async () => {
    const canvas = `[data-section=${section}] canvas`;
    const before = await lab.inputValue(`#${id}`);
    const urlBefore = await param(lab, name);
    // A press on the marker that does not move is not a drag: clicking it changes nothing (the
    // hedge's marker once crept a step a click).
    for (let k = 0; k < 3; k++) await dragMarker(lab, canvas, 0);
    assert.equal(await lab.inputValue(`#${id}`), before, `${id} moved on a click`);
    await dragMarker(lab, canvas, dx);
    const dragged = await lab.inputValue(`#${id}`);
    assert.notEqual(dragged, before, `${id} did not move with the drag`);
    await lab.waitForFunction(
      ([n, was]) => new URLSearchParams(location.search).get(n) !== was,
      [name, urlBefore],
    );
    // The output follows the slider, as it does when the slider moves.
    const output = await lab.$eval(
      `#${id}`,
      (i) => i.parentElement.querySelector("output").textContent,
    );
    assert.ok(output.length > 0 && !/NaN/.test(output), output);
    // The keyboard: the focused chart's arrow keys step the same slider by one of its steps.
    await lab.focus(canvas);
    await lab.keyboard.press("ArrowRight");
    await frames(lab);
    const stepped = await lab.inputValue(`#${id}`);
    assert.notEqual(stepped, dragged, `${id} did not move with ArrowRight on the chart`);
    await lab
      .waitForFunction(
        ([n, v]) => new URLSearchParams(location.search).get(n) !== v,
        [name, await param(lab, name)].map(String),
        { timeout: 5_000 },
      )
      .catch(() => {});
    const role = await lab.$eval(canvas, (c) => ({
      role: c.getAttribute("role"),
      tab: c.tabIndex,
      now: c.getAttribute("aria-valuenow"),
    }));
    assert.deepEqual(role, { role: "slider", tab: 0, now: stepped });
    await lab.keyboard.press("ArrowLeft");
    await frames(lab);
    assert.equal(await lab.inputValue(`#${id}`), dragged, "ArrowLeft steps back");
    await lab.waitForFunction(labReady, null, { timeout: 240_000 });
    assert.deepEqual(problems, []);
  });
}

test("the fan-out marker snaps to the slider's stops, and the URL keeps the plain n", async () => {
  await lab.focus("[data-section=fanout] canvas");
  await lab.keyboard.press("Home");
  await frames(lab);
  assert.equal(await lab.inputValue("#fanout-n"), "0");
  await lab.keyboard.press("ArrowRight");
  await lab.keyboard.press("ArrowRight");
  await lab.keyboard.press("ArrowRight");
  await lab.keyboard.press("ArrowRight");
  await frames(lab);
  await lab.waitForFunction(() => new URLSearchParams(location.search).get("fanout-n") === "5");
  assert.equal(await lab.getAttribute("#fanout-n", "aria-valuetext"), "n = 5");
  assert.equal(await lab.$eval("#fanout-n + output", (o) => o.textContent), "5");
});

test("the crosshair reads the chart's exact numbers: the readouts' own", async () => {
  await lab.waitForFunction(labReady, null, { timeout: 240_000 });
  // Fan-out: focused, the guide stands on the marker's n, with the theory and the simulated dot.
  await lab.focus("[data-section=fanout] canvas");
  await frames(lab);
  const n = Number(await lab.$eval("#fanout-n + output", (o) => o.textContent));
  const fan = await lab.$eval("[data-section=fanout]", (root) => ({
    reading: root.querySelector("[data-crosshair]").textContent,
    guide: root.querySelector("canvas").dataset.guide,
    valuetext: root.querySelector("canvas").getAttribute("aria-valuetext"),
    theory: root.querySelector('[data-theory="slow-share"]').textContent,
    sim: root.querySelector('[data-readout="slow-share"]').textContent,
  }));
  assert.equal(Number(fan.guide), n);
  assert.equal(fan.theory, `theory ${formatPct(pkg.slowShare(0.01, n))}`);
  assert.equal(
    fan.reading,
    `n = ${n}; 1 − (1 − p)ⁿ ${fan.theory.replace("theory ", "")}; simulated ${fan.sim}`,
  );
  assert.equal(fan.valuetext, fan.reading, "a screen reader hears the same numbers, once");
  // The queue: at ρ = the marker, the closed forms and the dot, as the readouts show them.
  await lab.focus("[data-section=queue] canvas");
  await frames(lab);
  const q = await lab.$eval("[data-section=queue]", (root) => ({
    reading: root.querySelector("[data-crosshair]").textContent,
    mean: root.querySelector('[data-readout="queue-mean"]').textContent,
    meanTheory: root.querySelector('[data-theory="queue-mean"]').textContent,
    p99: root.querySelector('[data-readout="queue-p99"]').textContent,
    p99Theory: root.querySelector('[data-theory="queue-p99"]').textContent,
    rho: root.querySelector("#queue-load + output").textContent,
  }));
  assert.ok(q.reading.startsWith(`ρ = ${q.rho}, c = 4`), q.reading);
  assert.ok(
    q.reading.includes(`mean: ${q.meanTheory.replace("theory", "exact")}, simulated ${q.mean}`),
    JSON.stringify(q),
  );
  assert.ok(
    q.reading.includes(`p99: ${q.p99Theory.replace("theory", "exact")}, simulated ${q.p99}`),
    JSON.stringify(q),
  );
  // The pointer: hovering draws the guide at the nearest data x (no caption change needed).
  await lab.focus("#fanout-p");
  const c = await lab.$("[data-section=hedge] canvas");
  await c.scrollIntoViewIfNeeded();
  const box = await c.boundingBox();
  await lab.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
  await frames(lab);
  const guide = Number(await c.evaluate((el) => el.dataset.guide));
  assert.ok(Number.isFinite(guide) && guide > 1 && guide < 10_000, String(guide));
  await lab.mouse.move(0, 0);
  await frames(lab);
  assert.equal(await c.evaluate((el) => el.dataset.guide ?? null), null, "gone when it leaves");
});

test("every transformed slider says its value in words; no output is a live region", async () => {
  const tail = await open("tail.html?requests=100000");
  await tail.waitForSelector("[data-ready=true]", { timeout: 120_000 });
  for (const page of [lab, tail]) {
    const sliders = await page.$$eval("input[type=range]", (is) =>
      is.map((i) => ({
        id: i.id,
        value: i.value,
        text: i.getAttribute("aria-valuetext"),
        shown: i.parentElement.querySelector("output")?.textContent ?? null,
      })),
    );
    for (const s of sliders) {
      // A slider whose value is not what it shows must say what it shows.
      if (s.shown !== null && s.shown !== s.value)
        assert.ok(s.text, `${s.id}: value ${s.value} shown as ${s.shown}, no aria-valuetext`);
    }
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = await cdp.send("Accessibility.getFullAXTree");
    const live = nodes
      .filter((n) => n.role?.value === "status")
      .map((n) => ({
        name: n.name?.value,
        live: n.properties?.find((p) => p.name === "live")?.value.value ?? "off",
      }));
    const outputs = await page.$$eval("output", (os) => os.map((o) => o.textContent));
    for (const text of outputs) {
      const node = live.find((l) => l.name === text || l.name === undefined);
      if (node) assert.equal(node.live, "off", `an output "${text}" is live`);
    }
    for (const o of await page.$$eval("output", (os) => os.map((x) => x.getAttribute("aria-live"))))
      assert.equal(o, "off");
  }
  assert.equal(await lab.getAttribute("#fanout-p", "aria-valuetext"), "p = 1.0%");
  await tail.close();
});

test("a link's n between two stops is kept exactly", async () => {
  const page = await open("index.html?fanout-n=37");
  await page.waitForFunction(() => document.body.dataset.ready === "true", null, {
    timeout: 120_000,
  });
  assert.equal(await page.$eval("#fanout-n + output", (o) => o.textContent), "37");
  assert.equal(await page.getAttribute("#fanout-n", "aria-valuetext"), "n = 37");
  assert.equal(await param(page, "fanout-n"), "37");
  await page.waitForFunction(
    (t) => document.querySelector('[data-theory="slow-share"]').textContent === t,
    `theory ${formatPct(pkg.slowShare(0.01, 37))}`,
  );
  await page.close();
});

test("the Tail strip: dragging n and the arrow keys move the fan-out slider and the URL", async () => {
  const tail = await open("tail.html?requests=100000");
  await tail.waitForSelector("[data-ready=true]", { timeout: 120_000 });
  await tail.$eval("#strip", (c) => c.scrollIntoView());
  await tail.waitForFunction(() => document.querySelector("#strip")?.dataset.markerPx);
  await dragMarker(tail, "#strip", -80);
  const dragged = await tail.inputValue("#fanout");
  assert.notEqual(dragged, "100");
  await tail.waitForFunction(
    (v) => new URLSearchParams(location.search).get("fanout") === v,
    dragged,
  );
  await tail.focus("#strip");
  await tail.keyboard.press("ArrowRight");
  await frames(tail);
  assert.equal(await tail.inputValue("#fanout"), String(Number(dragged) + 1));
  // Its reading is the strip's numbers at that n, as the strip's description says them.
  await tail.waitForFunction(
    (n) => document.querySelector("#strip").getAttribute("aria-label").includes(`n = ${n} `),
    String(Number(dragged) + 1),
  );
  await frames(tail);
  const { reading, label } = await tail.$eval("#strip", (c) => ({
    reading: c.getAttribute("aria-valuetext"),
    label: c.getAttribute("aria-label"),
  }));
  const [, p50, p99] = /parent median is (.+?) and p99 (.+?);/.exec(label);
  assert.ok(reading.includes(`parent p50 ${p50}; parent p99 ${p99}`), `${reading} | ${label}`);
  // The histograms read a bin's counts; the arena its leaves.
  await tail.focus("#histograms");
  await tail.keyboard.press("ArrowRight");
  await frames(tail);
  assert.match(
    await tail.getAttribute("#histograms", "aria-valuetext"),
    /^.+ to .+; leaves [\d,]+; parents [\d,]+$/,
  );
  await tail.focus("#arena");
  await frames(tail);
  const arena = await tail.getAttribute("#arena", "aria-valuetext");
  const parentMs = Number(await tail.$eval("#arena", (c) => c.dataset.parentMs));
  assert.match(
    arena,
    new RegExp(`^leaf \\d+: .+; parent ${formatMs(parentMs).replace(".", "\\.")}$`),
  );
  assert.deepEqual(problems, []);
  await tail.close();
});

test("a histograms panel without the arena draws no 'this request'; with it, the Tail page does", async () => {
  const panel = await open("panel.html?kind=histograms&requests=100000");
  const labelsIn = (page, get) =>
    page.waitForFunction(get, null, { timeout: 120_000 }).then((h) => h.jsonValue());
  const alone = await labelsIn(panel, () => {
    const c = document.querySelector("tail-lab-panel")?.shadowRoot?.querySelector("canvas");
    return c?.dataset.labels?.includes("p99") ? c.dataset.labels : null;
  });
  assert.ok(!alone.includes("this request"), alone);
  assert.ok(alone.includes("height ∝ √count"), "the y-scale note");
  const tail = await open("tail.html?requests=100000&speed=paused");
  // A chart is drawn only on screen.
  await tail.waitForSelector("#histograms");
  await tail.$eval("#histograms", (c) => c.scrollIntoView());
  const withArena = await labelsIn(tail, () => {
    const c = document.querySelector("#histograms");
    return c?.dataset.labels?.includes("p99") ? c.dataset.labels : null;
  });
  assert.ok(withArena.includes("this request"), withArena);
  await panel.close();
  await tail.close();
});
