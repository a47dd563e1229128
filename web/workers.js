// How many Web Workers a page starts for its background work (the Tail piece's accumulation
// pool and the Lab's sweep pool): the one rule, and the one test hook.

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
  const asked = typeof location === "undefined" ? null : new URLSearchParams(location.search).get("workers");
  const n = asked !== null && /^[0-8]$/.test(asked) ? Number(asked) : NaN;
  return n >= min ? n : defaultWorkers();
}
