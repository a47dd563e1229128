// A Tail panel's run, with no DOM: the wasm TailRun prepared over several tasks, its requests
// accumulated in the page's worker pool (pool.js) or, without workers, on the main thread within
// a frame's budget, new settings applied, and the settled histograms' digest. The view
// (piece.js) asks it for numbers and draws them; this file decides nothing about drawing, and
// runs as it is in node (tests/js/tail-run.test.mjs).

import { nextTask } from "../task.js";
import { sharedPool } from "./pool.js";

/**
 * Calibration draws per task while a run is prepared (2^22 in all): the first step takes 2^15,
 * and each next one is sized from the last one's time to take about STEP_MS, growing at most
 * twofold a step (a fast machine takes 2^18 draws in a few ms; a slow one, or one whose cores
 * the workers share, in 15–25).
 */
const STEP_MS = 4;
const MIN_STEP = 1 << 13;
const MAX_STEP = 1 << 19;

/** FNV-1a over the 32-bit words of Float64Arrays, as hex. */
export function digest(...arrays) {
  let h = 0x811c9dc5;
  for (const a of arrays) {
    for (const w of new Uint32Array(a.buffer, a.byteOffset, a.length * 2))
      h = Math.imul(h ^ w, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/**
 * A TailRun's options (what the core reads) out of a panel's settings: on the "yours" profile,
 * with the reader's latencies (`leaves`, `parseLatencies(...).service`), never in a URL.
 * @param {any} settings
 * @returns {import("../pkg/tail_lab.js").TailOptions}
 */
export const runOptions = ({ fanout, profile, fix, seed, leaves }) =>
  profile === "yours" ? { fanout, profile, fix, seed, leaves } : { fanout, profile, fix, seed };

/**
 * A TailRun prepared over several tasks, so start-up has no long task. The builder is freed as
 * soon as it has given its run, or when `signal` aborts (the panel was removed), which throws
 * an AbortError.
 * @param {typeof import("../pkg/tail_lab.js")} api
 * @param {import("../pkg/tail_lab.js").TailOptions} options
 * @param {AbortSignal} [signal]
 */
export async function prepareRun(api, options, signal) {
  signal?.throwIfAborted();
  const builder = api.TailRun.prepare(options);
  try {
    for (let draws = 1 << 15; ; ) {
      const t0 = performance.now();
      if (builder.step(draws)) break;
      const ms = performance.now() - t0;
      draws = Math.round(
        Math.min(MAX_STEP, 2 * draws, Math.max(MIN_STEP, (draws * STEP_MS) / Math.max(ms, 0.1))),
      );
      await nextTask();
      signal?.throwIfAborted();
    }
    return builder.finish();
  } finally {
    builder.free();
  }
}

/**
 * Opens a panel's run: `settings` are `{ fanout, profile, fix, seed, requests }` (checked, see
 * tailParams; `requests` is where accumulation stops), `workers` how many workers of the page's
 * shared pool accumulate (0, or a page that cannot start one, accumulates on the main thread),
 * `signal` stops a run still being prepared with an AbortError (the caller then `close()`s one
 * that is open). Resolves to a TailLifecycle once the first run is prepared.
 * @param {typeof import("../pkg/tail_lab.js")} api
 * @param {any} settings
 * @param {{ workers?: number, signal?: AbortSignal }} [options]
 */
export async function openRun(api, settings, { workers = 0, signal } = {}) {
  const config = { ...runOptions(settings), leaves: settings.leaves, requests: settings.requests };
  const run = await prepareRun(api, runOptions(config), signal);
  await nextTask();
  if (signal?.aborted) {
    run.free();
    signal.throwIfAborted();
  }
  return new TailLifecycle(api, run, config, workers, signal);
}

/**
 * One panel's run from its first request to its cap. `run` is the current TailRun (the view
 * reads its percentiles, histograms, curves and requests from it, fresh each time: a new
 * profile or seed swaps it for another).
 */
class TailLifecycle {
  constructor(api, run, config, workers, signal) {
    this.api = api;
    this.run = run;
    this.config = config;
    this.signal = signal;
    /** The token of the run being prepared for a new profile or seed, or null. */
    this.pending = null;
    this.settled = false;
    /** Requests per main-thread `run()` call, sized to about a quarter of a frame's budget. */
    this.chunk = 500;
    // Accumulation in the workers when there are any; a page that cannot start one (or asked
    // for none) accumulates on the main thread.
    this.channel = null;
    if (workers > 0 && typeof Worker !== "undefined") {
      try {
        this.channel = sharedPool(workers).channel();
        this.channel.configure(runOptions(config), config.requests);
      } catch {
        this.channel = null;
      }
    }
  }

  /** A run for a new profile or seed is being prepared (the old one is still current). */
  get preparing() {
    return this.pending !== null;
  }

  /** Requests still to accumulate before the cap. */
  get hasWork() {
    return this.run.requests < this.config.requests;
  }

  /** Whether blocks go to workers (false: the main thread accumulates). */
  get inWorkers() {
    return this.channel !== null;
  }

  /** Sends the workers the current settings, from request 0. */
  restartWorkers() {
    this.channel?.configure(runOptions(this.config), this.config.requests);
  }

  /** Starts again from request 0 with the same settings, and `requests` as the cap if given. */
  reset(requests = this.config.requests) {
    this.config.requests = requests;
    this.run.reset();
    this.restartWorkers();
    this.settled = false;
  }

  /**
   * Applies new settings (any of fanout, profile, fix, seed, requests) and starts again from
   * request 0. Fan-out and fix reuse the run's calibration (cheap, done at once). A new profile
   * or seed needs a new 2^22-draw calibration: that is prepared over several tasks, as at
   * start-up, so no change blocks the main thread. Until it is ready the old run stays current
   * (`preparing` is true, and nothing accumulates); a newer profile or seed supersedes it, and
   * fan-out or fix changes made meanwhile are applied to it when it arrives. Resolves to true
   * when the current run now has the settings (the view redraws), false when this change was
   * superseded, left to the run being prepared, or the panel was removed.
   */
  async reconfigure(options) {
    const c = this.config;
    const recalibrate =
      ("profile" in options && options.profile !== c.profile) ||
      ("seed" in options && options.seed !== c.seed) ||
      ("leaves" in options && options.leaves !== c.leaves);
    Object.assign(c, options);
    this.settled = false;
    if (recalibrate) {
      const token = {};
      this.pending = token;
      let next;
      try {
        next = await prepareRun(this.api, runOptions(c), this.signal);
      } catch (err) {
        if (err.name === "AbortError") return false; // the panel was removed meanwhile
        throw err;
      }
      if (this.pending !== token || this.signal?.aborted) {
        next.free();
        return false;
      }
      this.pending = null;
      this.run.free();
      this.run = next;
      const now = this.run.config;
      if (now.fanout !== c.fanout || now.fix !== c.fix) this.run.reconfigure(runOptions(c));
    } else if (this.pending) {
      return false; // the run being prepared will take this change when it arrives
    } else {
      this.run.reconfigure(runOptions(c));
    }
    this.restartWorkers();
    this.settled = false;
    return true;
  }

  /**
   * One frame's accumulation: the workers' blocks that have come back, merged in block order;
   * without workers (or once none is left), requests run here until `budget` ms have passed
   * since `frameStart` (performance.now()) or the cap is reached.
   */
  accumulate(frameStart, budget) {
    if (this.pending) return; // the run for the new profile or seed is not ready yet
    const { run, config } = this;
    const channel = this.channel;
    if (channel) {
      // The workers' blocks, merged in order: 1,680 additions each, microseconds.
      try {
        for (const block of channel.take()) run.absorb(block);
      } catch (err) {
        channel.fail(`a block could not be merged: ${err.message}`);
      }
      if (channel.error === null) {
        if (run.requests < config.requests) channel.keepFeeding();
        return;
      }
      // A worker failed: carry on here from the blocks merged so far (they are contiguous from
      // request 0, so run() continues at the right request).
      console.warn(`Tail workers stopped (${channel.error}); accumulating on the main thread`);
      channel.close();
      this.channel = null;
    }
    while (run.requests < config.requests && performance.now() - frameStart < budget) {
      const n = Math.min(this.chunk, config.requests - run.requests);
      const t0 = performance.now();
      run.run(n);
      const dt = performance.now() - t0;
      // Aim each call at about a quarter of the budget.
      const target = (budget / 4) * (n / Math.max(dt, 0.05));
      this.chunk = Math.max(50, Math.min(200_000, Math.round(0.5 * this.chunk + 0.5 * target)));
    }
  }

  /**
   * Settles a run that has reached its cap: returns the digest of both histograms' bits (for
   * tests that compare runs, e.g. 1, 2 or 4 workers) the first time, null otherwise.
   */
  settle() {
    if (this.pending || this.hasWork || this.settled) return null;
    this.settled = true;
    return this.digest();
  }

  /** The digest of the current histograms (see `digest`). */
  digest() {
    return digest(this.run.leafBins(), this.run.parentBins());
  }

  /** Frees everything: the worker channel (blocks still out are dropped), a run being prepared
   * (it stops at its next step through `signal`, or is freed when it arrives), the run. */
  close() {
    this.channel?.close();
    this.channel = null;
    this.pending = null;
    this.run.free();
  }
}
