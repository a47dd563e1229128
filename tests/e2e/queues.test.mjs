// The queue animations (web/lab/sections/{balance,loaded}/queues.js): each is on the Lab, its
// text alternative shows the queue lengths of the core's trace for the same arguments (the
// built package in node) at the event it shows, "step" moves it one event, under reduced
// motion it does not advance by itself, and without it it does. A change of d re-requests.
//
// It can fail: the lengths are compared number for number with node's trace (a view drawing
// the wrong row, or a stale trace after a change, differs), and the "does not advance" check
// is paired with one that the same page, without reduced motion, does advance.
//
// Each view is checked on its section's own panel (`panel.html?kind=balance`, `…=loaded`): the
// same section module and view, with no other section computing beside it.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchChromium, loadPackage, serveWeb, watchPanel } from "../support.mjs";

const pkg = await loadPackage();
let server, browser;

before(async () => {
  server = await serveWeb();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** `n` animation frames. */
const frames = (page, n) =>
  page.evaluate(
    (n) =>
      new Promise((resolve) => {
        let left = n;
        const tick = () => (--left <= 0 ? resolve(undefined) : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
      }),
    n,
  );

/** A view's state: its trace's arguments, the event shown and its text alternative. */
const view = (page, name) =>
  page.$eval(`[data-queues=${name}]`, (c) => ({
    args: JSON.parse(c.dataset.trace ?? "null"),
    event: Number(c.dataset.event),
    label: c.getAttribute("aria-label") ?? "",
    playing: c.dataset.playing,
  }));

/** The lengths node's trace holds at event `i` of `name`'s view, as the label lists them. */
function expected(name, args, i) {
  if (name === "balance") {
    const t = pkg.traceSupermarket(args);
    return [...t.lengths.subarray(i * t.servers, (i + 1) * t.servers)].join(",");
  }
  const t = pkg.traceLoaded(args);
  const n = t.replicas;
  return [...t.primaries.subarray(i * n, (i + 1) * n)]
    .map((p, r) => p + t.backups[i * n + r])
    .join(",");
}

/** The lengths a label lists ("queue lengths 1,2,…" or "copies at each 1,2,…"). */
const listed = (label) => /(?:queue lengths|copies at each) ([\d,]+);/.exec(label)?.[1];

/** Section `name`'s panel, its queue view loaded. */
async function open(reducedMotion, name) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  await page.emulateMedia({ reducedMotion });
  await watchPanel(page);
  await page.goto(`${server.url}panel.html?kind=${name}`);
  await page.waitForFunction(
    () => globalThis.sectionScope().querySelectorAll("[data-queues][data-event]").length === 1,
    null,
    { timeout: 120_000 },
  );
  return { page, problems };
}

test("under reduced motion each view holds still, and step moves it through the core's trace", async () => {
  for (const name of ["balance", "loaded"]) {
    const { page, problems } = await open("reduce", name);
    await page.locator(`[data-queues-figure=${name}]`).scrollIntoViewIfNeeded();
    const first = await view(page, name);
    assert.equal(first.playing, "false", `${name} starts paused`);
    assert.equal(first.event, 0);
    assert.equal(listed(first.label), expected(name, first.args, 0), first.label);
    // It does not advance by itself.
    await frames(page, 40);
    assert.equal((await view(page, name)).event, 0, `${name} held still`);
    const step = page.locator(`[data-queues-figure=${name}] [data-queues-step]`);
    for (let k = 0; k < 3; k++) await step.click();
    const after = await view(page, name);
    assert.equal(after.event, 3);
    assert.equal(listed(after.label), expected(name, after.args, 3), after.label);
    assert.match(after.label, /event 4 of \d+/);
    if (name === "balance") {
      // The balance view follows d: random assignment samples one server.
      await page.selectOption('[data-section=balance] select[id$="balance-d"]', "1");
      await page.waitForFunction(
        () =>
          JSON.parse(
            globalThis.sectionScope().querySelector("[data-queues=balance]")?.dataset.trace ?? "{}",
          ).d === 1,
      );
      await page.waitForFunction(() =>
        /sampled server \d+, joined|a job left/.test(
          globalThis
            .sectionScope()
            .querySelector("[data-queues=balance]")
            ?.getAttribute("aria-label") ?? "",
        ),
      );
      const random = await view(page, "balance");
      assert.equal(listed(random.label), expected("balance", random.args, random.event));
    }
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test("without reduced motion the views play, and pause holds them", async () => {
  for (const name of ["balance", "loaded"]) {
    const { page, problems } = await open("no-preference", name);
    await page.locator(`[data-queues-figure=${name}]`).scrollIntoViewIfNeeded();
    assert.equal((await view(page, name)).playing, "true");
    await page.waitForFunction(
      (name) =>
        Number(globalThis.sectionScope().querySelector(`[data-queues=${name}]`)?.dataset.event) > 1,
      name,
      { timeout: 60_000 },
    );
    const pause = page.locator(`[data-queues-figure=${name}] [data-queues-play]`);
    assert.equal(await pause.getAttribute("aria-pressed"), "true");
    await pause.click();
    assert.equal(await pause.textContent(), "play");
    const held = await view(page, name);
    await frames(page, 40);
    const later = await view(page, name);
    assert.equal(later.event, held.event, `${name} paused`);
    assert.equal(listed(later.label), expected(name, later.args, later.event));
    assert.deepEqual(problems, []);
    await page.close();
  }
});
