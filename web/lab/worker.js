// A Lab simulation worker, one of the page's pool (lab/sim.js), shared by every section. It runs
// the core's API calls off the main thread one point at a time, taking turns between the
// sections' jobs, so a newer request from a slider supersedes a sweep between two points and no
// section waits for another's whole sweep. The pool has one worker per core but one, so the main
// thread keeps a core of its own.
//
// Protocol (messages from the page), per `channel` (one per section):
//   { type: "job", channel, id, indices, calls: [{ fn, args: [...] }, ...], ranks }
//                                     replaces that channel's job (indices: the calls' numbers;
//                                     ranks: each call's rank, ascending within the job)
//   { type: "cancel", channel }       drops it
//   { type: "rerank", channel, id, shift }
//                                     adds shift to the ranks of that channel's job (its
//                                     section scrolled in or out of view)
//   { type: "status" } with a port    answers { jobs } on the port (for tests)
//   { type: "heap" } with a port      answers { heapBytes, wasmBytes } on the port once every job
//                                     has answered (the core's live heap and wasm memory, bytes)
// Replies: { type: "start", channel, id, index } as each call begins; { type: "point", channel,
// id, index, result | error } for each call, in order, with the index the page gave it;
// { type: "fatal", error } if the core cannot start here.

import init from "../pkg/tail_lab.js";
import { loadCore } from "../wasm.js";
import { loadCalls } from "./sections.js";

/** What a page may ask for: the union of every section's calls.js (lab/sections.js). */
const ready = loadCore().then(loadCalls);
ready.catch(() => {}); // handled in pump, which says so to the page
let CALLS = null;
const jobs = new Map();
let pumping = false;

// A yield between two points, so the page's newer messages are read first. Through a message
// to ourselves, not `setTimeout(0)`: nested timers are clamped to 4 ms after five levels, which
// cost 4 ms a point (half a second over a sweep's drafts).
// Several awaiters at once (the pump, a heap question) each get their own wake-up, in order.
const yieldPort = new MessageChannel();
const waking = [];
yieldPort.port1.onmessage = () => waking.shift()?.();
const yieldToMessages = () =>
  new Promise((resolve) => {
    waking.push(resolve);
    yieldPort.port2.postMessage(null);
  });

function step(channel, job) {
  const { fn, args } = job.calls[job.index];
  const index = job.indices[job.index];
  // Said before the call runs, so that if this worker goes silent the page knows which point it
  // was running (lab/sim.js: a point running on two lost workers is stopped, not re-dealt).
  postMessage({ type: "start", channel, id: job.id, index });
  try {
    if (!Object.hasOwn(CALLS, fn)) throw new TypeError(`unknown call ${fn}`);
    postMessage({ type: "point", channel, id: job.id, index, result: CALLS[fn](...args) });
  } catch (err) {
    postMessage({
      type: "point",
      channel,
      id: job.id,
      index,
      error: `${err.name}: ${err.message}`,
    });
  }
  job.index += 1;
  if (job.index >= job.calls.length) jobs.delete(channel);
}

/** Where the round of channels starts next: equal ranks take turns. */
let turn = 0;

/** The channel whose next call has the lowest rank (equal ranks in turn), or null. */
function next() {
  const entries = [...jobs];
  let best = null;
  let bestRank = Number.POSITIVE_INFINITY;
  for (let k = 0; k < entries.length; k++) {
    const [channel, job] = entries[(turn + k) % entries.length];
    const rank = job.ranks?.[job.index] ?? 0;
    if (rank < bestRank) {
      best = channel;
      bestRank = rank;
    }
  }
  turn += 1;
  return best;
}

async function pump() {
  pumping = true;
  try {
    CALLS = await ready;
  } catch (err) {
    // No core here: the page replaces this worker and deals its points elsewhere.
    postMessage({
      type: "fatal",
      error: `the simulation core could not start in a worker: ${err.message}`,
    });
    return;
  }
  while (jobs.size > 0) {
    // The lowest-ranked point of any channel, equal ranks in turn; messages that arrived
    // meanwhile replace jobs before the next one is chosen.
    const channel = next();
    step(channel, jobs.get(channel));
    await yieldToMessages();
  }
  pumping = false;
}

/**
 * The core's live heap and its wasm memory's size, in bytes, read once the worker has no job
 * left (every point sent before the question has answered, or was cancelled); `init()` again
 * gives the live instance's exports.
 */
async function heap() {
  try {
    const api = await loadCore();
    await ready;
    while (pumping) await yieldToMessages();
    return { heapBytes: api.heapBytes(), wasmBytes: (await init()).memory.buffer.byteLength };
  } catch (err) {
    return { error: `${err.name}: ${err.message}` };
  }
}

self.onmessage = (event) => {
  const m = event.data;
  if (m.type === "status") {
    event.ports[0]?.postMessage({ jobs: jobs.size });
    return;
  }
  if (m.type === "heap") {
    const port = event.ports[0];
    heap().then((answer) => port?.postMessage(answer));
    return;
  }
  if (m.type === "job")
    jobs.set(m.channel, { id: m.id, calls: m.calls, indices: m.indices, ranks: m.ranks, index: 0 });
  else if (m.type === "cancel") jobs.delete(m.channel);
  else if (m.type === "rerank") {
    // The section scrolled in or out of view: its job's ranks move, its order does not.
    const job = jobs.get(m.channel);
    if (job && job.id === m.id && job.ranks) job.ranks = job.ranks.map((r) => r + m.shift);
  }
  if (!pumping) pump();
};
