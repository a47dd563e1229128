// Loads the core once per page, however many panels use it. Works from any static host:
// streaming compilation when the host serves `.wasm` as application/wasm, and a plain
// download-then-compile otherwise (no console warning either way).

import init, * as api from "./pkg/tail_lab.js";

let ready = null;

async function source(url) {
  const response = await fetch(url);
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
