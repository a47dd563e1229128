// The Lab's simulation worker: runs the core's API calls off the main thread, one point at a
// time, so a newer request from a slider can supersede a sweep between two points.
//
// Protocol (messages from the page):
//   { type: "job", id, calls: [{ fn, args: [...] }, ...] }  run these in order
//   { type: "cancel", id }                                   drop job `id` and anything older
// Replies: { type: "point", id, index, result | error } per call, then { type: "done", id }.

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
let newest = 0;

const yieldToMessages = () => new Promise((resolve) => setTimeout(resolve, 0));

async function run({ id, calls }) {
  await ready;
  for (let index = 0; index < calls.length; index++) {
    if (id !== newest) return;
    const { fn, args } = calls[index];
    try {
      if (!Object.hasOwn(CALLS, fn)) throw new TypeError(`unknown call ${fn}`);
      postMessage({ type: "point", id, index, result: CALLS[fn](...args) });
    } catch (err) {
      postMessage({ type: "point", id, index, error: `${err.name}: ${err.message}` });
    }
    await yieldToMessages();
  }
  if (id === newest) postMessage({ type: "done", id });
}

self.onmessage = (event) => {
  const message = event.data;
  newest = Math.max(newest, message.id);
  if (message.type === "job") run(message);
};
