// The paste and file path of both pages against inputs that once broke it, in real Chromium
// (issue 32, items 2, 3, 4, 11 and 13):
// - a CSV 150,000 columns wide is read, and its column picker lists a bounded number of
//   columns, with a number field for any of them (it once overflowed the stack and stayed on
//   "Reading…");
// - a header cell of millions of characters, and a long file name, are quoted at most 40
//   characters (whole characters: no emoji cut in half) in the status line and the picker;
// - a new CSV is read with its own column, found afresh; a column the reader chose is kept only
//   while the header is the same;
// - a refused `data=` leaves the Lab's URL and the link "copy link" gives;
// - on the Tail page, a newer upload stops the read still running in its worker.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchChromium, loadPackage, serveWeb } from "../support.mjs";

const pkg = await loadPackage();
const { PICKER_COLUMNS } = await import("../../web/lab/sections/your-data/section.js");

let server, browser;

before(async () => {
  server = await serveWeb();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const SECTION = '[data-section="your-data"]';
const STATUS = `${SECTION} [data-part=data-status]`;
/** Long enough for the Lab's page, busy with every section, on two cores. */
const TIMEOUT = 180_000;

/** True when `text` holds a lone surrogate (half of a character outside the BMP). */
const broken = (text) =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

/** Waits until the Lab's status line matches `pattern` (a RegExp's source). */
const statusMatches = (page, pattern) =>
  page.waitForFunction(
    ([sel, source]) => new RegExp(source).test(document.querySelector(sel)?.textContent ?? ""),
    [STATUS, pattern],
    { timeout: TIMEOUT },
  );

/** Gives the Lab's file input a file named `name` holding `text`. */
const upload = (page, name, text) =>
  page.setInputFiles(`${SECTION} #data-file`, {
    name,
    mimeType: "text/csv",
    buffer: Buffer.from(text),
  });

/** Pastes `text` into the Lab's box and presses "use these latencies". */
async function paste(page, text) {
  await page.fill(`${SECTION} textarea`, text);
  await page.click(`${SECTION} [data-action=use]`);
}

/** The Lab at #your-data, its example previewed; every status text it shows is recorded. */
async function openLab() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  /** @type {string[]} */
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  await page.goto(`${server.url}#your-data`);
  await page.locator(SECTION).scrollIntoViewIfNeeded();
  await statusMatches(page, "not yet in use");
  await page.evaluate((sel) => {
    const status = /** @type {HTMLElement} */ (document.querySelector(sel));
    const w = /** @type {any} */ (window);
    w.__statuses = [];
    new MutationObserver(() => w.__statuses.push(status.textContent ?? "")).observe(status, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  }, STATUS);
  return { page, problems };
}

/** Every text the status line showed since `openLab`. */
const statuses = (page) => page.evaluate(() => /** @type {string[]} */ (window.__statuses));

/** The column picker's option texts and the selected value. */
const picker = (page) =>
  page.$eval(`${SECTION} #data-column`, (s) => ({
    texts: [.../** @type {HTMLSelectElement} */ (s).options].map((o) => o.textContent ?? ""),
    value: /** @type {HTMLSelectElement} */ (s).value,
  }));

test("a CSV 150,000 columns wide is read; the picker lists a bounded number, and any column is reached by number", async () => {
  const { page, problems } = await openLab();
  const width = 150_000;
  const header = Array.from({ length: width }, (_, i) => `c${i + 1}`).join(",");
  const row = (r) => Array.from({ length: width }, (_, i) => ((i * 7 + r) % 97) + 1).join(",");
  await upload(page, "wide.csv", `${header}\n${row(0)}\n${row(1)}\n${row(2)}\n`);
  // No header names the latencies: the last column holding numbers is read.
  await statusMatches(page, `column c${width} \\(no header`);
  const { texts, value } = await picker(page);
  assert.ok(texts.length <= PICKER_COLUMNS + 1, `${texts.length} options`);
  assert.deepEqual(texts.slice(0, 3), ["c1", "c2", "c3"]);
  assert.equal(value, String(width), "the column read is listed and selected");
  const number = page.locator(`${SECTION} #data-column-number`);
  assert.ok(await number.isVisible(), "a wide table gets the number field");
  assert.equal(await number.getAttribute("max"), String(width));
  assert.match(
    (await page.textContent(`${SECTION} label[for="data-column-number"]`)) ?? "",
    /150,000 columns/,
  );
  // Any column by its number: read, listed and selected.
  await number.fill("123456");
  await number.dispatchEvent("change");
  await statusMatches(page, "column c123456[ ,.]");
  const again = await picker(page);
  assert.ok(again.texts.length <= PICKER_COLUMNS + 1);
  assert.equal(again.value, "123456");
  // A number outside 1..150,000 is refused in words; the data in use stays.
  await number.fill("150001");
  await number.dispatchEvent("change");
  await statusMatches(page, "whole number from 1 to 150,000");
  assert.equal(await number.getAttribute("aria-invalid"), "true");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a header cell of a million characters and a long file name are quoted at most 40 characters, never half an emoji", async () => {
  const { page, problems } = await openLab();
  const long = `a${"😀".repeat(1_000_000)}`;
  const name = `b${"📈".repeat(100)}.csv`;
  await upload(page, name, `id,${long}\n1,5\n2,6\n3,7\n4,8\n`);
  const cut = `a${"😀".repeat(39)}…`;
  await statusMatches(page, `column ${cut}`);
  const shown = await statuses(page);
  for (const text of shown) {
    assert.ok(text.length < 600, `a status of ${text.length} characters`);
    assert.ok(!broken(text), text);
  }
  assert.ok(
    shown.some((t) => t.includes(`Reading the file b${"📈".repeat(39)}…`)),
    shown.join(" | "),
  );
  assert.ok(!shown.some((t) => t.includes("📈".repeat(41))), "the name is quoted, not copied");
  const { texts, value } = await picker(page);
  assert.deepEqual(texts, ["id", cut]);
  assert.equal(value, "2");
  assert.deepEqual(problems, []);
  await page.close();
});

test("each new CSV is read with its own column; a chosen column is kept only while the header is the same", async () => {
  const { page, problems } = await openLab();
  const first = "id,latency_ms,other\n1,5,900\n2,6,901\n3,7,902\n4,8,903\n";
  const second = "timestamp,status,latency_ms\n1,200,12\n2,200,14\n3,404,15\n4,200,17\n";
  await upload(page, "first.csv", first);
  await statusMatches(page, "column latency_ms[ ,.]");
  await upload(page, "second.csv", second);
  await statusMatches(page, "column latency_ms[ ,.].*Every section");
  const parsed = pkg.parseLatencies(second);
  assert.equal(parsed.column, 3);
  await page.waitForFunction(
    (want) => new URL(location.href).searchParams.get("data") === want,
    parsed.percentiles,
  );

  // The reader chooses another column: a new file with the same header is read there too …
  await paste(page, first);
  await statusMatches(page, "column latency_ms[ ,.].*Every section");
  await page.selectOption(`${SECTION} #data-column`, "3");
  await statusMatches(page, "column other[ ,.]");
  const same = "id,latency_ms,other\n1,5,700\n2,6,701\n3,7,702\n";
  await upload(page, "same-header.csv", same);
  await page.waitForFunction(
    (want) => new URL(location.href).searchParams.get("data") === want,
    pkg.parseLatencies(same, { column: 3 }).percentiles,
    { timeout: TIMEOUT },
  );
  assert.match((await page.textContent(STATUS)) ?? "", /column other[ ,.]/);
  // … and a file with another header is read with the column found in it.
  await upload(page, "second.csv", second);
  await page.waitForFunction(
    (want) => new URL(location.href).searchParams.get("data") === want,
    parsed.percentiles,
    { timeout: TIMEOUT },
  );
  assert.match((await page.textContent(STATUS)) ?? "", /column latency_ms[ ,.]/);
  // Once another header came, the choice is forgotten: the first header is found afresh too.
  await paste(page, first);
  await page.waitForFunction(
    (want) => new URL(location.href).searchParams.get("data") === want,
    pkg.parseLatencies(first).percentiles,
    { timeout: TIMEOUT },
  );
  assert.match((await page.textContent(STATUS)) ?? "", /column latency_ms[ ,.]/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a refused data= leaves the Lab's URL and the copied link", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.addInitScript(() => {
    Object.defineProperty(navigator, "clipboard", {
      value: {
        writeText: async (/** @type {string} */ text) => {
          /** @type {any} */ (window).__copied = text;
        },
      },
    });
  });
  await page.goto(`${server.url}index.html?data=%3Cb%3Ehi&seed=3#your-data`);
  await page.waitForSelector("body[data-ready=true]", { timeout: TIMEOUT });
  assert.match((await page.textContent("#url-notice")) ?? "", /data: “<” is not allowed/);
  await page.waitForFunction(() => !new URL(location.href).searchParams.has("data"), null, {
    timeout: 10_000,
  });
  await page.click(`${SECTION} [data-export=copy-link]`);
  await page.waitForFunction(() => /** @type {any} */ (window).__copied);
  const copied = new URL(await page.evaluate(() => /** @type {any} */ (window).__copied));
  assert.equal(copied.searchParams.has("data"), false, copied.href);
  assert.equal(copied.searchParams.get("seed"), "3", "the settings that read stay");
  assert.equal(copied.hash, "#your-data");
  assert.equal(await page.locator(`${SECTION} b`).count(), 0);
  await page.close();
});

test("on the Tail page a newer upload stops the read still in its worker, and only the newest answers", async () => {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
  // Workers that get a "parse" are counted (started, not yet terminated); while `__hold` is set
  // their question is kept back, as a long file keeps a worker busy, until `__release()`.
  await page.addInitScript(() => {
    const w = /** @type {any} */ (window);
    const Native = window.Worker;
    w.__reads = { started: 0, live: 0 };
    w.__hold = true;
    /** @type {[any, any, any][]} */
    const held = [];
    w.Worker = class extends Native {
      postMessage(message, transfer) {
        if (message?.type === "parse" && !this.__read) {
          this.__read = true;
          w.__reads.started++;
          w.__reads.live++;
        }
        if (message?.type === "parse" && w.__hold) held.push([this, message, transfer]);
        else super.postMessage(message, transfer);
      }
      terminate() {
        if (this.__read && !this.__ended) {
          this.__ended = true;
          w.__reads.live--;
        }
        super.terminate();
      }
    };
    w.__release = () => {
      w.__hold = false;
      for (const [worker, message, transfer] of held.splice(0))
        if (!worker.__ended) Native.prototype.postMessage.call(worker, message, transfer);
    };
  });
  /** @type {string[]} */
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  await page.goto(`${server.url}tail.html?workers=0&speed=paused&requests=1000`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 60_000 });
  await page.selectOption("#profile", "yours");
  const files = ["1\n2\n3\n", "4\n5\n6\n7\n", "8\n9\n", "10\n11\n12\n13\n14\n"];
  for (const [i, text] of files.entries())
    await page.setInputFiles("#data-file", {
      name: `read-${i}.txt`,
      mimeType: "text/plain",
      buffer: Buffer.from(text),
    });
  await page.waitForFunction(() => /** @type {any} */ (window).__reads.started === 4);
  const reads = await page.evaluate(() => ({ .../** @type {any} */ (window).__reads }));
  assert.deepEqual(reads, { started: 4, live: 1 }, "only the newest read's worker runs");
  await page.evaluate(() => /** @type {any} */ (window).__release());
  await page.waitForFunction(() =>
    /Every leaf/.test(document.querySelector('[data-part="data-status"]')?.textContent ?? ""),
  );
  assert.match((await page.textContent('[data-part="data-status"]')) ?? "", /^5 latencies read/);
  await page.waitForFunction(() => /** @type {any} */ (window).__reads.live === 0);
  assert.deepEqual(problems, []);
  await page.close();
});
