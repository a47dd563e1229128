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
//
// The pool lives while a panel uses it: when the last panel's channel closes (its panel
// unmounted, or removed from the page), every worker is terminated, and the next panel starts
// new ones.

import {
  WORKER_DEADLINE_MS,
  askWorker,
  deadlineWatch,
  defaultWorkers,
  onPageResume,
  watchedWorker,
} from "../workers.js";

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

/**
 * What the pool holds, for tests: `{ workers, channels, inflight }` (live workers, open
 * channels, blocks handed out and not back). With no channel open the pool has let its
 * workers go: `workers` is 0 until the next panel opens one.
 */
export function tailWorkStatus() {
  if (!shared) return { workers: 0, channels: 0, inflight: 0 };
  return {
    workers: shared.workers.length,
    channels: shared.channels.size,
    inflight: shared.workers.reduce((n, w) => n + w.inflight.size, 0),
  };
}

/**
 * The memory of every live worker, in the pool's order: `{ heapBytes, wasmBytes }`, the core's
 * live heap (`heapBytes()`) and its wasm memory's size, in bytes, as the worker reads them after
 * the blocks it was sent before the question. A worker whose core could not start answers
 * `{ error }`. (For tests.)
 * @returns {Promise<{ heapBytes: number, wasmBytes: number, error?: string }[]>}
 */
export function tailWorkerHeaps() {
  if (!shared) return Promise.resolve([]);
  return Promise.all(shared.workers.map((w) => askWorker(w.worker, { type: "heap" })));
}

const blockKey = (m) => `${m.channel}/${m.generation}/${m.index}`;

/**
 * The workers. One can be lost: it fails to start (an error event), or it stops answering
 * without a word (a worker that closes itself or is killed sends no event): one that holds
 * blocks and has said nothing for WORKER_DEADLINE_MS counts as lost. Its blocks go to the workers left,
 * so the histograms are the same bits; with none left, every panel accumulates on the main
 * thread from the blocks merged so far, as with a block that fails.
 */
class Pool {
  constructor(size) {
    this.size = size;
    this.workers = [];
    this.channels = new Map();
    this.nextChannel = 0;
    this.turn = 0;
    this.start();
    onPageResume(() => {
      for (const w of this.workers) w.heard = performance.now();
    });
    /** Watches the deadline while any worker holds blocks. */
    this.watch = deadlineWatch((now) => {
      for (const w of [...this.workers]) {
        if (w.inflight.size > 0 && w.overdue(now))
          this.lose(w, `a worker stopped answering for ${WORKER_DEADLINE_MS / 1000} s`);
      }
      return this.workers.some((w) => w.inflight.size > 0);
    });
  }

  /** Starts `size` workers (the pool's first use, or its first after `release`). */
  start() {
    this.released = false;
    this.reason = null;
    for (let i = 0; i < this.size; i++) this.spawn();
  }

  /**
   * No panel uses the pool any more: every worker is terminated and the deadline watch
   * cleared, so nothing keeps running; the next channel starts them again.
   */
  release() {
    for (const w of this.workers) w.stop();
    this.workers = [];
    this.watch.cancel();
    this.released = true;
  }

  spawn() {
    const w = watchedWorker(new URL("./worker.js", import.meta.url), {
      onMessage: (data) => {
        w.inflight.delete(blockKey(data));
        this.channels.get(data.channel)?.receive(data);
        this.feed();
      },
      onLost: (message) => this.lose(w, message || "a worker failed"),
    });
    if (w.error !== undefined) {
      this.reason = w.error;
      return;
    }
    w.inflight = new Map(); // block key → the block's message
    this.workers.push(w);
  }

  /** `w` is gone: its blocks go back to their channels for the workers left. */
  lose(w, reason) {
    const at = this.workers.indexOf(w);
    if (at < 0) return;
    this.workers.splice(at, 1);
    w.stop();
    this.reason = reason;
    console.warn(`Tail: ${reason}; ${this.workers.length} worker(s) left`);
    for (const m of w.inflight.values()) this.channels.get(m.channel)?.retry(m);
    if (this.workers.length === 0)
      for (const c of this.channels.values()) c.fail(`no worker left (${reason})`);
    else this.feed();
  }

  /** A channel for one panel. */
  channel() {
    if (this.released) this.start();
    const c = new Channel(this, this.nextChannel++);
    this.channels.set(c.id, c);
    return c;
  }

  /** Hands out blocks until every worker holds DEPTH or no active channel wants more. */
  feed() {
    const now = performance.now();
    const wanting = () => [...this.channels.values()].filter((c) => c.wants(now));
    while (this.workers.length > 0) {
      const worker = this.workers.reduce((a, b) => (b.inflight.size < a.inflight.size ? b : a));
      if (worker.inflight.size >= DEPTH) return;
      const open = wanting();
      if (open.length === 0) return;
      const c = open[this.turn++ % open.length];
      const block = c.nextBlock();
      worker.inflight.set(blockKey(block), block);
      worker.post(block, true);
      this.watch();
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
    this.retries = []; // blocks a lost worker held, to hand out again
    this.error =
      this.pool.workers.length > 0
        ? null
        : `no worker left (${this.pool.reason ?? "none could start"})`;
    this.pool.feed();
  }

  /** The panel is on screen and accumulating: keep its blocks coming for a while. */
  keepFeeding() {
    this.lastWanted = performance.now();
    this.pool.feed();
  }

  wants(now) {
    return (
      this.options !== null &&
      this.error === null &&
      now - this.lastWanted < IDLE_MS &&
      (this.retries.length > 0 || this.nextFirst < this.cap)
    );
  }

  nextBlock() {
    // A lost worker's block first: the merge waits for its index.
    if (this.retries.length > 0) return this.retries.shift();
    const index = this.issued++;
    const first = this.nextFirst;
    const count = Math.min(this.nextSize, this.cap - first);
    this.nextFirst += count;
    this.nextSize = Math.min(this.size, this.nextSize * 2);
    return {
      channel: this.id,
      generation: this.generation,
      index,
      options: this.options,
      first,
      count,
    };
  }

  /** A block a lost worker held: handed out again (the same range, so the same result). */
  retry(block) {
    if (block.generation !== this.generation || this.options === null) return;
    this.retries.push(block);
    this.retries.sort((a, b) => a.index - b.index);
  }

  receive(data) {
    if (data.generation !== this.generation) return; // from settings since changed
    if (data.error) {
      this.fail(data.error);
      return;
    }
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

  /** The panel is gone: its blocks still out are dropped; the last channel releases the pool. */
  close() {
    this.options = null;
    if (!this.pool.channels.delete(this.id)) return;
    if (this.pool.channels.size === 0) this.pool.release();
  }
}
