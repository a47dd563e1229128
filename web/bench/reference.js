// The plain-JavaScript baseline the benchmark compares the wasm core with, written the way the
// seed documents describe theirs: a mulberry32 uniform generator, a Box–Muller normal, a
// lognormal body plus an occasional additive pause, the max over the leaves, and both
// distributions binned into log-spaced histograms (via Math.log) as they accumulate.
// It is a benchmark baseline only; the page never uses it.

const BINS_PER_OCTAVE = 35,
  FIRST_MS = 0.0625,
  BIN_COUNT = 840;
const PER_LN = BINS_PER_OCTAVE / Math.LN2;

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normal(rand) {
  let u = 0;
  while (u === 0) u = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

function bin(t) {
  const b = Math.floor(Math.log(t / FIRST_MS) * PER_LN);
  return b < 0 ? 0 : b >= BIN_COUNT ? BIN_COUNT - 1 : b;
}

/** Simulates `requests` parents over `fanout` leaves of the default profile, binning both. */
export function referenceRun(requests, fanout, seed = 1) {
  const rand = mulberry32(seed);
  const leaf = new Float64Array(BIN_COUNT),
    parent = new Float64Array(BIN_COUNT);
  for (let k = 0; k < requests; k++) {
    let max = 0;
    for (let i = 0; i < fanout; i++) {
      let t = 4 * Math.exp(0.43 * normal(rand));
      if (rand() < 0.005) t += 110 * Math.exp(0.5 * normal(rand));
      leaf[bin(t)] += 1;
      if (t > max) max = t;
    }
    parent[bin(max)] += 1;
  }
  return { leaf, parent };
}
