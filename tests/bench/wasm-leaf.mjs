// `node tests/bench/wasm-leaf.mjs [--quick] [--node] [--engine NAME]`: the wasm core's fan-out-100
// Tail loop (web/bench/leaf.js), or a queueing engine (web/bench/engines.js), one line in the native benchmark's format, in headless Chromium (the
// benchmark page's `?leaf=1` mode) or, with --node, in node.
// `cargo xtask bench` runs it in alternation with `cargo bench -p tail-lab-core -- tail-leaf`,
// the same loop natively, and takes wasm ÷ native within each round: this machine's speed
// drifts too much between a native run and a browser run minutes apart.

import { engineNsPerUnit } from "../../web/bench/engines.js";
import { tailLeafNsPerRequest } from "../../web/bench/leaf.js";
import { launchChromium, loadPackage, serveWeb } from "../support.mjs";

const quick = process.argv.includes("--quick");
// `--engine NAME`: a queueing engine of web/bench/engines.js instead of the Tail loop.
const at = process.argv.indexOf("--engine");
const model = at >= 0 ? process.argv[at + 1] : null;
let nsPerRequest, engine;
let unit = "request";
let what = "fan-out-100 request into histograms, fix none";
if (process.argv.includes("--node")) {
  engine = "node";
  const pkg = await loadPackage();
  if (model) {
    const r = engineNsPerUnit(pkg, model, quick);
    nsPerRequest = r.ns;
    unit = r.unit;
    what = `engine ${model}`;
  } else nsPerRequest = tailLeafNsPerRequest(pkg.TailRun, quick ? 100 : 100_000);
} else {
  engine = "Chromium";
  const server = await serveWeb();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const mode = model ? `engine=${encodeURIComponent(model)}` : "leaf=1";
    await page.goto(`${server.url}bench/?${mode}${quick ? "&quick=1" : ""}`);
    await page.waitForSelector("body[data-done]", { timeout: 120_000 });
    const text = await page.textContent("#results");
    if (!text.startsWith("{")) throw new Error(`bench page: ${text}`);
    const out = JSON.parse(text);
    nsPerRequest = model ? out.ns : out.nsPerRequest;
    if (model) {
      unit = out.unit;
      what = `engine ${model}`;
    }
  } finally {
    await browser.close();
    await server.close();
  }
}
console.log(`${what} (wasm in ${engine}) ${nsPerRequest.toFixed(2)} ns/${unit}`);
