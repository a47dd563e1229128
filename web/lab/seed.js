// The Lab's one seed: the setting (`seed`, the Lab page's URL parameter and an embedded Lab
// panel's attribute) and the value every section's simulations read, which tells the sections
// when it changes. No DOM here, so node tests import it (lab/section.js re-exports both).

/**
 * The Lab's seed as a setting: the URL parameter `seed` on the Lab page and the attribute
 * `seed` of an embedded Lab panel, read as the Tail's seed is (params.js: 0 to 2^64 − 1, a
 * BigInt above 2^53 − 1). The default, 1, is the seed every default number on the page is at.
 */
export const SEED_PARAM = Object.freeze({ name: "seed", type: "seed", default: 1 });

/**
 * The seed a Lab section's simulations run at: one for the whole page (lab/main.js), or one per
 * embedded panel. `value` is a number, or a BigInt above 2^53 − 1 (the core takes both
 * exactly); `set(value)` changes it and tells every watcher, which re-runs its section.
 */
export class LabSeed {
  /** @param {number | bigint} [value] */
  constructor(value = SEED_PARAM.default) {
    /** @type {number | bigint} */
    this.value = value;
    /** @type {Set<(value: number | bigint) => void>} */
    this.watchers = new Set();
  }

  /** @param {number | bigint} value an already checked seed (params.js's `parseSeed`) */
  set(value) {
    if (value === this.value) return;
    this.value = value;
    for (const fn of [...this.watchers]) fn(value);
  }

  /**
   * Calls `fn(value)` after every change, until `signal` aborts (the section was removed).
   * @param {(value: number | bigint) => void} fn
   * @param {AbortSignal} [signal]
   */
  watch(fn, signal) {
    if (signal?.aborted) return;
    this.watchers.add(fn);
    signal?.addEventListener("abort", () => this.watchers.delete(fn), { once: true });
  }
}
