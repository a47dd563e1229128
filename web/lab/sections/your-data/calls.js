// What this section asks the Lab's workers to run (lab/worker.js dispatches the union of every
// section's calls): call name → function, given the core's module. Runs in a worker, never on
// the main thread.

/**
 * `parseLatencies` on text, or on a Blob (a dropped file, or a long paste): the Blob is read
 * here, in the worker, with `FileReaderSync`, so a file of millions of lines never passes
 * through the page's main thread.
 */
const readLatencies = (core) => (source, options) => {
  if (typeof Blob !== "undefined" && source instanceof Blob) {
    const Reader = /** @type {any} */ (globalThis).FileReaderSync;
    if (!Reader) throw new TypeError("files can only be read in a worker");
    return core.parseLatencies(new Uint8Array(new Reader().readAsArrayBuffer(source)), options);
  }
  return core.parseLatencies(source, options);
};

export const calls = (core) => ({
  parseLatencies: readLatencies(core),
  exampleLatencies: core.exampleLatencies,
  simulateEmpirical: core.simulateEmpirical,
});
