// The page's side of the simulation workers: a small pool for the whole page (one worker per
// core but one, at least one, at most four: the main thread keeps a core), one client (a
// channel on every worker) per section, results cached per call (so dragging a slider back is
// instant), and a newer request superseding an older one.
//
// A section's sweep is dealt across the workers point by point (point i to worker i mod N).
// Every point is a pure call of the core, so the results do not depend on which worker ran
// it, or on how many there are.

import { workersFromUrl } from "../workers.js";

const CACHE_LIMIT = 4000;

let shared = null;
const clients = new Map();


/** The page's workers, started on first use; messages go to the client of their channel. */
function pool() {
  if (!shared) {
    // `?workers=N` (1–8) for tests; else one per core but one, one to four.
    shared = Array.from({ length: workersFromUrl(1) }, (_, w) => {
      const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
      worker.onmessage = (event) => clients.get(event.data.channel)?.receive(w, event.data);
      worker.onerror = (event) => {
        for (const c of clients.values()) c.active?.fail(new Error(event.message || "the simulation worker failed"));
      };
      return worker;
    });
  }
  return shared;
}

export class SimClient {
  constructor() {
    this.workers = pool();
    this.channel = clients.size + 1;
    clients.set(this.channel, this);
    this.cache = new Map();
    this.id = 0;
    this.active = null;
  }

  static key(call) {
    return JSON.stringify(call);
  }

  /**
   * Runs `calls` (`{ fn, args }`), calling `onPoint(index, result, error)` as each arrives
   * (cached ones at once) and `onProgress(done, total)`. Resolves when every call has answered;
   * a newer `run` supersedes this one, which then never resolves.
   */
  run(calls, { onPoint = () => {}, onProgress = () => {} } = {}) {
    const id = ++this.id;
    const total = calls.length;
    let done = 0;
    const missing = [];
    calls.forEach((call, index) => {
      const hit = this.cache.get(SimClient.key(call));
      if (hit) {
        done++;
        onPoint(index, hit.result, hit.error);
      } else {
        missing.push(index);
      }
    });
    onProgress(done, total);
    if (missing.length === 0) {
      this.active = null;
      for (const w of this.workers) w.postMessage({ type: "cancel", channel: this.channel });
      return Promise.resolve();
    }
    // Point k of the missing ones goes to worker k mod N; each worker's share keeps its order.
    const shares = this.workers.map((_, w) => missing.filter((_, k) => k % this.workers.length === w));
    return new Promise((resolve, reject) => {
      let pending = shares.filter((s) => s.length > 0).length;
      this.active = {
        id,
        point: (w, k, result, error) => {
          const index = shares[w][k];
          const call = calls[index];
          if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value);
          this.cache.set(SimClient.key(call), { result, error });
          done++;
          onPoint(index, result, error);
          onProgress(done, total);
        },
        done: () => {
          pending -= 1;
          if (pending === 0) {
            this.active = null;
            resolve();
          }
        },
        fail: reject,
      };
      this.workers.forEach((worker, w) => {
        if (shares[w].length === 0) worker.postMessage({ type: "cancel", channel: this.channel });
        else worker.postMessage({ type: "job", channel: this.channel, id, calls: shares[w].map((i) => calls[i]) });
      });
    });
  }

  receive(worker, message) {
    const active = this.active;
    if (!active || message.id !== active.id) return;
    if (message.type === "point") active.point(worker, message.index, message.result, message.error);
    else if (message.type === "done") active.done();
  }
}
