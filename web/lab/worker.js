// The Lab's simulation worker: one per page, shared by every section. It runs the core's API
// calls off the main thread one point at a time, taking turns between the sections' jobs, so a
// newer request from a slider supersedes a sweep between two points and no section waits for
// another's whole sweep. One worker (not one per section) leaves the main thread a core of its
// own on a two-core machine.
//
// Protocol (messages from the page), per `channel` (one per section):
//   { type: "job", channel, id, calls: [{ fn, args: [...] }, ...] }  replaces that channel's job
//   { type: "cancel", channel }                                         drops it
// Replies: { type: "point", channel, id, index, result | error }, then { type: "done", channel, id }.

import * as api from "../pkg/tail_lab.js";
import { loadCore } from "../wasm.js";
import { snippet } from "./snippet.js";

/** What a page may ask for: the simulations, and the snippet of the "In code" section. */
const CALLS = {
  simulateFanout: api.simulateFanout,
  simulateHedge: api.simulateHedge,
  simulateLoaded: api.simulateLoaded,
  simulateBalance: api.simulateBalance,
  snippet,
};

const ready = loadCore();
const jobs = new Map();
let pumping = false;

const yieldToMessages = () => new Promise((resolve) => setTimeout(resolve, 0));

function step(channel, job) {
  const { fn, args } = job.calls[job.index];
  try {
    if (!Object.hasOwn(CALLS, fn)) throw new TypeError(`unknown call ${fn}`);
    postMessage({ type: "point", channel, id: job.id, index: job.index, result: CALLS[fn](...args) });
  } catch (err) {
    postMessage({ type: "point", channel, id: job.id, index: job.index, error: `${err.name}: ${err.message}` });
  }
  job.index += 1;
  if (job.index >= job.calls.length) {
    jobs.delete(channel);
    postMessage({ type: "done", channel, id: job.id });
  }
}

async function pump() {
  pumping = true;
  await ready;
  while (jobs.size > 0) {
    // One point for each channel in turn; messages that arrived meanwhile replace jobs.
    for (const [channel, job] of [...jobs]) {
      if (jobs.get(channel) === job) step(channel, job);
      await yieldToMessages();
    }
  }
  pumping = false;
}

self.onmessage = (event) => {
  const m = event.data;
  if (m.type === "job") jobs.set(m.channel, { id: m.id, calls: m.calls, index: 0 });
  else if (m.type === "cancel") jobs.delete(m.channel);
  if (!pumping) pump();
};
