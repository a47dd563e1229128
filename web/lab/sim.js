// The page's side of the simulation workers: a small pool for the whole page (one worker per
// core but one, at least one, at most four: the main thread keeps a core), one client (a
// channel on every worker) per section, results cached per call (so dragging a slider back is
// instant), and a newer request superseding an older one.
//
// A section's sweep is dealt across the workers point by point (point i to worker i mod N).
// Every point is a pure call of the core, so the results do not depend on which worker ran
// it, or on how many there are.
//
// Order: each call has a rank (a sweep's drafts before its full-size points, lab/section.js),
// and a section scrolled out of view adds OFF_SCREEN to every rank of its calls, so the
// sections on screen are computed first and the others wait for them. A worker always runs
// the lowest-ranked point it holds next (lab/worker.js); scrolling shifts the ranks it holds.
//
// A worker can be lost: it fails to load (an error event), its core fails to start (it says
// so), or it stops answering without a word (a worker that closes itself, or is killed, sends
// no event). A worker that holds points and has said nothing for WORKER_DEADLINE_MS counts as lost.
// A lost worker is replaced by a new one (at most once per slot, on average), and the points
// it held go to the workers left, so the numbers are the same. With no worker left, every
// point still waiting answers with an error, the sections say so, and `onTrouble` tells the
// page: no "…" forever, no unhandled rejection, and never a simulation on the main thread.
//
// One call that runs too long must not take the page down with it (a file that took 20 s to
// read once cost every section its workers). A worker says which point it starts, so a loss
// is charged to the point it was running: that point is re-dealt once (the worker may have
// died for another reason), and a point running when a second worker is lost is stopped for
// good, answered with an error (cached, so it is not run again) while every other point is
// re-dealt. Such a loss is the call's, not the pool's: the worker is replaced whatever the
// replacements left, which bound only losses no point is charged with (a point of a job
// already superseded is charged too: each call can cost at most STRIKES workers, so the
// replacements stay bounded by the calls asked).
//
// The pool lives while a client uses it: when the last client closes (every embedded Lab
// panel removed), every worker is terminated and its deadline watch cleared; the next client
// starts new workers.

import {
  WORKER_DEADLINE_MS,
  askWorker,
  deadlineWatch,
  onPageResume,
  watchedWorker,
  workersFromUrl,
} from "../workers.js";

const CACHE_LIMIT = 4000;
/** Added to every rank of a section out of view: all the work on screen goes first. */
export const OFF_SCREEN = 100;

/** Watches the sections' roots: a client whose root leaves the viewport ranks its work later. */
let viewport = null;
const watched = new WeakMap();
function watchVisibility(root, client) {
  if (typeof IntersectionObserver === "undefined" || !root) return;
  viewport ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) watched.get(e.target)?.setVisible(e.isIntersecting);
    },
    { rootMargin: "100px 0px" },
  );
  watched.set(root, client);
  viewport.observe(root);
}

/**
 * What a worker can run, by name (the union of the sections' calls.js, lab/worker.js): a core
 * function under its own name, or the "In code" snippet. A call is typed by its name, so its
 * options and its result are checked against the core's .d.ts; a name that is neither is
 * unchecked.
 * @typedef {import("./api.js").Core & { snippet: () => Record<string, any> }} Callable
 */
/**
 * @template {string} F
 * @typedef {F extends keyof Callable
 *   ? Callable[F] extends (...args: infer A) => unknown ? A : unknown[]
 *   : unknown[]} ArgsOf
 */
/**
 * @template {string} F
 * @typedef {F extends keyof Callable
 *   ? Callable[F] extends (...args: never[]) => infer R ? R : any
 *   : any} ResultOf
 */
/**
 * One call for a worker: the function's name and its arguments (structured-cloneable).
 * @template {string} [F=string]
 * @typedef {{ fn: F, args: ArgsOf<F> }} Call
 */

let shared = null;
const clients = new Map();
let nextChannel = 1;

/** The page's workers: slots that each hold a live worker or null (lost for good). */
class Pool {
  constructor(size) {
    this.size = size;
    this.start();
    onPageResume(() => {
      for (const slot of this.slots) if (slot) slot.heard = performance.now();
    });
    /** Watches the deadline while any worker holds points. */
    this.watch = deadlineWatch((now) => {
      let waiting = false;
      this.slots.forEach((slot, w) => {
        if (!slot || !this.holding(w)) return;
        if (slot.overdue(now))
          this.lose(
            w,
            slot,
            `a simulation worker stopped answering for ${WORKER_DEADLINE_MS / 1000} s`,
          );
        else waiting = true;
      });
      return waiting;
    });
  }

  /** Starts `size` workers (the pool's first use, or its first after `release`). */
  start() {
    this.released = false;
    this.reason = null;
    this.respawns = this.size; // replacements left, shared by every slot
    /** The point each slot's worker said it started and has not answered: `{ channel, id, index }`. */
    this.running = Array.from({ length: this.size }, () => null);
    this.slots = Array.from({ length: this.size }, (_, w) => this.spawn(w));
  }

  /**
   * No client uses the pool any more: every worker is terminated and the deadline watch
   * cleared, so nothing keeps running; the next client starts them again (`pool()`).
   */
  release() {
    for (const slot of this.slots) slot?.stop();
    this.slots = [];
    this.watch.cancel();
    this.released = true;
  }

  spawn(w) {
    const slot = watchedWorker(new URL("./worker.js", import.meta.url), {
      onMessage: (data) => {
        if (data.type === "fatal") return this.lose(w, slot, data.error);
        if (this.slots[w] !== slot) return; // a message of a worker already replaced
        if (data.type === "start") {
          this.running[w] = { channel: data.channel, id: data.id, index: data.index };
          return;
        }
        if (data.type === "point") this.running[w] = null;
        clients.get(data.channel)?.receive(w, data);
      },
      onLost: (message) => this.lose(w, slot, message || "the simulation worker failed to start"),
    });
    if (slot.error === undefined) return slot;
    this.reason = slot.error;
    return null;
  }

  live() {
    return this.slots.flatMap((s, w) => (s ? [w] : []));
  }

  post(w, message) {
    const slot = this.slots[w];
    if (!slot) return;
    slot.post(message, message.type === "job");
  }

  /** Whether slot `w` holds unanswered points of any client. */
  holding(w) {
    for (const c of clients.values()) if (c.active?.assigned[w]?.size) return true;
    return false;
  }

  /**
   * Slot `w`'s worker is lost: the point it was running takes a strike, it is replaced (always
   * when a point is charged, else if a replacement is left), and its points are re-dealt.
   */
  lose(w, slot, reason) {
    if (this.slots[w] !== slot) return; // already replaced
    slot.stop();
    this.reason = reason;
    this.slots[w] = null;
    const running = this.running[w];
    this.running[w] = null;
    const charged = running !== null && clients.has(running.channel);
    if (charged) clients.get(running.channel).strike(running, reason);
    if (charged || this.respawns > 0) {
      if (!charged) this.respawns -= 1;
      this.slots[w] = this.spawn(w);
    }
    console.warn(
      `Lab: ${reason}; ${this.slots[w] ? "started a new worker" : `${this.live().length} worker(s) left`}`,
    );
    for (const c of [...clients.values()]) c.redeal(w);
  }
}

/** The page's pool, started on first use, or again after a release (`?workers=N`, 1–8, for tests). */
function pool() {
  shared ??= new Pool(workersFromUrl(1));
  if (shared.released) shared.start();
  return shared;
}

/**
 * Starts the page's workers now, before any section asks: a worker's module and its core take
 * a few hundred milliseconds to load, which then overlap the page's own start-up. The pool is
 * let go as usual once clients have come and all gone.
 */
export function warmWorkers() {
  pool();
}

/** The page could not mount a section: workers warmed for none are let go. */
export function releaseUnusedWorkers() {
  if (clients.size === 0) shared?.release();
}

/** A client closed: with none left, the pool lets its workers go. */
function clientClosed() {
  if (clients.size === 0) shared?.release();
}

/** Losses a point may be running at before it is stopped for good (see the header). */
export const STRIKES = 2;

/** Each typed array or Blob a call has carried, by identity (SimClient.key). */
const identities = new WeakMap();
let nextIdentity = 1;

export class SimClient {
  /**
   * `onTrouble(message)` hears when no worker is left to compute this client's points; `root`
   * is the section's element, watched so that its work waits while it is out of view.
   * @param {{ onTrouble?: (message: string) => void, root?: Element }} [options]
   */
  constructor({ onTrouble = () => {}, root } = {}) {
    this.pool = pool();
    this.channel = nextChannel++;
    clients.set(this.channel, this);
    this.cache = new Map();
    /** Workers lost while running each call, by call key. */
    this.strikes = new Map();
    this.id = 0;
    this.active = null;
    this.onTrouble = onTrouble;
    this.closed = false;
    /** Whether the section is on screen (until the observer says, from its box at mount). */
    this.visible = true;
    if (root?.isConnected && typeof window !== "undefined") {
      const box = root.getBoundingClientRect();
      this.visible = box.bottom >= -100 && box.top <= window.innerHeight + 100;
    }
    watchVisibility(root, this);
    this.root = root;
  }

  /** The section came into view or left it: the workers re-rank what they hold of it. */
  setVisible(visible) {
    if (this.visible === visible) return;
    this.visible = visible;
    // Every call of the job moves by the same amount, so its order is unchanged: the workers
    // shift the ranks they hold (nothing is sent again, so nothing is computed twice).
    const active = this.active;
    if (!active) return;
    const shift = visible ? -OFF_SCREEN : OFF_SCREEN;
    for (const w of this.pool.slots.keys())
      if (active.assigned[w]?.size)
        this.pool.post(w, { type: "rerank", channel: this.channel, id: active.id, shift });
  }

  /** Whether `call`'s answer is cached (so a sweep need not draft it). */
  cached(call) {
    return this.cache.has(SimClient.key(call));
  }

  /**
   * A call's cache key: its name and every argument, a BigInt seed as its digits. A typed
   * array (a reader's distribution, its knots) or a Blob (a dropped file) stands for itself by
   * identity: the same object is the same argument, without writing out its contents.
   */
  static key(call) {
    return JSON.stringify(call, (_, v) => {
      if (typeof v === "bigint") return { bigint: String(v) };
      if (ArrayBuffer.isView(v) || (typeof Blob !== "undefined" && v instanceof Blob)) {
        if (!identities.has(v)) identities.set(v, nextIdentity++);
        return { object: identities.get(v) };
      }
      return v;
    });
  }

  /**
   * Runs `calls` (`{ fn, args }`), calling `onPoint(index, result, error)` as each arrives
   * (cached ones at once) and `onProgress(done, total)`. Resolves when every call has answered
   * (with a result or an error); a newer `run` supersedes this one, which then never resolves.
   * `ranks[i]` orders the calls on the workers (lowest first, ties in index order; 0 when not
   * given); results do not depend on it.
   * @template {string} F
   * @param {Call<F>[]} calls
   * @param {{
   *   onPoint?: (index: number, result: ResultOf<F> | undefined, error: string | undefined) => void,
   *   onProgress?: (done: number, total: number) => void,
   *   ranks?: number[],
   * }} [handlers]
   * @returns {Promise<void>}
   */
  run(calls, { onPoint = () => {}, onProgress = () => {}, ranks = [] } = {}) {
    if (this.closed) return new Promise(() => {});
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
      this.cancel();
      return Promise.resolve();
    }
    return new Promise((/** @type {(value?: void) => void} */ resolve) => {
      const active = {
        id,
        calls,
        ranks,
        pending: new Set(missing),
        // Which unanswered points each worker slot holds.
        assigned: this.pool.slots.map(() => new Set()),
        answer: (index, result, error, cache = true) => {
          if (!active.pending.delete(index)) return; // answered already (a re-dealt point)
          for (const a of active.assigned) a.delete(index);
          if (cache) {
            if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value);
            const key = SimClient.key(calls[index]);
            this.cache.set(key, { result, error });
            // An answered call's strike (a loss it survived) is forgotten: the map holds only
            // calls still unanswered.
            this.strikes.delete(key);
          }
          done++;
          onPoint(index, result, error);
          onProgress(done, total);
          if (active.pending.size === 0) {
            if (this.active === active) this.active = null;
            resolve();
          }
        },
      };
      this.active = active;
      const live = this.pool.live();
      // Point k of the missing ones goes to live worker k mod N, each share in its order.
      if (live.length > 0) {
        for (const [k, index] of missing.entries())
          active.assigned[live[k % live.length]].add(index);
      }
      for (const w of this.pool.slots.keys()) this.send(w);
      if (live.length === 0) this.failAll();
    });
  }

  /** Sends slot `w` every point it holds of the active run (replacing its job there), or a cancel. */
  send(w) {
    const active = this.active;
    const held = active?.assigned[w];
    if (!held?.size) {
      this.pool.post(w, { type: "cancel", channel: this.channel });
      return;
    }
    const offset = this.visible ? 0 : OFF_SCREEN;
    const rank = (i) => (active.ranks[i] ?? 0) + offset;
    const indices = [...held].sort((a, b) => rank(a) - rank(b) || a - b);
    this.pool.post(w, {
      type: "job",
      channel: this.channel,
      id: active.id,
      indices,
      calls: indices.map((i) => active.calls[i]),
      ranks: indices.map(rank),
    });
    this.pool.watch();
  }

  /** Slot `w` lost its worker: its points go to the workers left (a new one in its slot, if any). */
  redeal(w) {
    const active = this.active;
    if (!active) return;
    const orphans = [...active.assigned[w]];
    active.assigned[w].clear();
    const live = this.pool.live();
    if (live.length === 0) return this.failAll();
    const touched = new Set();
    orphans.forEach((index, k) => {
      const to = live[k % live.length];
      active.assigned[to].add(index);
      touched.add(to);
    });
    for (const to of touched) this.send(to);
  }

  /**
   * A worker was lost while running point `index` of job `id`: the call takes a strike, and at
   * STRIKES it is stopped, answered with an error that is cached (so the same call, asked
   * again, answers at once instead of costing another worker). The other points are re-dealt.
   * @param {{ id: number, index: number }} running
   * @param {string} reason
   */
  strike({ id, index }, reason) {
    const active = this.active;
    if (!active || active.id !== id || !active.pending.has(index)) return; // superseded
    const key = SimClient.key(active.calls[index]);
    const strikes = (this.strikes.get(key) ?? 0) + 1;
    this.strikes.set(key, strikes);
    if (strikes < STRIKES) return;
    this.strikes.delete(key);
    active.answer(
      index,
      undefined,
      `this computation was stopped: it was running when ${STRIKES} workers stopped answering (the last: ${reason}). The other sections carry on; change its settings to try again`,
    );
  }

  /** No worker left: every waiting point answers with an error (not cached), and the page hears why. */
  failAll() {
    const active = this.active;
    if (!active) return;
    const message = `the simulation workers stopped (${this.pool.reason ?? "no worker could start"})`;
    this.onTrouble(`${message}; reload the page to try again`);
    for (const index of [...active.pending]) active.answer(index, undefined, message, false);
  }

  receive(_w, message) {
    const active = this.active;
    if (!active || message.id !== active.id || message.type !== "point") return;
    active.answer(message.index, message.result, message.error);
  }

  /** Drops the active run, on every worker. */
  cancel() {
    this.active = null;
    for (const w of this.pool.slots.keys())
      this.pool.post(w, { type: "cancel", channel: this.channel });
  }

  /** The section is gone: its jobs are dropped on every worker and nothing more is sent. */
  close() {
    this.cancel();
    this.closed = true;
    this.cache.clear();
    if (this.root) viewport?.unobserve(this.root);
    if (clients.delete(this.channel)) clientClosed();
  }
}

/**
 * What the page's workers hold, for tests: `{ workers, clients, waiting }` (live workers, open
 * clients, points not answered). With no client open the pool has let its workers go:
 * `workers` is 0 until the next client.
 */
export function labWorkStatus() {
  let waiting = 0;
  for (const c of clients.values()) waiting += c.active?.pending.size ?? 0;
  return { workers: shared ? shared.live().length : 0, clients: clients.size, waiting };
}

/**
 * Asks every live worker how many jobs it still holds; resolves to their sum. A worker answers
 * after the messages sent before it, so a cancel sent earlier is counted. (For tests.)
 */
export function labWorkerJobs() {
  if (!shared) return Promise.resolve(0);
  return Promise.all(
    shared.slots.filter(Boolean).map((slot) => askWorker(slot.worker, { type: "status" })),
  ).then((answers) => answers.reduce((sum, { jobs }) => sum + jobs, 0));
}

/**
 * The memory of every live worker, in slot order: `{ heapBytes, wasmBytes }`, the core's live
 * heap (`heapBytes()`) and its wasm memory's size, in bytes, as the worker reads them once
 * every job it holds has answered. A worker whose core could not start answers
 * `{ error }`. (For tests.)
 * @returns {Promise<{ heapBytes: number, wasmBytes: number, error?: string }[]>}
 */
export function labWorkerHeaps() {
  if (!shared) return Promise.resolve([]);
  return Promise.all(
    shared.slots.filter(Boolean).map((s) => askWorker(s.worker, { type: "heap" })),
  );
}
