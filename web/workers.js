// How many Web Workers a page starts for its background work (the Tail piece's accumulation
// pool and the Lab's sweep pool): the one rule, and the one test hook; how a worker's silence
// is watched; and what tests ask a worker (`askWorker`) and count (`runningWorkers`).

/**
 * One per core the browser reports but one, which stays with the main thread so frames keep
 * the display rate; at most four, at least one. (Measured on two cores: two Tail workers
 * accumulate 10^6 requests in 1.9 s against 2.4 s for one, but frame times reach 33 ms at p95
 * against 16.8 ms; BENCHMARKS.md.)
 */
export function defaultWorkers() {
  return Math.max(1, Math.min(4, (navigator.hardwareConcurrency || 2) - 1));
}

/**
 * `?workers=N` from the page's URL when it is a whole number from `min` to 8 (a test and
 * benchmark hook), else `defaultWorkers()`.
 */
export function workersFromUrl(min) {
  const asked =
    typeof location === "undefined" ? null : new URLSearchParams(location.search).get("workers");
  const n = asked !== null && /^[0-8]$/.test(asked) ? Number(asked) : NaN;
  return n >= min ? n : defaultWorkers();
}

/**
 * How long a worker holding work may stay silent before it counts as lost (ms). A Lab point or
 * a Tail block takes well under a second (the core bounds a call at about two); starting a
 * worker and its core takes a few seconds on a busy machine. Generous, so a slow machine loses
 * nothing. A worker that closes itself, or is killed, sends no event: the deadline is how its
 * loss is noticed.
 */
export const WORKER_DEADLINE_MS = 10_000;

/** This module's directory, which worker scripts are named from in `runningWorkers`. */
const HERE = new URL("./", import.meta.url).href;

/** The script of every worker started and not yet stopped (see `runningWorkers`). */
const running = new Map();

/**
 * The workers started through `watchedWorker` and not yet stopped, by script relative to this
 * module (`{ "lab/worker.js": 2, "tail/worker.js": 1 }`; a script with none is absent). For
 * tests: a pool that has let its workers go leaves none here.
 * @returns {Record<string, number>}
 */
export function runningWorkers() {
  const counts = {};
  for (const script of running.values()) counts[script] = (counts[script] ?? 0) + 1;
  return counts;
}

/**
 * Asks `worker` one question (`message`, with a MessagePort it answers on) and resolves to the
 * answer. A worker answers after the messages sent before it. (For tests: a worker that is
 * terminated meanwhile never answers.)
 * @param {Worker} worker
 * @param {{ type: string }} message
 * @returns {Promise<any>}
 */
export function askWorker(worker, message) {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = ({ data }) => {
      port1.close();
      resolve(data);
    };
    worker.postMessage(message, [port2]);
  });
}

/** The same-origin stand-in of each cross-origin worker script (see `workerScript`). */
const standIns = new Map();

/**
 * What `new Worker` is given for the module `url`: `url` itself when it is on the page's origin,
 * else a Blob URL (which is on the page's origin) of a one-line module that imports it. A page
 * may not start a worker from another origin's script, but a module may import one that the
 * lab's host serves with CORS headers; the worker's own imports (the core, its wasm) then load
 * from the lab's host too. One stand-in per script, kept for the page's life (a few bytes).
 * Same-origin workers start exactly as before, from their own URL.
 * @param {string | URL} url
 */
export function workerScript(url) {
  if (typeof location === "undefined") return url; // node's tests, with a stand-in Worker
  const href = new URL(url, location.href).href;
  if (new URL(href).origin === location.origin) return href;
  let standIn = standIns.get(href);
  if (!standIn) {
    // The address is our own script's (import.meta.url's), written as a JSON string literal.
    const source = `import ${JSON.stringify(href)};\n`;
    standIn = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    standIns.set(href, standIn);
  }
  return standIn;
}

/**
 * A module Worker whose silence is watched: `{ worker, heard, asked, post, overdue, stop }`,
 * or `{ error }` when it cannot be constructed. `heard` is when its last message came, `asked`
 * when it was first sent work it has not answered since; `post(message, work)` sends (work
 * starts `asked`), `overdue(now)` says it has held work past the deadline, `stop()` detaches
 * and terminates it. `onMessage(data)` hears each message; `onLost(message)` an error event.
 */
export function watchedWorker(url, { onMessage, onLost }) {
  let worker;
  try {
    worker = new Worker(workerScript(url), { type: "module" });
  } catch (err) {
    return { error: err.message };
  }
  const script = String(url).startsWith(HERE) ? String(url).slice(HERE.length) : String(url);
  const watched = {
    worker,
    heard: performance.now(),
    asked: null,
    post(message, work, transfer) {
      if (work) watched.asked ??= performance.now();
      worker.postMessage(message, transfer ?? []);
    },
    overdue: (now) =>
      now - Math.max(watched.heard, watched.asked ?? -Infinity) >= WORKER_DEADLINE_MS,
    stop() {
      worker.onmessage = null;
      worker.onerror = null;
      worker.terminate();
      running.delete(watched);
    },
  };
  running.set(watched, script);
  worker.onmessage = ({ data }) => {
    watched.heard = performance.now();
    watched.asked = null;
    onMessage(data);
  };
  worker.onerror = (event) => {
    event.preventDefault?.();
    onLost(event.message);
  };
  return watched;
}

/**
 * `restart()` whenever a frozen or hidden page comes back: it froze its workers and timers
 * alike, so deadlines start again.
 */
export function onPageResume(restart) {
  document.addEventListener("resume", restart);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) restart();
  });
}

/**
 * A deadline watch: the returned `arm()` runs `tick(now)` a quarter deadline later, and again
 * while it returns true; one timer at a time. `arm.cancel()` clears the timer (a pool that
 * lets its workers go).
 */
export function deadlineWatch(tick) {
  let timer = null;
  const arm = () => {
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      if (tick(performance.now())) arm();
    }, WORKER_DEADLINE_MS / 4);
  };
  arm.cancel = () => {
    clearTimeout(timer);
    timer = null;
  };
  return arm;
}
