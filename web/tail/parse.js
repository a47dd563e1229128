// Reading a reader's own latencies for the Tail page, off the main thread: a worker of its own
// (web/tail/worker.js, the accumulation workers' script) is started for each text, answers
// `parseLatencies` on a port, and is let go. The page's accumulation pool is left alone (it may
// have no workers at all: `?workers=0`). A read that a newer one supersedes is stopped where it
// is: aborting its `signal` terminates its worker at once, so quick uploads in a row leave one
// worker reading, not one per upload.

import { askWorker, workerScript } from "../workers.js";

/** What a read stopped by its signal resolves to (its caller has a newer read, and ignores it). */
const ABORTED = Object.freeze({ error: "the read was stopped by a newer one", aborted: true });

/**
 * Asks a fresh worker `message` ({ type: "parse", source, options } or { type: "example" }).
 * Resolves to `{ result }` or `{ error, line }`; or, once `signal` is aborted, to
 * `{ error, aborted: true }` at once, the worker terminated.
 * @param {any} message
 * @param {AbortSignal} [signal]
 * @returns {Promise<{ result?: any, error?: string, line?: number | null, aborted?: boolean }>}
 */
async function ask(message, signal) {
  if (signal?.aborted) return ABORTED;
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
  /** @type {() => void} */
  let stop = () => {};
  const stopped = new Promise((resolve) => {
    stop = () => resolve(ABORTED);
    signal?.addEventListener("abort", stop, { once: true });
  });
  try {
    return await Promise.race([askWorker(worker, message), failed, stopped]);
  } finally {
    signal?.removeEventListener("abort", stop);
    worker.terminate();
  }
}

/**
 * `parseLatencies(source, options)` in a worker: `source` is text or a Blob (a file, or a long
 * paste). Resolves to `{ result }` (ParsedLatencies) or `{ error, line }`; aborting `signal`
 * stops the worker (see `ask`).
 * @param {string | Blob} source
 * @param {import("../pkg/tail_lab.js").ParseLatenciesOptions} [options]
 * @param {AbortSignal} [signal]
 */
export const parseInWorker = (source, options = {}, signal = undefined) =>
  ask({ type: "parse", source, options }, signal);

/**
 * The bundled example's text, from a worker: `{ result }` or `{ error }`; aborting `signal`
 * stops the worker.
 * @param {AbortSignal} [signal]
 */
export const exampleInWorker = (signal = undefined) => ask({ type: "example" }, signal);
