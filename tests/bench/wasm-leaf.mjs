// `node tests/bench/wasm-leaf.mjs [--quick] [--node]`: the wasm core's fan-out-100 Tail loop
// (web/bench/leaf.js), one line in the native benchmark's format, in headless Chromium (the
// benchmark page's `?leaf=1` mode) or, with --node, in node.
// `cargo xtask bench` runs it in alternation with `cargo bench -p tail-lab-core -- tail-leaf`,
// the same loop natively, and takes wasm ÷ native within each round: this machine's speed
// drifts too much between a native run and a browser run minutes apart.

import { tailLeafNsPerRequest } from "../../web/bench/leaf.js";
import { launchChromium, loadPackage, serveWeb } from "../support.mjs";

const quick = process.argv.includes("--quick");
let nsPerRequest, engine;
if (process.argv.includes("--node")) {
  engine = "node";
  const pkg = await loadPackage();
  nsPerRequest = tailLeafNsPerRequest(pkg.TailRun, quick ? 100 : 100_000);
} else {
  engine = "Chromium";
  const server = await serveWeb();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}bench/?leaf=1${quick ? "&quick=1" : ""}`);
    await page.waitForSelector("body[data-done]", { timeout: 120_000 });
    const text = await page.textContent("#results");
    if (!text.startsWith("{")) throw new Error(`bench page: ${text}`);
    nsPerRequest = JSON.parse(text).nsPerRequest;
  } finally {
    await browser.close();
    await server.close();
  }
}
console.log(
  `fan-out-100 request into histograms, fix none (wasm in ${engine}) ${nsPerRequest.toFixed(2)} ns/request`,
);
