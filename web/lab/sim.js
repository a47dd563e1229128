// The page's side of the simulation worker: one worker for the whole page, one client (a
// channel of it) per section, results cached per call (so dragging a slider back is instant),
// and a newer request superseding an older one.

const CACHE_LIMIT = 4000;

let shared = null;
const clients = new Map();

/** The page's one worker, started on first use; messages go to the client of their channel. */
function worker() {
  if (!shared) {
    shared = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    shared.onmessage = (event) => clients.get(event.data.channel)?.receive(event.data);
    shared.onerror = (event) => {
      for (const c of clients.values()) c.active?.fail(new Error(event.message || "the simulation worker failed"));
    };
  }
  return shared;
}

export class SimClient {
  constructor() {
    this.worker = worker();
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
      this.worker.postMessage({ type: "cancel", channel: this.channel });
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.active = {
        id,
        point: (k, result, error) => {
          const index = missing[k];
          const call = calls[index];
          if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value);
          this.cache.set(SimClient.key(call), { result, error });
          done++;
          onPoint(index, result, error);
          onProgress(done, total);
        },
        done: resolve,
        fail: reject,
      };
      this.worker.postMessage({ type: "job", channel: this.channel, id, calls: missing.map((i) => calls[i]) });
    });
  }

  receive(message) {
    const active = this.active;
    if (!active || message.id !== active.id) return;
    if (message.type === "point") active.point(message.index, message.result, message.error);
    else if (message.type === "done") {
      this.active = null;
      active.done();
    }
  }
}
