// Reading a reader's own latencies for the Tail page, off the main thread: a worker of its own
// (web/tail/worker.js, the accumulation workers' script) is started for each text, answers
// `parseLatencies` on a port, and is let go. The page's accumulation pool is left alone (it may
// have no workers at all: `?workers=0`).

import { askWorker, workerScript } from "../workers.js";

/**
 * Asks a fresh worker `message` ({ type: "parse", source, options } or { type: "example" }).
 * Resolves to `{ result }` or `{ error, line }`.
 * @param {any} message
 * @returns {Promise<{ result?: any, error?: string, line?: number | null }>}
 */
async function ask(message) {
  let worker;
  try {
    worker = new Worker(workerScript(new URL("./worker.js", import.meta.url)), { type: "module" });
  } catch (err) {
    return { error: `the page could not start a worker to read it (${err.message})` };
  }
  const failed = new Promise((resolve) => {
    worker.addEventListener("error", (e) => {
      e.preventDefault?.();
      resolve({ error: "the worker reading it failed to start" });
    });
  });
  try {
    return await Promise.race([askWorker(worker, message), failed]);
  } finally {
    worker.terminate();
  }
}

/**
 * `parseLatencies(source, options)` in a worker: `source` is text or a Blob (a file, or a long
 * paste). Resolves to `{ result }` (ParsedLatencies) or `{ error, line }`.
 * @param {string | Blob} source
 * @param {import("../pkg/tail_lab.js").ParseLatenciesOptions} [options]
 */
export const parseInWorker = (source, options = {}) => ask({ type: "parse", source, options });

/** The bundled example's text, from a worker: `{ result }` or `{ error }`. */
export const exampleInWorker = () => ask({ type: "example" });
