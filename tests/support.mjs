// Shared helpers for the JS and browser tests: load the built package in node, run the native
// report, serve web/ on localhost, and launch Debian's Chromium through playwright-core.

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { delimiter, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
export const WEB = join(ROOT, "web");
/** The site the browser tests serve: web/, or another copy with TAIL_LAB_WEB=dir (an older
 * one, say, to see a test fail without its fix). */
export const SITE = process.env.TAIL_LAB_WEB ?? WEB;

/**
 * The wasm package, initialised synchronously for node (the page uses the async init).
 * @returns {Promise<typeof import("../web/pkg/tail_lab.js")>}
 */
export async function loadPackage() {
  const pkg = await import(join(WEB, "pkg", "tail_lab.js"));
  pkg.initSync({ module: readFileSync(join(WEB, "pkg", "tail_lab_bg.wasm")) });
  return pkg;
}

/** `tail-lab report --json` from the release build (`cargo xtask ci` builds it first). */
export function nativeReport(seed, requests) {
  const bin = join(ROOT, "target", "release", "tail-lab");
  const out = execFileSync(bin, [
    "report",
    "--json",
    "--seed",
    String(seed),
    "--requests",
    String(requests),
  ]);
  return JSON.parse(out.toString());
}

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
};

/**
 * Serves `dir` (default web/) on an ephemeral localhost port; resolves to { url, close }.
 * `wasmType` is the Content-Type given to `.wasm` files, to play a host that does not know it.
 */
export function serveWeb(dir = WEB, { wasmType = "application/wasm" } = {}) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    const file = join(dir, path.endsWith("/") ? `${path}index.html` : path);
    if (!file.startsWith(dir)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = readFileSync(file);
      const type =
        extname(file) === ".wasm" ? wasmType : (MIME[extname(file)] ?? "application/octet-stream");
      res.writeHead(200, { "Content-Type": type }).end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  return new Promise((ok) =>
    server.listen(0, "127.0.0.1", () =>
      ok({
        url: `http://127.0.0.1:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}/`,
        close: () => new Promise((done) => server.close(done)),
      }),
    ),
  );
}

/** The static site `cargo xtask ci` copies with `dist::copy_site` (as `cargo xtask dist` does). */
export const DIST = join(ROOT, "target", "dist");

/**
 * The Chromium to drive: `$CHROMIUM` when set, else the first of chromium, chromium-browser,
 * google-chrome on PATH (Debian's /usr/bin/chromium on these machines).
 */
export function chromiumPath() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  throw new Error(
    "no Chromium found: install one (Debian: apt-get install chromium) or set CHROMIUM to its path",
  );
}

/** Chromium, headless, with the flags this sandboxed machine needs. */
export async function launchChromium() {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** The bits of a float as a hex string, for exact comparisons with the Rust vectors. */
export function bits(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return `0x${view.getBigUint64(0).toString(16).padStart(16, "0")}`;
}
