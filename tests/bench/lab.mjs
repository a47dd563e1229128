// The Lab's timeline in Chromium: for each section, when its chart first holds a complete rough
// draft (every point answered at some sample size), a complete draft (every point at a tenth of
// its sample or more) and every point at full size, in ms from navigation. Used by browser.mjs; `node tests/bench/lab.mjs` runs it alone.

import { launchChromium, serveWeb } from "../support.mjs";

/** Records, in the page, each section's first complete draft and its settling (ms since navigation). */
function labTimelineInit() {
  const times = {};
  window.__labTimes = times;
  const seen = (el) => {
    const section = el.closest("[data-section]")?.dataset.section;
    if (!section) return;
    const total = Number(el.dataset.total);
    const t = performance.now();
    times[section] ??= {};
    const entry = times[section];
    if (total > 0 && Number(el.dataset.drafted) >= total && entry.rough === undefined)
      entry.rough = t;
    if (total > 0 && Number(el.dataset.tenth) >= total && entry.draft === undefined)
      entry.draft = t;
    if (total > 0 && Number(el.dataset.done) >= total) entry.final ??= t;
  };
  new MutationObserver((records) => {
    for (const r of records)
      if (r.target instanceof HTMLElement && r.target.matches("[data-progress]")) seen(r.target);
  }).observe(document, {
    subtree: true,
    attributes: true,
    attributeFilter: ["data-done", "data-drafted", "data-total"],
  });
}

/**
 * Opens the Lab at `viewport` and waits until every section listed in `sections` has settled;
 * returns `{ section: { draft, final } }` in ms since navigation.
 */
export async function labTimeline(browser, url, viewport, sections, timeout = 120_000) {
  const page = await browser.newPage({ viewport });
  await page.addInitScript(labTimelineInit);
  await page.goto(url);
  await page.waitForFunction(
    (names) => names.every((n) => window.__labTimes?.[n]?.final !== undefined),
    sections,
    { timeout, polling: 100 },
  );
  const times = await page.evaluate(() => window.__labTimes);
  await page.close();
  return times;
}

/** The time from a slider step to the section's next complete draft (ms), after it settled. */
export async function sliderDraft(browser, url, section, slider, steps = 3) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.goto(url);
  const progress = `[data-section="${section}"] [data-progress]`;
  await page.waitForFunction(
    (sel) => {
      const el = document.querySelector(sel);
      return el && Number(el.dataset.total) > 0 && el.dataset.done === el.dataset.total;
    },
    progress,
    { timeout: 120_000 },
  );
  await page.locator(`#${slider}`).scrollIntoViewIfNeeded();
  const out = [];
  for (let i = 0; i < steps; i++) {
    const ms = await page.evaluate(
      ({ sel, id }) =>
        new Promise((resolve) => {
          const el = document.querySelector(sel);
          const input = /** @type {HTMLInputElement} */ (document.getElementById(id));
          const t0 = performance.now();
          const check = () => {
            if (Number(el.dataset.drafted) >= Number(el.dataset.total))
              resolve(performance.now() - t0);
            else requestAnimationFrame(check);
          };
          if (input instanceof HTMLSelectElement) {
            input.selectedIndex = (input.selectedIndex + 1) % input.options.length;
            input.dispatchEvent(new Event("change", { bubbles: true }));
          } else {
            input.stepUp();
            input.dispatchEvent(new Event("input", { bubbles: true }));
          }
          requestAnimationFrame(check);
        }),
      { sel: progress, id: slider },
    );
    out.push(ms);
  }
  await page.close();
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await serveWeb();
  const browser = await launchChromium();
  try {
    const all = ["fanout", "hedge", "queue", "loaded", "balance"];
    for (const [name, viewport] of [
      ["1280x800", { width: 1280, height: 800 }],
      ["every section on screen", { width: 1280, height: 12000 }],
    ]) {
      const t = await labTimeline(browser, server.url, viewport, all);
      for (const s of all)
        console.log(
          `${name.padEnd(24)} ${s.padEnd(8)} rough ${Math.round(t[s]?.rough ?? NaN)} ms  draft ${Math.round(t[s]?.draft ?? NaN)} ms  final ${Math.round(t[s]?.final ?? NaN)} ms`,
        );
    }
    for (const [section, slider] of [
      ["loaded", "loaded-cancel"],
      ["balance", "balance-lambda"],
      ["queue", "queue-servers"],
    ])
      console.log(
        `slider ${section}: draft after`,
        (await sliderDraft(browser, server.url, section, slider)).map(Math.round).join(", "),
        "ms",
      );
  } finally {
    await browser.close();
    await server.close();
  }
}
