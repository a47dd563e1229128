// Loads the core once per page, however many panels use it. Works from any static host:
// streaming compilation when the host serves `.wasm` as application/wasm, and a plain
// download-then-compile otherwise (no console warning either way). From another origin (an
// embedded panel), the host must serve the file with CORS headers.

import init, * as api from "./pkg/tail_lab.js";

let ready = null;

async function source(url) {
  // From another origin (an embed in someone else's page) the fetch is a CORS request: the
  // lab's host must answer it with Access-Control-Allow-Origin, or the browser refuses it.
  let response;
  try {
    response = await fetch(url, { mode: "cors", credentials: "same-origin" });
  } catch (err) {
    throw new Error(
      `could not load ${url.href}: ${err.message} (from another site the lab's host must send Access-Control-Allow-Origin)`,
    );
  }
  if (!response.ok) throw new Error(`could not load ${url.pathname}: HTTP ${response.status}`);
  const type = response.headers.get("Content-Type") ?? "";
  return type.split(";")[0].trim() === "application/wasm" ? response : response.arrayBuffer();
}

/** The initialised API module. */
export function loadCore() {
  ready ??= init({
    module_or_path: source(new URL("./pkg/tail_lab_bg.wasm", import.meta.url)),
  }).then(() => api);
  return ready;
}
