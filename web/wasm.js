// Loads the core once per page, however many panels use it. Works from any static host:
// streaming compilation when the host serves `.wasm` as application/wasm, and a plain
// download-then-compile otherwise (no console warning either way). From another origin (an
// embedded panel), the host must serve the file with CORS headers.

import init, * as api from "./pkg/tail_lab.js";

/**
 * How long the lab waits for a file of its own to answer (the `.wasm`, a section's heading)
 * before it gives up and says so, in ms. A network that never answers, or a host page whose
 * `fetch` never settles, must not leave a panel on "loading…" forever.
 */
export const LOAD_TIMEOUT_MS = 15_000;

/**
 * `fetch(url, init)`, aborted and refused with a "TimeoutError" ("no answer in 15 s") when no
 * response has come after LOAD_TIMEOUT_MS. The timer does not trust `fetch` to honour the signal
 * (a page may have replaced it): the promise settles either way, and a `fetch` that throws
 * rejects it like one that fails.
 * @param {URL} url
 * @param {RequestInit} [init]
 * @returns {Promise<Response>}
 */
export function fetchWithin(url, init = {}) {
  const controller = new AbortController();
  // A caller's own signal still aborts the download (a body that stalls later, see below).
  init.signal?.addEventListener("abort", () => controller.abort());
  let timer;
  return new Promise((resolve, reject) => {
    timer = setTimeout(() => {
      reject(new DOMException(`no answer in ${LOAD_TIMEOUT_MS / 1000} s`, "TimeoutError"));
      controller.abort();
    }, LOAD_TIMEOUT_MS);
    fetch(url, { ...init, signal: controller.signal }).then(resolve, reject);
  }).finally(() => clearTimeout(timer));
}

/**
 * `response` with a body that fails ("could not load …: no data in 15 s") when no bytes have
 * come for LOAD_TIMEOUT_MS, so a body that stalls after its headers ends in a message too,
 * never a panel on "loading…" forever (`controller` aborts the download then). The bytes are
 * passed on as they come, for streaming compilation.
 * @param {Response} response
 * @param {AbortController} controller
 * @param {URL} url
 * @returns {Response}
 */
function watchedBody(response, controller, url) {
  if (!response.body) return response;
  const reader = response.body.getReader();
  let timer;
  /** Starts the stall timer again: on expiry `fail` errors the stream. */
  const arm = (fail) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = new Error(`could not load ${url.href}: no data in ${LOAD_TIMEOUT_MS / 1000} s`);
      controller.abort();
      fail(stalled);
    }, LOAD_TIMEOUT_MS);
  };
  const body = new ReadableStream({
    start(stream) {
      arm((e) => stream.error(e));
    },
    async pull(stream) {
      const { done, value } = await reader.read();
      if (done) {
        clearTimeout(timer);
        stream.close();
        return;
      }
      arm((e) => stream.error(e));
      stream.enqueue(value);
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

let ready = null;
/** Set when the core's download stalled: what the page is told, whatever compiling it said. */
let stalled = null;

async function source(url) {
  // From another origin (an embed in someone else's page) the fetch is a CORS request: the
  // lab's host must answer it with Access-Control-Allow-Origin, or the browser refuses it.
  let response;
  const controller = new AbortController();
  try {
    response = await fetchWithin(url, {
      mode: "cors",
      credentials: "same-origin",
      signal: controller.signal,
    });
  } catch (err) {
    if (err?.name === "TimeoutError") throw new Error(`could not load ${url.href}: ${err.message}`);
    throw new Error(
      `could not load ${url.href}: ${err.message} (from another site the lab's host must send Access-Control-Allow-Origin)`,
    );
  }
  if (!response.ok) throw new Error(`could not load ${url.pathname}: HTTP ${response.status}`);
  const type = response.headers.get("Content-Type") ?? "";
  const watched = watchedBody(response, controller, url);
  return type.split(";")[0].trim() === "application/wasm" ? watched : watched.arrayBuffer();
}

/** The initialised API module. */
export function loadCore() {
  ready ??= init({
    module_or_path: source(new URL("./pkg/tail_lab_bg.wasm", import.meta.url)),
  }).then(
    () => api,
    (err) => {
      throw stalled ?? err;
    },
  );
  return ready;
}
