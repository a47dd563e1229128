// The service model every Lab section that takes one runs on: the Lab's own (a lognormal body
// with a rare slow mode, the core's default) unless the reader has given their own latencies in
// the "your data" section, which sets it for the whole page. No DOM here, so node tests import
// it (lab/section.js re-exports it).

/**
 * The page's service model: `value` is the `service` option every section passes to its
 * simulations (`undefined` for the Lab's own model), `label` says in words what it is ("the
 * Lab's model", "your data: 10,000 samples"). `set(value, label)` changes both and tells every
 * watcher, which re-runs its section.
 */
export class LabService {
  constructor() {
    /** @type {import("../pkg/tail_lab.js").ServiceOptions | undefined} */
    this.value = undefined;
    /** @type {string} */
    this.label = "the Lab's model";
    /** @type {Set<(value: import("../pkg/tail_lab.js").ServiceOptions | undefined) => void>} */
    this.watchers = new Set();
  }

  /** True when the sections run on the reader's own data. */
  get own() {
    return this.value !== undefined;
  }

  /**
   * @param {import("../pkg/tail_lab.js").ServiceOptions | undefined} value a `service` option
   *   the core has already accepted, or `undefined` for the Lab's model
   * @param {string} [label]
   */
  set(value, label = "the Lab's model") {
    if (value === this.value && label === this.label) return;
    this.value = value;
    this.label = label;
    for (const fn of [...this.watchers]) fn(value);
  }

  /**
   * Calls `fn(value)` after every change, until `signal` aborts (the section was removed).
   * @param {(value: import("../pkg/tail_lab.js").ServiceOptions | undefined) => void} fn
   * @param {AbortSignal} [signal]
   */
  watch(fn, signal) {
    if (signal?.aborted) return;
    this.watchers.add(fn);
    signal?.addEventListener("abort", () => this.watchers.delete(fn), { once: true });
  }
}
