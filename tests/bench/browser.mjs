// Browser benchmark runner: `node tests/bench/browser.mjs [--quick]`.
// Prints one line per figure beside its target, and exits 0 whatever the figures are: this is
// a measurement, not a test. `cargo xtask bench` runs it after the native benchmarks (and
// then takes wasm ÷ native in paired rounds itself, see tests/bench/wasm-leaf.mjs); CI runs it
// with --quick only to check that it still starts.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { WEB, launchChromium, serveWeb } from "../support.mjs";
import { SECTIONS } from "../../web/lab/sections.js";
import { labTimeline, sliderDraft } from "./lab.mjs";

const args = process.argv.slice(2);
const quick = args.includes("--quick");

function line(what, value, unit, target, met) {
  const verdict = target ? (met ? "met" : "MISSED") : "";
  console.log(
    `${what.padEnd(48)} ${String(value).padStart(12)} ${unit.padEnd(10)} ${target ? `target ${target}`.padEnd(22) : "".padEnd(22)} ${verdict}`,
  );
}
const fixed = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "n/a");

const server = await serveWeb();
const browser = await launchChromium();
try {
  // 1. The bench page.
  const bench = await browser.newPage();
  await bench.goto(`${server.url}bench/${quick ? "?quick=1" : ""}`);
  await bench.waitForSelector("body[data-done]", { timeout: 300_000 });
  const text = await bench.textContent("#results");
  if (!text.startsWith("{")) throw new Error(`bench page: ${text}`);
  const b = JSON.parse(text);
  line("wasm leaf sample (fan-out 100, binned, max)", fixed(b.wasmNsPerLeaf), "ns/leaf", "", true);
  line("plain-JS leaf sample (seed-style, same work)", fixed(b.jsNsPerLeaf), "ns/leaf", "", true);
  line(
    "plain-JS leaf sample (performance-minded, issue 11's recipe)",
    fixed(b.fastJsNsPerLeaf),
    "ns/leaf",
    "",
    true,
  );
  line(
    "plain-JS leaf sample (best: recipe + cell → bin map)",
    fixed(b.cellJsNsPerLeaf),
    "ns/leaf",
    "",
    true,
  );
  line(
    "wasm speed-up over seed-style JS",
    fixed(b.wasmOverJs, 1),
    "x",
    ">= 10x",
    b.wasmOverJs >= 10,
  );
  line(
    "wasm speed-up over the best plain JS",
    fixed(b.wasmOverCellJs, 2),
    "x",
    ">= 2x",
    b.wasmOverCellJs >= 2,
  );
  line(
    "  (range over the seven alternating rounds)",
    `${fixed(b.wasmOverCellJsRange[0], 2)}–${fixed(b.wasmOverCellJsRange[1], 2)}`,
    "x",
    "",
    true,
  );
  line("wasm speed-up over the recipe JS", fixed(b.wasmOverFastJs, 2), "x", "", true);
  line(
    "  (range over the seven alternating rounds)",
    `${fixed(b.wasmOverFastJsRange[0], 2)}–${fixed(b.wasmOverFastJsRange[1], 2)}`,
    "x",
    "",
    true,
  );
  line(
    "accumulation on one thread (no workers, nothing drawn)",
    Math.round(b.singleThreadRate).toLocaleString("en-US"),
    "req/s",
    "",
    true,
  );
  for (const [w, r] of Object.entries(b.poolRate)) {
    line(
      `${w} worker${w > 1 ? "s" : ""}, nothing drawn: requests/s (per core)`,
      `${Math.round(r).toLocaleString("en-US")} (${Math.round(r / Math.min(Number(w), b.cores)).toLocaleString("en-US")})`,
      "req/s",
      "",
      true,
    );
  }
  const poolEfficiency = b.poolRate[2] / (2 * b.poolRate[1]);
  line(
    `workers' parallel efficiency at 2 (${b.cores} cores)`,
    fixed(poolEfficiency),
    "",
    ">= 0.8",
    poolEfficiency >= 0.8,
  );
  line("TailRun setup (tables + 2^22 calibration draws)", fixed(b.runSetupMs, 1), "ms", "", true);
  const grew = b.memoryAfterBytes - b.memoryBeforeBytes;
  line(
    `wasm memory growth over ${b.memoryRequests.toExponential(0)} requests`,
    grew,
    "bytes",
    "0",
    grew === 0,
  );
  line("wasm memory after warm-up", b.memoryBeforeBytes, "bytes", "", true);
  line(
    `supermarket, 100 servers, ${b.supermarketArrivals.toExponential(0)} arrivals`,
    fixed(b.supermarketMs, 0),
    "ms",
    quick ? "" : "< 1000 ms",
    b.supermarketMs < 1000,
  );
  line(
    `loaded sweep (${b.loadedSweepRuns} runs) in a worker`,
    fixed(b.loadedSweepMs, 0),
    "ms",
    quick ? "" : "< 3000 ms",
    b.loadedSweepMs < 3000,
  );
  await bench.close();

  // 2. The real page: first live frame, then a slider dragged for two seconds while requests
  //    accumulate, then 1M requests (fan-out 100): long tasks and frame times throughout.
  const page = await browser.newPage({ viewport: { width: 1100, height: 1500 } });
  await page.addInitScript(() => {
    window.__bench = { longTasks: [], frames: [] };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        window.__bench.longTasks.push({ start: e.startTime, ms: e.duration });
    }).observe({ type: "longtask", buffered: true });
    let last = 0;
    const tick = (t) => {
      if (last) window.__bench.frames.push(t - last);
      last = t;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const target = quick ? 20_000 : 1_000_000;
  await page.goto(`${server.url}tail.html?requests=${target}`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 60_000 });
  const dragStart = await page.evaluate(() => performance.now());
  await page.focus("#fanout");
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press(i < 20 ? "ArrowLeft" : "ArrowRight");
    await page.waitForTimeout(50);
  }
  const dragEnd = await page.evaluate(() => performance.now());
  await page.waitForSelector('[data-settled="true"]', { timeout: 300_000 });
  const m = await page.evaluate(
    ([dragStart, dragEnd]) => {
      const first = performance.getEntriesByName("first-live-frame")[0].startTime;
      const now = performance.now();
      const startup = window.__bench.longTasks.filter((t) => t.start < dragStart);
      const during = window.__bench.longTasks.filter((t) => t.start >= dragStart);
      const frames = window.__bench.frames.slice(5).sort((a, b) => a - b);
      const q = (p) => frames[Math.min(frames.length - 1, Math.floor(p * frames.length))];
      return {
        first,
        accumulateMs: now - dragEnd,
        longTasks: during.length,
        startupTasks: startup.map((t) => Math.round(t.ms)).join(", ") || "none",
        longestTask: Math.max(0, ...during.map((t) => t.ms)),
        frameMedian: q(0.5),
        frameP95: q(0.95),
        frameMax: frames.at(-1),
      };
    },
    [dragStart, dragEnd],
  );
  line("navigation to first live frame", fixed(m.first, 0), "ms", "<= 500 ms", m.first <= 500);
  line(
    `${target.toLocaleString("en-US")} parent requests (fan-out 100) in the tab`,
    fixed(m.accumulateMs, 0),
    "ms",
    quick ? "" : "<= 2000 ms",
    m.accumulateMs <= 2000,
  );
  line(
    "long tasks (> 50 ms) while dragging and accumulating",
    m.longTasks,
    "tasks",
    "0",
    m.longTasks === 0,
  );
  line("long tasks before the drag (start-up), ms each", m.startupTasks, "", "", true);
  line("longest long task", fixed(m.longestTask, 0), "ms", "", true);
  line(
    "frame time median / p95",
    `${fixed(m.frameMedian, 1)} / ${fixed(m.frameP95, 1)}`,
    "ms",
    "<= 16.7 / 20",
    m.frameMedian <= 16.7 && m.frameP95 <= 20,
  );
  // Profile and seed changes: each needs a new calibration (2^22 draws), prepared over
  // several tasks while the old run stays on screen.
  const switchStart = await page.evaluate(() => performance.now());
  for (const [control, value] of [
    ["#profile", "gc-pause"],
    ["#profile", "tight"],
    ["#profile", "default"],
  ]) {
    await page.selectOption(control, value);
    await page.waitForFunction(() => document.querySelector("#tail").dataset.preparing !== "true");
  }
  for (const seed of ["2", "3"]) {
    await page.fill("#seed", seed);
    await page.press("#seed", "Tab");
    await page.waitForFunction(() => document.querySelector("#tail").dataset.preparing !== "true");
  }
  const switches = await page.evaluate(
    (from) => window.__bench.longTasks.filter((t) => t.start >= from).map((t) => Math.round(t.ms)),
    switchStart,
  );
  line(
    "long tasks (> 50 ms) over 3 profile and 2 seed changes",
    switches.length,
    "tasks",
    "0",
    switches.length === 0,
  );
  if (switches.length) line("  their lengths", switches.join(", "), "ms", "", true);
  await page.close();

  // 2c. Start-up of many panels on one page (the e2e test checks that they mount one at a
  //     time; how long the tasks are is measured here): long tasks until every panel is up.
  const longTaskInit = () => {
    window.__bench = { longTasks: [] };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        window.__bench.longTasks.push({ start: e.startTime, ms: e.duration });
    }).observe({ type: "longtask", buffered: true });
  };
  const panelKinds = [
    "tail",
    "arena",
    "histograms",
    "strip",
    "fanout",
    "hedge",
    "loaded",
    "balance",
    "code",
  ];
  const panelMixes = quick
    ? { mixed: panelKinds }
    : { histograms: ["histograms"], tails: ["tail"], mixed: panelKinds };
  const panelCount = quick ? 6 : 30;
  for (const [mix, kinds] of Object.entries(panelMixes)) {
    const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await p.addInitScript(longTaskInit);
    await p.addInitScript(
      ([list, n]) =>
        document.addEventListener("DOMContentLoaded", () => {
          for (let i = 0; i < n; i++) {
            const el = document.createElement("tail-lab-panel");
            el.setAttribute("kind", list[i % list.length]);
            document.querySelector("main").append(el);
          }
        }),
      [kinds, panelCount],
    );
    await p.goto(`${server.url}panel.html?kind=strip`);
    await p.waitForFunction(
      (n) => document.querySelectorAll("tail-lab-panel[data-ready=true]").length === n + 1,
      panelCount,
      { timeout: 300_000 },
    );
    const tasks = await p.evaluate(() => {
      const t = window.__bench.longTasks.map((x) => Math.round(x.ms));
      return { count: t.length, longest: Math.max(0, ...t), all: t.join(", ") || "none" };
    });
    line(
      `${panelCount + 1} panels (${mix}): long tasks (> 50 ms) at start-up`,
      tasks.count,
      "tasks",
      "0",
      tasks.count === 0,
    );
    if (tasks.count) line("  their lengths", tasks.all, "ms", "", true);
    await p.close();
  }

  // 2c'. The Lab's timeline (issue 19): each chart's first complete draft (every point at
  //      some sample, at least a tenth of it once the 1/10 tier is in) and its full-size
  //      finish, from navigation, with every section on screen at once (a tall viewport, the
  //      hardest case: everything competes), and at 1280 × 800 for the sections on the first
  //      screen. Then a setting change: the time to the section's next complete draft.
  if (!quick) {
    const sections = ["fanout", "hedge", "queue", "loaded", "balance"];
    const tall = await labTimeline(browser, server.url, { width: 1280, height: 14000 }, sections);
    const worst = (k) => Math.max(...sections.map((n) => tall[n][k]));
    for (const n of sections)
      line(
        `Lab, all on screen: ${n} rough / draft / final`,
        `${Math.round(tall[n].rough)} / ${Math.round(tall[n].draft)} / ${Math.round(tall[n].final)}`,
        "ms",
        "",
        true,
      );
    line(
      "Lab: every chart's first complete draft",
      Math.round(worst("draft")),
      "ms",
      "<= 1000 ms",
      worst("draft") <= 1000,
    );
    line(
      "Lab: every chart at full size",
      Math.round(worst("final")),
      "ms",
      "<= 3000 ms",
      worst("final") <= 3000,
    );
    // The whole Lab as a reader opens it (1280 × 800, not scrolled): the sections on screen
    // first, then every other one, to its last full-size point. Every section with a sweep
    // ("code" has none: it runs the snippet once).
    const every = SECTIONS.filter((n) => n !== "code");
    const whole = await labTimeline(
      browser,
      server.url,
      { width: 1280, height: 800 },
      every,
      600_000,
    );
    const slowest = every.reduce((a, b) => (whole[a].final >= whole[b].final ? a : b));
    line(
      `Lab, not scrolled: all ${every.length} sections at full size (the last: ${slowest})`,
      Math.round(whole[slowest].final),
      "ms",
      "",
      true,
    );
    line(
      "  each section's full size, in page order",
      every.map((n) => `${n} ${Math.round(whole[n].final)}`).join(", "),
      "ms",
      "",
      true,
    );
    for (const [section, control] of [
      ["loaded", "loaded-cancel"],
      ["balance", "balance-lambda"],
      ["queue", "queue-servers"],
    ]) {
      // Four steps for a select of five options (a fifth would come back to the first, whose
      // sweep is cached: no draft to wait for); five for a slider.
      const steps = control === "loaded-cancel" ? 4 : 5;
      const ms = await sliderDraft(browser, server.url, section, control, steps);
      const mid = [...ms].sort((a, b) => a - b)[Math.floor(steps / 2)];
      line(
        `Lab: ${control} changed → complete draft (median of ${steps})`,
        Math.round(mid),
        "ms",
        "<= 150 ms",
        mid <= 150,
      );
    }
  }

  // 2d. The Lab: sliders dragged while a 57-point sweep runs in the workers (the e2e test
  //     checks that the main thread calls no simulation; the long tasks are measured here).
  {
    const p = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await p.addInitScript(longTaskInit);
    await p.goto(server.url);
    await p.waitForSelector("body[data-ready=true]", { timeout: 60_000 });
    await p.$eval("#loaded-cancel", (el) => {
      el.value = "queued";
      el.dispatchEvent(new Event("change", { bubbles: true }));
    });
    const from = await p.evaluate(() => performance.now());
    for (const id of ["balance-lambda", "loaded-load", "fanout-n"]) {
      await p.focus(`#${id}`);
      for (let i = 0; i < 12; i++) {
        await p.keyboard.press("ArrowRight");
        await p.waitForTimeout(25);
      }
    }
    const tasks = await p.evaluate(
      (t0) => window.__bench.longTasks.filter((t) => t.start >= t0).map((t) => Math.round(t.ms)),
      from,
    );
    line(
      "Lab: long tasks (> 50 ms) while sliders move and a sweep runs",
      tasks.length,
      "tasks",
      "0",
      tasks.length === 0,
    );
    if (tasks.length) line("  their lengths", tasks.join(", "), "ms", "", true);
    await p.close();
  }

  // 2b. Scaling: the same run with 0 (main thread), 1, 2 and 4 workers, paused (no arena
  //     sweep), timed from the first live frame to the last merged block.
  const cores = await (await browser.newPage()).evaluate(() => navigator.hardwareConcurrency);
  const rate = {};
  for (const workers of [0, 1, 2, 4]) {
    const p = await browser.newPage({ viewport: { width: 1100, height: 1500 } });
    await p.goto(`${server.url}tail.html?requests=${target}&speed=paused&workers=${workers}`);
    await p.waitForSelector('[data-settled="true"]', { timeout: 300_000 });
    const ms = await p.evaluate(
      () => performance.now() - performance.getEntriesByName("first-live-frame")[0].startTime,
    );
    rate[workers] = target / (ms / 1000);
    const perCore = rate[workers] / Math.max(1, Math.min(workers, cores));
    line(
      `${workers === 0 ? "main thread" : `${workers} worker${workers > 1 ? "s" : ""}`}: requests per second (per core)`,
      `${Math.round(rate[workers]).toLocaleString("en-US")} (${Math.round(perCore).toLocaleString("en-US")})`,
      "req/s",
      "",
      true,
    );
    await p.close();
  }
  const efficiency = rate[2] / (2 * rate[1]);
  line(
    `on the page, drawing: efficiency at 2 workers (${cores} cores)`,
    fixed(efficiency),
    "",
    "",
    true,
  );

  // 3. Size.
  const wasm = readFileSync(join(WEB, "pkg", "tail_lab_bg.wasm"));
  const gz = gzipSync(wasm, { level: 9 }).length;
  line("wasm size raw", (wasm.length / 1024).toFixed(1), "KB", "", true);
  line("wasm size gzipped", (gz / 1024).toFixed(1), "KB", "<= 150 KB", gz <= 150 * 1024);

  // 7. Your own latencies (issue 21): text → model in a worker, for 10^6 latencies (target
  //    300 ms) and 10^7 lines (accepted in under 2 s, or refused with its limit named), and the
  //    cost of a draw from a reader's distribution against the table sampler's, as a fan-out of
  //    100 leaves on each (the same call, the same leaves, the same work but the draw).
  {
    const p = await browser.newPage();
    await p.goto(`${server.url}index.html?workers=1`);
    const figures = await p.evaluate(
      async ([base, sizes]) => {
        const source = `
          import init, * as core from "${base}pkg/tail_lab.js";
          await init();
          const lines = (n) => {
            const parts = new Array(n);
            for (let i = 0; i < n; i++) parts[i] = (2 * Math.exp(Math.sin(i * 12.9898) * 1.1)).toFixed(3);
            return new TextEncoder().encode(parts.join("\\n"));
          };
          const out = {};
          // Cold: the parser's first call in a fresh worker (the engine's baseline tier).
          const first = lines(${sizes[0]});
          let t0 = performance.now();
          core.parseLatencies(first);
          out.cold = performance.now() - t0;
          // As in the section, whose worker has read the bundled example before any paste.
          core.parseLatencies(core.exampleLatencies());
          for (const n of ${JSON.stringify(sizes)}) {
            const bytes = lines(n);
            t0 = performance.now();
            const r = core.parseLatencies(bytes);
            out["parse" + n] = performance.now() - t0;
            out.service = r.service;
          }
          const time = (opts) => {
            core.simulateFanoutLatency({ ...opts, requests: 2000 });
            const t0 = performance.now();
            core.simulateFanoutLatency({ ...opts, requests: 20000 });
            return ((performance.now() - t0) * 1e6) / (20000 * 100);
          };
          out.tableNs = time({ p: 0.01, n: 100 });
          out.empiricalNs = time({ service: out.service, n: 100 });
          delete out.service;
          postMessage(out);`;
        const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
        const w = new Worker(url, { type: "module" });
        return await new Promise((ok, fail) => {
          w.onmessage = (e) => ok(e.data);
          w.onerror = (e) => fail(new Error(e.message));
        });
      },
      [server.url, quick ? [10_000] : [1_000_000, 10_000_000]],
    );
    line(
      `your data: the parser's first call, ${(quick ? 10_000 : 1_000_000).toLocaleString("en-US")} latencies, cold worker`,
      fixed(figures.cold, 0),
      "ms",
      "",
      true,
    );
    for (const n of quick ? [10_000] : [1_000_000, 10_000_000]) {
      const target = n === 1_000_000 ? 300 : n === 10_000_000 ? 2000 : 0;
      const ms = figures[`parse${n}`];
      line(
        `your data: ${n.toLocaleString("en-US")} latencies → model (worker)`,
        fixed(ms, 0),
        "ms",
        target ? `< ${target} ms` : "",
        !target || ms < target,
      );
    }
    line(
      "your data: a fan-out leaf from the Lab's table",
      fixed(figures.tableNs),
      "ns/leaf",
      "",
      true,
    );
    line(
      "your data: a fan-out leaf from your distribution",
      fixed(figures.empiricalNs),
      "ns/leaf",
      "<= the table's",
      figures.empiricalNs <= figures.tableNs * 1.05,
    );
    await p.close();
  }
} finally {
  await browser.close();
  await server.close();
}
