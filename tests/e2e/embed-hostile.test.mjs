// <tail-lab-panel> on host pages that do not make it easy, in real Chromium: a 320 px column on a
// 1280 px desktop with hostile CSS (`html { font-size: 40px }`, `* { font-size: 30px !important }`,
// a dark background while the system is light), a host page on another origin (with and without
// CORS headers, and with the lab's files missing), and panel.html in an iframe (its title, its
// heading and the height it tells its host). Also the Lab's "copy link" (it names the section)
// and the downloaded SVG's <title> and <desc>, and host pages that sabotage a built-in the
// panels use (a `fetch` that never settles, no MutationObserver).
//
// TAIL_LAB_WEB=dir serves another copy of the site (e.g. an older one, to see these tests fail).

import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { formatPct } from "../../web/format.js";
import { LOAD_TIMEOUT_MS } from "../../web/wasm.js";
import { SITE, downloadBytes, launchChromium, loadPackage, serveWeb } from "../support.mjs";

const pkg = await loadPackage();
/** The same-origin lab (127.0.0.1), the lab with CORS headers, and the lab without. */
let lab, corsLab, browser;

/** The hostile page's style: a root font of 40 px, every element 30 px, light text on near-black. */
const HOSTILE_CSS = `
html { font-size: 40px; }
* { font-size: 30px !important; color: #e0e0e0; line-height: 2 !important; letter-spacing: .1em; text-align: center; }
body { background: #111; margin: 0; }
.col { width: 320px; margin: 0 0 0 480px; }
tail-lab-panel { margin: 16px 0; }`;

/** A host page: `panels` (attribute maps) in a 320 px column, embed.js from `labUrl` as `script`. */
function hostPage(labUrl, panels, { script = "classic", css = HOSTILE_CSS } = {}) {
  const tag =
    script === "module"
      ? `<script type="module" src="${labUrl}embed.js"></script>`
      : `<script src="${labUrl}embed.js" defer></script>`;
  const elements = panels
    .map(
      (attrs) =>
        `<tail-lab-panel ${Object.entries(attrs)
          .map(([k, v]) => `${k}="${v}"`)
          .join(" ")}></tail-lab-panel>`,
    )
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A host</title><link rel="icon" href="data:,">
<style>${css}</style>${tag}</head><body><main class="col"><h1>A post</h1>
${elements}
</main></body></html>`;
}

before(async () => {
  browser = await launchChromium();
  lab = await serveWeb(SITE);
  corsLab = await serveWeb(SITE, { cors: true });
});
after(async () => {
  await browser?.close();
  await lab?.close();
  await corsLab?.close();
});

/** A page (1280 × 900 unless told) that records page errors. */
async function newPage({ viewport = { width: 1280, height: 900 }, colorScheme = "light" } = {}) {
  const page = await browser.newPage({ viewport, colorScheme });
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  return page;
}

const allReady = (page, timeout = 120_000) =>
  page.waitForFunction(
    () => [...document.querySelectorAll("tail-lab-panel")].every((p) => p.dataset.ready === "true"),
    null,
    { timeout },
  );

/** Waits until the `index`th panel's readout `name` matches `want` (a RegExp source). */
const readoutShows = (page, index, name, want) =>
  page.waitForFunction(
    ([i, n, w]) =>
      new RegExp(w).test(
        document
          .querySelectorAll("tail-lab-panel")
          [i].shadowRoot?.querySelector(`[data-readout="${n}"]`)?.textContent ?? "",
      ),
    [index, name, want],
    { timeout: 120_000 },
  );

/** Regex source matching `text` exactly. */
const exactly = (text) => `^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`;

test("in a 320 px column of a hostile page, every readout and control is inside the panel, sized from the panel, readable on its own surface", async () => {
  const page = await newPage();
  const html = hostPage(
    lab.url,
    [
      { kind: "tail", theme: "dark", requests: "2000" },
      { kind: "histograms", theme: "dark", requests: "2000" },
      { kind: "fanout", theme: "dark" },
      { kind: "hedge", theme: "light" },
      { kind: "strip" },
    ],
    { script: "module" },
  );
  await page.route("**/host.html", (route) =>
    route.fulfill({ contentType: "text/html", body: html }),
  );
  await page.goto(new URL("host.html", lab.url).href);
  await allReady(page);
  await readoutShows(page, 2, "slow-share", "%$");

  const layout = await page.evaluate(() => {
    const box = (e) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width };
    };
    const column = box(document.querySelector(".col"));
    return [...document.querySelectorAll("tail-lab-panel")].map((p) => {
      const root = p.shadowRoot;
      const embed = root.querySelector(".embed");
      const items = [
        ...root.querySelectorAll(
          ".readouts > div, .lab-readout, .controls label, .controls input, .controls select, .lab-control, .lab-control input, .lab-control select, canvas, .export-bar button",
        ),
      ].map((e) => ({
        what: `${e.localName}.${e.className || ""}${e.dataset?.readout ? `[${e.dataset.readout}]` : ""}`,
        ...box(e),
      }));
      const style = (q) => {
        const e = root.querySelector(q);
        return e ? getComputedStyle(e) : null;
      };
      return {
        kind: p.getAttribute("kind"),
        column,
        embed: box(embed),
        overflow: embed.scrollWidth - embed.clientWidth,
        items,
        readouts: root.querySelectorAll(".readouts > div, .lab-readout").length,
        // Readouts whose text runs past their box.
        spilled: [...root.querySelectorAll(".readouts > div, .lab-readout")]
          .filter((e) => e.scrollWidth > e.clientWidth)
          .map((e) => e.textContent),
        embedFont: getComputedStyle(embed).fontSize,
        tailValueFont: style(".readouts [data-readout]")?.fontSize ?? null,
        labValueFont: style(".lab-readout .v")?.fontSize ?? null,
        sliderWidth: root.querySelector("input[type=range]")?.getBoundingClientRect().width ?? null,
        columns: style(".readouts")?.gridTemplateColumns.split(" ").length ?? null,
      };
    });
  });
  for (const panel of layout) {
    assert.ok(
      panel.embed.width > 0 && panel.embed.width <= 320.5,
      `${panel.kind}: ${panel.embed.width}`,
    );
    assert.ok(
      panel.overflow <= 0,
      `${panel.kind}: its root scrolls sideways by ${panel.overflow} px`,
    );
    assert.equal(panel.embedFont, "15px", `${panel.kind}: the panel's font is its own`);
    assert.deepEqual(panel.spilled, [], `${panel.kind}: readouts whose text spills`);
    // (Controls a section hides, such as another policy's own settings, take no room.)
    for (const item of panel.items.filter((i) => i.width > 0)) {
      assert.ok(
        item.left >= panel.embed.left - 0.5 && item.right <= panel.embed.right + 0.5,
        `${panel.kind}: ${item.what} runs out of the panel (${item.left}–${item.right} in ${panel.embed.left}–${panel.embed.right})`,
      );
      assert.ok(
        item.right <= panel.column.right + 0.5,
        `${panel.kind}: ${item.what} leaves the column`,
      );
    }
  }
  const [tail, histograms, fanout] = layout;
  // Every readout of the two Tail panels with readouts is there and inside (checked above).
  assert.ok(tail.readouts >= 6, `${tail.readouts}`);
  assert.ok(histograms.readouts >= 6, `${histograms.readouts}`);
  assert.equal(histograms.columns, 2, "two columns in a 320 px panel");
  assert.ok(fanout.readouts >= 2);
  // Sizes come from the panel's 15 px, not from the host's 40 px root or 30 px everything.
  assert.equal(tail.tailValueFont, "17px");
  assert.equal(fanout.labValueFont, "19.2px");
  assert.ok(
    tail.sliderWidth <= 224 && fanout.sliderWidth <= 208,
    `${tail.sliderWidth}, ${fanout.sliderWidth}`,
  );

  // Colours: the dark panels on a light system, the light one too: text at 4.5:1 or more on the
  // panel's own opaque surface (what is under a text is found by walking up, through the host).
  const contrast = await page.evaluate(() => {
    const rgb = (c) => {
      const m = c.match(/[\d.]+/g).map(Number);
      return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 };
    };
    const lum = ({ r, g, b }) => {
      const f = (v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    /** The first opaque background under `e`, and which element has it. */
    const under = (e) => {
      for (let n = e; n; n = n.parentElement ?? n.getRootNode().host) {
        const c = rgb(getComputedStyle(n).backgroundColor);
        if (c.a >= 1) return { c, by: n.localName + (n.className ? `.${n.className}` : "") };
      }
      return { c: { r: 255, g: 255, b: 255, a: 1 }, by: "canvas" };
    };
    const out = [];
    for (const p of document.querySelectorAll("tail-lab-panel")) {
      const root = p.shadowRoot;
      for (const q of [
        ".readouts .k",
        ".readouts [data-readout]",
        ".controls label",
        ".lab-control label",
        ".lab-control output",
        ".lab-readout .k",
        ".lab-readout .v",
        ".embed-credit",
        ".export-bar button",
      ]) {
        const e = root.querySelector(q);
        if (!e) continue;
        const fg = rgb(getComputedStyle(e).color);
        const bg = under(e);
        const [a, b] = [lum(fg), lum(bg.c)].sort((x, y) => y - x);
        out.push({
          kind: p.getAttribute("kind"),
          q,
          ratio: (a + 0.05) / (b + 0.05),
          by: bg.by,
        });
      }
    }
    return out;
  });
  assert.ok(contrast.length >= 20, `${contrast.length} texts checked`);
  for (const c of contrast) {
    assert.ok(c.ratio >= 4.5, `${c.kind} ${c.q}: contrast ${c.ratio.toFixed(2)} on ${c.by}`);
    assert.doesNotMatch(c.by, /^(body|main|html)/, `${c.kind} ${c.q}: on the host's background`);
  }

  // The theme reaches the canvases: their palette (read from the canvas) and the drawn background.
  const themes = await page.evaluate(async (base) => {
    const { palette } = await import(new URL("theme.js", base).href);
    return [...document.querySelectorAll("tail-lab-panel")].map((p) => {
      const canvas = p.shadowRoot.querySelector("canvas");
      return { kind: p.getAttribute("kind"), ink: palette(canvas).ink, bg: palette(canvas).bg };
    });
  }, lab.url);
  assert.deepEqual(
    themes.map((t) => [t.kind, t.ink, t.bg]),
    [
      ["tail", "#e6e9ec", "#1b2026"],
      ["histograms", "#e6e9ec", "#1b2026"],
      ["fanout", "#e6e9ec", "#1b2026"],
      ["hedge", "#1d232a", "#ffffff"],
      ["strip", "#1d232a", "#ffffff"], // auto, on a light system
    ],
  );
  // (A panel out of view waits to redraw: each is brought into view first.)
  const drawn = async (i, want) => {
    await page.$$eval("tail-lab-panel", (p, k) => p[k].scrollIntoView(), i);
    await page.waitForFunction(
      ([k, w]) => {
        const canvas = document
          .querySelectorAll("tail-lab-panel")
          [k].shadowRoot.querySelector("canvas");
        return (
          [...canvas.getContext("2d").getImageData(2, 2, 1, 1).data.slice(0, 3)].join(",") === w
        );
      },
      [i, want],
      { timeout: 30_000 },
    );
  };
  await drawn(1, "27,32,38");
  await drawn(4, "255,255,255");
  // Changed after mount: the panel's colours and its charts follow; a bad value is "auto", with a notice.
  await page.evaluate(() =>
    document.querySelectorAll("tail-lab-panel")[1].setAttribute("theme", "light"),
  );
  await drawn(1, "255,255,255");
  await page.evaluate(() =>
    document.querySelectorAll("tail-lab-panel")[4].setAttribute("theme", "purple"),
  );
  await page.waitForFunction(() =>
    /theme: “purple” is not one of auto, light, dark; using auto/.test(
      document.querySelectorAll("tail-lab-panel")[4].shadowRoot.querySelector(".embed-notice")
        .textContent,
    ),
  );
  // auto follows the system: dark now.
  await page.emulateMedia({ colorScheme: "dark" });
  await drawn(4, "27,32,38");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a host page on another origin: with CORS, Lab and Tail panels compute (in workers); without, a readable message in a visible box", {
  timeout: 5 * 60_000,
}, async () => {
  const fan = pkg.simulateFanout({ p: 0.01, n: 100, requests: 100_000, seed: 1 });
  for (const script of ["classic", "module"]) {
    // The host is http://localhost:PORT, the lab http://127.0.0.1:PORT: two origins.
    const host = await serveWeb(SITE, {
      host: "localhost",
      files: {
        "/host.html": [
          "text/html; charset=utf-8",
          hostPage(corsLab.url, [{ kind: "fanout" }, { kind: "tail", requests: "20000" }], {
            script,
          }),
        ],
      },
    });
    assert.notEqual(new URL(host.url).origin, new URL(corsLab.url).origin);
    const page = await newPage();
    const warnings = [];
    page.on("console", (m) => {
      if (m.type() === "warning" || m.type() === "error") warnings.push(m.text());
    });
    await page.goto(new URL("host.html", host.url).href);
    await allReady(page);
    await readoutShows(page, 0, "slow-share", exactly(formatPct(fan.sim)));
    // (A panel out of view pauses: this one is brought into view.)
    await page.$$eval("tail-lab-panel", (p) => p[1].scrollIntoView());
    await readoutShows(page, 1, "requests", "^20,000$");
    // The Lab computes only in workers, so its number says they started; the Tail piece's ran
    // in its workers too (it would say "accumulating on the main thread" otherwise).
    const status = await page.evaluate(async (base) => {
      const { runningWorkers } = await import(new URL("workers.js", base).href);
      return runningWorkers();
    }, corsLab.url);
    assert.ok(status["lab/worker.js"] > 0 && status["tail/worker.js"] > 0, JSON.stringify(status));
    assert.deepEqual(
      warnings.filter((w) => /worker|CORS|Failed/i.test(w)),
      [],
      script,
    );
    assert.doesNotMatch(
      await page.$eval("tail-lab-panel", (p) => p.shadowRoot.textContent),
      /could not|cannot|stopped/,
    );
    assert.deepEqual(page.errors, [], script);
    await page.close();
    await host.close();
  }

  // No CORS headers: the bootstrap still runs (a classic script needs none) and says why.
  // Files missing (only embed.js is served): the same message. Both in a box taller than 0.
  const only = mkdtempSync(join(tmpdir(), "tail-lab-only-"));
  copyFileSync(join(SITE, "embed.js"), join(only, "embed.js"));
  const bare = await serveWeb(only, { cors: true });
  try {
    for (const [name, labUrl] of [
      ["no CORS headers", lab.url],
      ["missing files", bare.url],
    ]) {
      const host = await serveWeb(SITE, {
        host: "localhost",
        files: {
          "/host.html": [
            "text/html; charset=utf-8",
            hostPage(labUrl, [{ kind: "fanout" }, { kind: "histograms", theme: "dark" }]),
          ],
        },
      });
      const page = await newPage();
      await page.goto(new URL("host.html", host.url).href);
      await page.waitForFunction(
        () => document.querySelectorAll("tail-lab-panel[data-failed=true]").length === 2,
        null,
        { timeout: 30_000 },
      );
      const shown = await page.$$eval("tail-lab-panel", (panels) =>
        panels.map((p) => {
          const box = p.shadowRoot.querySelector("[role=alert]");
          return {
            height: p.getBoundingClientRect().height,
            text: box?.textContent ?? "",
            font: box ? getComputedStyle(box).fontSize : null,
            link: box?.querySelector("a")?.href ?? null,
          };
        }),
      );
      for (const s of shown) {
        assert.ok(s.height > 40, `${name}: the panel is ${s.height} px tall`);
        assert.match(s.text, /^Tail Latency Lab could not load its files \(/, name);
        assert.match(s.text, /Access-Control-Allow-Origin/, name);
        assert.equal(s.font, "15px", name);
        assert.equal(s.link, labUrl, name);
      }
      await page.close();
      await host.close();
    }
  } finally {
    await bare.close();
    rmSync(only, { recursive: true });
  }
});

test("panel.html has the kind's human title and heading, never the URL's text, and tells its host its height", async () => {
  const page = await newPage();
  const titles = {
    hedge: "Hedged requests on idle replicas",
    arena: "One request",
    tail: "Tail: one request, live",
  };
  for (const [kind, title] of Object.entries(titles)) {
    await page.goto(new URL(`panel.html?kind=${kind}`, lab.url).href);
    await page.waitForFunction((t) => document.title === `${t} · Tail Latency Lab`, title);
    assert.equal(await page.textContent("h1"), title);
    // The panel labels its surface when it mounts, which may come after the page's title.
    const label = `Tail Latency Lab: ${title}`;
    await page
      .waitForFunction(
        (l) =>
          document
            .querySelector("tail-lab-panel")
            ?.shadowRoot?.querySelector(".embed")
            ?.getAttribute("aria-label") === l,
        label,
        { timeout: 30_000 },
      )
      .catch(() => {});
    assert.equal(
      await page.$eval("tail-lab-panel", (p) =>
        p.shadowRoot.querySelector(".embed").getAttribute("aria-label"),
      ),
      label,
    );
  }
  await page.goto(new URL(`panel.html?kind=${encodeURIComponent("<b>x</b>")}`, lab.url).href);
  await page.waitForFunction(() =>
    /could not start/.test(document.querySelector("tail-lab-panel").shadowRoot?.textContent ?? ""),
  );
  assert.equal(await page.textContent("h1"), "Tail Latency Lab");
  assert.equal(await page.title(), "Tail Latency Lab · panel");

  // In an iframe: the host hears `{ type: "tail-lab:height", height }` and sizes the frame.
  await page.route("**/frame-host.html", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!doctype html><title>frame host</title><body style="margin:0">
<iframe id="f" src="panel.html?kind=fanout" style="width:360px;height:150px;border:0"></iframe>
<script>
window.heights = [];
addEventListener("message", (e) => {
  if (e.data?.type === "tail-lab:height") {
    window.heights.push(e.data.height);
    document.getElementById("f").style.height = e.data.height + "px";
  }
});
</script>`,
    }),
  );
  await page.goto(new URL("frame-host.html", lab.url).href);
  const frame = page.frames().find((f) => f.url().includes("panel.html"));
  await frame.waitForSelector("tail-lab-panel[data-ready=true]", { timeout: 60_000 });
  await frame.waitForFunction(
    () =>
      document
        .querySelector("tail-lab-panel")
        .shadowRoot.querySelector('[data-readout="slow-share"]')
        ?.textContent.endsWith("%"),
    null,
    { timeout: 60_000 },
  );
  // The panel may still grow (a readout's second line): the last height heard, the frame's
  // height and the page's own height agree once it stops.
  const sizes = async () => ({
    inner: await frame.evaluate(() =>
      Math.ceil(document.documentElement.getBoundingClientRect().height),
    ),
    heard: await page.evaluate(() => window.heights.at(-1) ?? null),
    frame: await page.$eval("#f", (f) => f.getBoundingClientRect().height),
  });
  let seen = await sizes();
  for (let i = 0; i < 50 && !(seen.heard === seen.inner && seen.frame === seen.inner); i++) {
    await page.waitForTimeout(200);
    seen = await sizes();
  }
  assert.equal(seen.heard, seen.inner, JSON.stringify(seen));
  assert.equal(seen.frame, seen.inner, JSON.stringify(seen));
  assert.ok(seen.inner > 400, `the panel is ${seen.inner} px tall`);
  // The frame shows all of it: nothing left to scroll inside.
  assert.equal(await frame.evaluate(() => document.documentElement.scrollHeight - innerHeight), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a Lab section's copy link ends with #its id and opens there; the SVG download has the chart's title and text alternative", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript(() => {
    Object.defineProperty(navigator, "clipboard", {
      value: {
        writeText: async (text) => {
          window.__copied = text;
        },
      },
    });
  });
  await page.goto(new URL("index.html?fanout-n=20", lab.url).href);
  await page.waitForFunction(() => document.body.dataset.ready === "true", null, {
    timeout: 60_000,
  });
  await page.click("section#hedge [data-export=copy-link]");
  await page.waitForFunction(() => window.__copied);
  const copied = new URL(await page.evaluate(() => window.__copied));
  assert.equal(copied.hash, "#hedge");
  assert.equal(copied.searchParams.get("fanout-n"), "20");
  assert.equal(
    await page.$$eval("#hedge", (e) => e.map((s) => s.dataset.section)).then((s) => s.join()),
    "hedge",
  );

  // Opened, the link shows that section.
  const again = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await again.goto(copied.href);
  await again.waitForFunction(() => document.body.dataset.ready === "true", null, {
    timeout: 60_000,
  });
  await again.waitForFunction(() => {
    const top = document.getElementById("hedge").getBoundingClientRect().top;
    return top >= -1 && top < innerHeight / 2;
  });
  await again.close();

  // The SVG: <title> is the chart's title, <desc> its canvas's aria-label (as the page has it).
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.click("section#fanout [data-export=svg]"),
  ]);
  const svg = (await downloadBytes(download)).toString("utf8");
  const label = await page.$eval("section#fanout canvas", (c) => c.getAttribute("aria-label"));
  const title = await page.$eval("section#fanout [data-export=svg]", (b) =>
    b.getAttribute("aria-label").replace(/: download the chart as SVG$/, ""),
  );
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    return {
      error: doc.querySelector("parsererror")?.textContent ?? null,
      first: [...doc.documentElement.children].slice(0, 2).map((e) => e.localName),
      title: doc.querySelector("svg > title")?.textContent,
      desc: doc.querySelector("svg > desc")?.textContent,
    };
  }, svg);
  assert.equal(parsed.error, null);
  assert.deepEqual(parsed.first, ["title", "desc"]);
  assert.ok(title.length > 5 && label.length > 20, `${title} / ${label}`);
  assert.equal(parsed.title, title);
  assert.equal(parsed.desc, label);
  await page.close();
});

/** A page on the same-origin lab whose host.html is `html`, with `sabotage` run before any of
 * its scripts; it counts unhandled rejections (`__rejections`) as well as page errors. */
async function sabotaged(html, sabotage) {
  const page = await newPage();
  await page.addInitScript(() => {
    window.__rejections = 0;
    addEventListener("unhandledrejection", () => {
      window.__rejections++;
    });
  });
  await page.addInitScript(sabotage);
  await page.route("**/host.html", (route) =>
    route.fulfill({ contentType: "text/html", body: html }),
  );
  await page.goto(new URL("host.html", lab.url).href);
  return page;
}

const PLAIN_CSS = "tail-lab-panel { display: block; margin: 16px 0; }";

/** Waits, within the load bound and a margin, until every panel shows its alert box. */
const everyPanelAlerts = (page) =>
  page.waitForFunction(
    () =>
      [...document.querySelectorAll("tail-lab-panel")].every((p) =>
        p.shadowRoot?.querySelector("[role=alert]"),
      ),
    null,
    { timeout: LOAD_TIMEOUT_MS + 60_000 },
  );

test("a host page whose fetch never settles: every panel says within the load bound that the lab's files did not answer, with nothing uncaught", {
  timeout: LOAD_TIMEOUT_MS + 90_000,
}, async () => {
  const page = await sabotaged(
    hostPage(lab.url, [{ kind: "fanout" }, { kind: "histograms" }, { kind: "hedge" }], {
      css: PLAIN_CSS,
    }),
    () => {
      window.fetch = () => new Promise(() => {});
    },
  );
  await everyPanelAlerts(page);
  const shown = await page.$$eval("tail-lab-panel", (panels) =>
    panels.map((p) => ({
      text: p.shadowRoot.querySelector("[role=alert]").textContent,
      height: p.getBoundingClientRect().height,
      ready: p.dataset.ready ?? null,
    })),
  );
  const wasm = new URL("pkg/tail_lab_bg.wasm", lab.url).href;
  const message = `Tail Latency Lab could not start: could not load ${wasm}: no answer in ${LOAD_TIMEOUT_MS / 1000} s`;
  for (const s of shown) {
    assert.match(s.text, new RegExp(exactly(message)));
    assert.ok(s.height > 20, `the panel is ${s.height} px tall`);
    assert.equal(s.ready, null);
  }
  assert.deepEqual(page.errors, []);
  assert.equal(await page.evaluate(() => window.__rejections), 0);
  await page.close();
});

test("a host page whose fetch answers and then stalls mid-body: every panel says so within the load bound, with nothing uncaught", {
  timeout: LOAD_TIMEOUT_MS + 90_000,
}, async () => {
  const page = await sabotaged(
    hostPage(lab.url, [{ kind: "fanout" }, { kind: "histograms" }], { css: PLAIN_CSS }),
    () => {
      // Headers and the wasm's first four bytes, then nothing ever again.
      const real = window.fetch;
      window.fetch = (url, init) =>
        String(url).endsWith(".wasm")
          ? Promise.resolve(
              new Response(
                new ReadableStream({
                  start(c) {
                    c.enqueue(new Uint8Array([0, 97, 115, 109]));
                  },
                }),
                { headers: { "Content-Type": "application/wasm" } },
              ),
            )
          : real(url, init);
    },
  );
  await everyPanelAlerts(page);
  const texts = await page.$$eval("tail-lab-panel", (panels) =>
    panels.map((p) => p.shadowRoot.querySelector("[role=alert]").textContent),
  );
  const wasm = new URL("pkg/tail_lab_bg.wasm", lab.url).href;
  const message = `Tail Latency Lab could not start: could not load ${wasm}: no data in ${LOAD_TIMEOUT_MS / 1000} s`;
  for (const text of texts) assert.match(text, new RegExp(exactly(message)));
  assert.deepEqual(page.errors, []);
  assert.equal(await page.evaluate(() => window.__rejections), 0);
  await page.close();
});

test("a host page without MutationObserver: Lab and Tail panels mount and compute from their attributes (read when they mount), with nothing uncaught", async () => {
  const page = await sabotaged(
    hostPage(
      lab.url,
      [
        { kind: "fanout", "fanout-n": "20" },
        { kind: "histograms", requests: "2000" },
        { kind: "hedge" },
      ],
      { css: PLAIN_CSS },
    ),
    () => {
      delete window.MutationObserver;
    },
  );
  assert.equal(await page.evaluate(() => typeof MutationObserver), "undefined");
  // (Playwright's waitForFunction and $$eval need the page's MutationObserver: this test polls.)
  const until = async (fn, arg) => {
    for (const end = Date.now() + 120_000; !(await page.evaluate(fn, arg)); ) {
      assert.ok(Date.now() < end, `still waiting for ${fn}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  };
  const readout = ([i, name, want]) =>
    new RegExp(want).test(
      document
        .querySelectorAll("tail-lab-panel")
        [i].shadowRoot?.querySelector(`[data-readout="${name}"]`)?.textContent ?? "",
    );
  await until(() =>
    [...document.querySelectorAll("tail-lab-panel")].every((p) => p.dataset.ready === "true"),
  );
  const n20 = pkg.simulateFanout({ p: 0.01, n: 20, requests: 100_000, seed: 1 });
  await until(readout, [0, "slow-share", exactly(formatPct(n20.sim))]);
  // (A panel out of view pauses: this one is brought into view.)
  await page.evaluate(() => document.querySelectorAll("tail-lab-panel")[1].scrollIntoView());
  await until(readout, [1, "requests", "^2,000$"]);
  // A changed attribute is not seen now, and breaks nothing; added again, the panel reads it.
  await page.evaluate(() =>
    document.querySelector("tail-lab-panel").setAttribute("fanout-n", "10"),
  );
  // (Removed, then added in a later task: a move within one task keeps the panel as it is.)
  await page.evaluate(() => {
    window.__moved = document.querySelector("tail-lab-panel");
    window.__moved.remove();
  });
  await page.evaluate(() => {
    document.querySelector("main").prepend(window.__moved);
    window.__moved.scrollIntoView();
  });
  const n10 = pkg.simulateFanout({ p: 0.01, n: 10, requests: 100_000, seed: 1 });
  await until(readout, [0, "slow-share", exactly(formatPct(n10.sim))]);
  assert.doesNotMatch(
    await page.evaluate(() =>
      [...document.querySelectorAll("tail-lab-panel")]
        .map((p) => p.shadowRoot.textContent)
        .join(" "),
    ),
    /could not|cannot/,
  );
  assert.deepEqual(page.errors, []);
  assert.equal(await page.evaluate(() => window.__rejections), 0);
  await page.close();
});

test("a host page without a built-in the panel needs as it starts (AbortController): each panel says so, with nothing uncaught", async () => {
  const page = await sabotaged(
    hostPage(lab.url, [{ kind: "fanout" }, { kind: "histograms" }], { css: PLAIN_CSS }),
    () => {
      delete window.AbortController;
    },
  );
  await page.waitForFunction(
    () => document.querySelectorAll("tail-lab-panel[data-failed=true]").length === 2,
  );
  for (const text of await page.$$eval("tail-lab-panel", (panels) =>
    panels.map((p) => p.shadowRoot.querySelector("[role=alert]")?.textContent ?? ""),
  ))
    assert.match(text, /^Tail Latency Lab could not start: AbortController is not defined /);
  assert.deepEqual(page.errors, []);
  assert.equal(await page.evaluate(() => window.__rejections), 0);
  await page.close();
});
