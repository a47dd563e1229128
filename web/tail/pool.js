// The Tail piece's accumulation on every core: a pool of workers (web/tail/worker.js) shared
// by every Tail panel on the page. The main thread only hands out request ranges, merges the
// blocks that come back (840 + 840 additions each) and draws.
//
// A panel's run is cut into blocks whose sizes depend only on its fan-out: the first is 1/64
// of the full size and each next one doubles up to it (so numbers appear within a frame or two
// of a change), the rest are full (the last one stops at the panel's cap). Blocks go to
// whichever worker is free, and come back in any order; the panel merges them strictly in
// index order (`take`). Merged histograms are exact sums of whole counts, and the hedge work sums are
// added in a fixed order, so the run is the same bits for 1, 2 or 4 workers.

import { defaultWorkers } from "../workers.js";

export { defaultWorkers };

/** Requests per block at `fanout`: about 400,000 leaf draws, a few ms of a worker's time. */
export function blockSize(fanout) {
  return Math.max(16, Math.round(400_000 / fanout));
}

/** Blocks each worker holds at once: one running, one queued behind it. */
const DEPTH = 2;
/** A channel stops being fed when its panel has not asked for a frame for this long (ms). */
const IDLE_MS = 250;

let shared = null;

/** The page's pool (made on first use, with `workers` workers). */
export function sharedPool(workers = defaultWorkers()) {
  shared ??= new Pool(workers);
  return shared;
}

class Pool {
  constructor(size) {
    this.workers = Array.from({ length: size }, () => {
      const w = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
      w.busy = 0;
      w.onmessage = ({ data }) => { w.busy -= 1; this.channels.get(data.channel)?.receive(data); this.feed(); };
      w.onerror = (e) => { w.busy = Math.max(0, w.busy - 1); for (const c of this.channels.values()) c.fail(e.message || "worker error"); };
      return w;
    });
    this.channels = new Map();
    this.nextChannel = 0;
    this.turn = 0;
  }

  /** A channel for one panel. */
  channel() {
    const c = new Channel(this, this.nextChannel++);
    this.channels.set(c.id, c);
    return c;
  }

  /** Hands out blocks until every worker holds DEPTH or no active channel wants more. */
  feed() {
    const now = performance.now();
    const wanting = () => [...this.channels.values()].filter((c) => c.wants(now));
    for (;;) {
      const worker = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
      if (worker.busy >= DEPTH) return;
      const open = wanting();
      if (open.length === 0) return;
      const c = open[this.turn++ % open.length];
      worker.busy += 1;
      worker.postMessage(c.nextBlock());
    }
  }
}

class Channel {
  constructor(pool, id) {
    this.pool = pool;
    this.id = id;
    this.generation = 0;
    this.options = null;
    this.error = null;
    this.lastWanted = -Infinity;
  }

  /** Starts over for `options` (a TailRun's options), stopping at `cap` requests. */
  configure(options, cap) {
    this.generation += 1;
    this.options = { ...options };
    this.cap = cap;
    this.size = blockSize(options.fanout);
    this.nextSize = Math.max(1, Math.floor(this.size / 64));
    this.nextFirst = 0; // the first request of the next block to hand out
    this.issued = 0; // blocks handed out
    this.merged = 0; // blocks taken, in order
    this.ready = new Map(); // index → block, arrived but not yet taken
    this.error = null;
    this.pool.feed();
  }

  /** The panel is on screen and accumulating: keep its blocks coming for a while. */
  keepFeeding() {
    this.lastWanted = performance.now();
    this.pool.feed();
  }

  wants(now) {
    return this.options !== null && this.error === null && now - this.lastWanted < IDLE_MS && this.nextFirst < this.cap;
  }

  nextBlock() {
    const index = this.issued++;
    const first = this.nextFirst;
    const count = Math.min(this.nextSize, this.cap - first);
    this.nextFirst += count;
    this.nextSize = Math.min(this.size, this.nextSize * 2);
    return { channel: this.id, generation: this.generation, index, options: this.options, first, count };
  }

  receive(data) {
    if (data.generation !== this.generation) return; // from settings since changed
    if (data.error) { this.fail(data.error); return; }
    this.ready.set(data.index, data.block);
  }

  fail(message) {
    this.error = message;
  }

  /** The blocks that can be merged now, in index order (each exactly once). */
  take() {
    const out = [];
    while (this.ready.has(this.merged)) {
      out.push(this.ready.get(this.merged));
      this.ready.delete(this.merged);
      this.merged += 1;
    }
    return out;
  }

  close() {
    this.options = null;
    this.pool.channels.delete(this.id);
  }
}
