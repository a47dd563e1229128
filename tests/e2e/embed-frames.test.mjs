// panel.html in an iframe, sized by the listener README.md documents, in real Chromium. The
// listener is taken from README.md itself (the ```js block that names "tail-lab:height"), so the
// code a host copies is the code tested: messages from a frame of another origin, from the host
// page itself, and heights out of bounds from the panel's own frame leave the frame's height as
// it is; the panel's own heights (whole numbers of px) still size it.
//
// TAIL_LAB_WEB=dir serves another copy of the site (e.g. an older one, to see these tests fail).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ROOT, SITE, launchChromium, serveWeb } from "../support.mjs";

/** The README's height listener: the one ```js block that names "tail-lab:height", unindented. */
function documentedListener() {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^( *)```js\n([\s\S]*?)^\1```$/gm)]
    .filter((m) => m[2].includes('"tail-lab:height"'))
    .map(([, indent, body]) =>
      body
        .split("\n")
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
        .join("\n"),
    );
  assert.equal(blocks.length, 1, "README.md has one ```js block with the height listener");
  return blocks[0];
}

const listener = documentedListener();
let browser, lab, foreign;

before(async () => {
  browser = await launchChromium();
  // The foreign frame's origin (http://localhost:PORT) is not the host's (http://127.0.0.1:PORT).
  foreign = await serveWeb(SITE, {
    host: "localhost",
    files: {
      "/foreign.html": ["text/html; charset=utf-8", "<!doctype html><title>foreign</title>"],
    },
  });
  // The host page: a panel frame sized by the documented listener (`frame` is its <iframe>), a
  // foreign frame, and the test's own listener, which counts the "test:done" markers each batch
  // of messages ends with and keeps the heights the panel itself sent (the test's own messages
  // are marked `test: true`, which the documented listener does not look at).
  const host = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>frame host</title>
<link rel="icon" href="data:,"></head><body style="margin:0">
<iframe id="panel" title="panel" src="panel.html?kind=fanout" style="display:block;width:360px;height:150px;border:0"></iframe>
<iframe id="foreign" title="foreign" src="${foreign.url}foreign.html" style="width:60px;height:40px;border:0"></iframe>
<script>
window.done = 0;
window.fromPanel = [];
addEventListener("message", (e) => {
  if (e.data?.type === "test:done") window.done++;
  if (e.data?.type === "tail-lab:height" && !e.data.test && e.source === document.getElementById("panel").contentWindow)
    window.fromPanel.push(e.data.height);
});
</script>
<script>
const frame = document.getElementById("panel");
${listener}
</script></body></html>`;
  lab = await serveWeb(SITE, { files: { "/frame-host.html": ["text/html; charset=utf-8", host] } });
  assert.notEqual(new URL(foreign.url).origin, new URL(lab.url).origin);
});
after(async () => {
  await browser?.close();
  await lab?.close();
  await foreign?.close();
});

test("panel.html's comment shows the README's listener", () => {
  const panel = readFileSync(join(SITE, "panel.html"), "utf8");
  for (const line of listener.split("\n").filter((l) => l.trim() && !l.trim().startsWith("//")))
    assert.ok(panel.includes(line.trim()), `panel.html's comment lacks: ${line.trim()}`);
});

test("the documented listener sizes the frame from the panel's heights only: not from another frame, the host itself, or a height out of bounds", async () => {
  const page = await browser.newPage({ viewport: { width: 800, height: 700 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(new URL("frame-host.html", lab.url).href);
  const panel = page.frames().find((f) => f.url().includes("panel.html"));
  const other = page.frames().find((f) => f.url().includes("foreign.html"));
  assert.ok(panel && other);
  await panel.waitForSelector("tail-lab-panel[data-ready=true]", { timeout: 60_000 });
  await panel.waitForFunction(
    () =>
      document
        .querySelector("tail-lab-panel")
        .shadowRoot.querySelector('[data-readout="slow-share"]')
        ?.textContent.endsWith("%"),
    null,
    { timeout: 60_000 },
  );

  /** The panel's own height, and the frame's as the host set it. */
  const sizes = async () => ({
    inner: await panel.evaluate(() =>
      Math.ceil(document.documentElement.getBoundingClientRect().height),
    ),
    frame: await page.$eval("#panel", (f) => f.getBoundingClientRect().height),
  });
  /** The sizes once the frame has followed the panel for three looks in a row. */
  const settled = async () => {
    let seen = await sizes();
    for (let agreed = 0, i = 0; agreed < 3 && i < 100; i++) {
      await page.waitForTimeout(200);
      const now = await sizes();
      agreed = now.inner === now.frame && now.inner === seen.inner ? agreed + 1 : 0;
      seen = now;
    }
    assert.equal(seen.frame, seen.inner, JSON.stringify(seen));
    return seen.frame;
  };
  const height = await settled();
  assert.ok(height > 400, `the panel is ${height} px tall`);

  /** Posts each of `values` as a height from `from` (a frame), then waits until the host has
   * handled them all (a marker after them, from the same window, has arrived). */
  const post = async (from, values) => {
    const done = await page.evaluate(() => window.done);
    await from.evaluate((list) => {
      for (const height of list)
        parent.postMessage({ type: "tail-lab:height", height, test: true }, "*");
      parent.postMessage({ type: "test:done" }, "*");
    }, values);
    await page.waitForFunction((n) => window.done > n, done);
  };
  const frameHeight = () => page.$eval("#panel", (f) => f.getBoundingClientRect().height);

  // Another origin's frame: neither nonsense nor a plausible height moves the panel's frame.
  for (const value of [0, Number.NaN, 1e9, Number.POSITIVE_INFINITY, -1, 300, "500", null]) {
    await post(other, [value]);
    assert.equal(await frameHeight(), height, `a foreign frame's height ${String(value)}`);
  }
  // The host page's own window is not the panel either.
  await post(page.mainFrame(), [0, 300]);
  assert.equal(await frameHeight(), height, "the host's own message");
  // The panel's own window, with heights no panel sends: refused by the bound (0 < h ≤ 20,000).
  for (const value of [0, Number.NaN, 1e9, Number.POSITIVE_INFINITY, -5, 20_001, "500"]) {
    await post(panel, [value]);
    assert.equal(await frameHeight(), height, `the panel frame's height ${String(value)}`);
  }

  // The real panel still sizes its frame: it grows by 120 px, and the frame follows.
  await panel.evaluate(() => {
    const block = document.createElement("div");
    block.style.height = "120px";
    document.body.append(block);
  });
  await page.waitForFunction((h) => {
    const f = document.getElementById("panel");
    return f.getBoundingClientRect().height >= h + 120;
  }, height);
  const grown = await settled();
  assert.ok(grown >= height + 120, `${grown} after ${height}`);

  // What the panel sent: whole numbers of px within the bound, among them the two it settled at.
  const sent = await page.evaluate(() => window.fromPanel);
  for (const h of sent)
    assert.ok(Number.isInteger(h) && h >= 1 && h <= 20_000, JSON.stringify(sent));
  assert.ok(sent.includes(height) && sent.includes(grown), JSON.stringify(sent));
  assert.deepEqual(errors, []);
  await page.close();
});
