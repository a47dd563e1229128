// A Tail accumulation worker: runs blocks of requests for the page's panels and sends back what
// each block accumulated, its two histogram buffers transferred (not copied, and no
// SharedArrayBuffer, so no cross-origin isolation is needed).
//
// Message in:  { channel, generation, index, options, first, count }
// Message out: { channel, generation, index, block } or { channel, generation, index, error }
// For tests, { type: "heap" } with a port: answers { heapBytes, wasmBytes } on the port (the
// core's live heap and its wasm memory, in bytes), after the blocks sent before it.
// For the page's "your data" profile, with a port: { type: "parse", source, options } answers
// `parseLatencies(source, options)` as { result } or { error, line } (source: text, or a Blob
// read here, so a big file never passes through the main thread); { type: "example" } answers
// { result: exampleLatencies() }.
//
// A block's result depends only on its options and range: the run is reset before each block,
// and samples are addressed. So whichever worker runs a block, and however many there are, the
// page's merged histograms are the same bits.

import init from "../pkg/tail_lab.js";
import { loadCore } from "../wasm.js";

const ready = loadCore();
ready.catch(() => {}); // each block's handler reports it
/**
 * Runs by profile and seed (what their calibration depends on), newest last. A change of
 * fan-out or fix reconfigures the run, reusing its calibration; a few runs are kept so
 * switching profiles back and forth stays cheap.
 */
const runs = new Map();
const KEEP = 4;

/** FNV-1a over the 32-bit words of a reader's knots: which data a "yours" run draws from. */
function knotsKey(leaves) {
  let h = 0x811c9dc5;
  for (const a of [leaves.empirical.levels, leaves.empirical.ms]) {
    for (const w of new Uint32Array(a.buffer, a.byteOffset, a.length * 2))
      h = Math.imul(h ^ w, 0x01000193) >>> 0;
  }
  return `${leaves.empirical.ms.length}:${h.toString(16)}`;
}

const key = ({ profile, seed, leaves }) =>
  `${profile}/${seed}${profile === "yours" ? `/${knotsKey(leaves)}` : ""}`;
/** The fan-out and fix each kept run was last set to (not read back from the run: on "yours"
 * its `config` copies the knots). */
const applied = new WeakMap();

function runFor(api, options) {
  const k = key(options);
  let run = runs.get(k);
  if (run) {
    runs.delete(k);
    const c = applied.get(run);
    if (c.fanout !== options.fanout || c.fix !== options.fix) run.reconfigure(options);
  } else {
    run = new api.TailRun(options);
    if (runs.size >= KEEP) {
      const [oldest, old] = runs.entries().next().value;
      runs.delete(oldest);
      old.free();
    }
  }
  runs.set(k, run);
  applied.set(run, { fanout: options.fanout, fix: options.fix });
  return run;
}

/**
 * The core's live heap and its wasm memory's size, in bytes (`init()` again gives the live
 * instance's exports). A block's handler runs to its end in the microtask after the core is
 * ready, so this is read after every block sent before the question.
 */
async function heap() {
  try {
    const api = await ready;
    return { heapBytes: api.heapBytes(), wasmBytes: (await init()).memory.buffer.byteLength };
  } catch (err) {
    return { error: `${err.name}: ${err.message}` };
  }
}

/** `parseLatencies` (or the bundled example) for the page's "your data" profile. */
async function parse({ type, source, options }) {
  try {
    const api = await ready;
    if (type === "example") return { result: api.exampleLatencies() };
    const text =
      typeof Blob !== "undefined" && source instanceof Blob
        ? new Uint8Array(await source.arrayBuffer())
        : source;
    return { result: api.parseLatencies(text, options) };
  } catch (err) {
    return { error: `${err.name}: ${err.message}`, line: err.line ?? null };
  }
}

self.onmessage = async ({ data, ports }) => {
  if (data.type === "heap") {
    ports[0]?.postMessage(await heap());
    return;
  }
  if (data.type === "parse" || data.type === "example") {
    ports[0]?.postMessage(await parse(data));
    return;
  }
  const { channel, generation, index, options, first, count } = data;
  try {
    const api = await ready;
    const run = runFor(api, options);
    run.reset();
    run.runRange(first, count);
    const block = run.block();
    postMessage({ channel, generation, index, block }, [
      block.leafCounts.buffer,
      block.parentCounts.buffer,
    ]);
  } catch (err) {
    postMessage({ channel, generation, index, error: `${err.name}: ${err.message}` });
  }
};
