// The plain-JavaScript baseline a performance-minded engineer would write for the same leaf
// model (issue 11): the algorithmic tricks the wasm core uses, in JS, so the comparison measures
// the language and not the algorithm.
//
// - an inline 32-bit generator (mulberry32 with Math.imul), its state a local variable;
// - inverse-CDF tables of 2^16 cells for the body and the pause (one lookup, no exp or log per
//   leaf), built once with Acklam's inverse normal;
// - one 32-bit draw per leaf: its top 16 bits pick the body's cell and its low 16 bits decide
//   the pause (p rounded to a multiple of 2^-16: 0.005 becomes 0.0050049, a change no
//   histogram here can see); a second draw only for the 0.5% of leaves that pause. (A separate
//   draw for the decision measured 1.6× slower in V8.)
// - float-bit binning: the top word of the latency's float64 bits (exponent and top mantissa
//   bits) indexes a 4,096-entry cell → bin table, and one comparison with the next edge makes
//   the bin exact (a cell is 1/128 octave, a bin 1/35, so a cell holds at most one edge);
// - typed-array histograms on the same 840 bins as the core;
// - in `fastRunCellBins`, the best of them: the bin of every body cell looked up once at
//   set-up (a cell's latency is one fixed number here), so an unpaused leaf is binned with one
//   load. The core bins from its cells too (`sampling/cell_bins.rs`), so the wasm core is
//   compared against this one; `fastRun`, the recipe as issue 11 first listed it, is reported
//   beside it. (Uint32Array counts measured no faster than Float64Array in V8.)
//
// What it does not do, and the core does: address every draw (any leaf of any request is
// reachable without running the ones before it, which is what lets fan-out change without
// moving the first leaves and lets workers split requests), and refine the tables' tails
// (the core's table resolves the far tail octave by octave; a 2^16-cell table stops at the
// 1 − 2^-17 quantile). It is a benchmark baseline only; the site never imports it.

const CELLS = 1 << 16;
const BINS_PER_OCTAVE = 35,
  FIRST_OCTAVE = -4,
  OCTAVES = 24,
  BIN_COUNT = BINS_PER_OCTAVE * OCTAVES;
const CELL_MANTISSA_BITS = 7; // 128 cells an octave
const CELL_OCTAVES = 32; // 4,096 cells in all
const EXP_BIAS_FIRST = 1023 + FIRST_OCTAVE;

/** Acklam's inverse of the standard normal CDF (relative error below 1.2e-9). */
function inverseNormal(p) {
  const a = [
    -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2,
    -3.066479806614716e1, 2.506628277459239,
  ];
  const b = [
    -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1,
    -1.328068155288572e1,
  ];
  const c = [
    -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734,
    4.374664141464968, 2.938163982698783,
  ];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
      ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    );
  }
  if (p > 1 - lo) return -inverseNormal(1 - p);
  const q = p - 0.5,
    r = q * q;
  return (
    ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  );
}

/** A lognormal's quantiles at the 2^16 cell midpoints. */
function lognormalTable(medianMs, sigma) {
  const t = new Float64Array(CELLS);
  for (let i = 0; i < CELLS; i++)
    t[i] = medianMs * Math.exp(sigma * inverseNormal((i + 0.5) / CELLS));
  return t;
}

/** The core's 840 log-spaced bin edges (35 an octave from 0.0625 ms), and the cell → bin map. */
function bins() {
  const edges = new Float64Array(BIN_COUNT + 1);
  for (let o = 0; o < OCTAVES; o++) {
    for (let j = 0; j < BINS_PER_OCTAVE; j++)
      edges[o * BINS_PER_OCTAVE + j] = 2 ** (FIRST_OCTAVE + o) * 2 ** (j / BINS_PER_OCTAVE);
  }
  edges[BIN_COUNT] = 2 ** (FIRST_OCTAVE + OCTAVES);
  const cellBin = new Uint16Array(CELL_OCTAVES << CELL_MANTISSA_BITS);
  for (let cell = 0; cell < cellBin.length; cell++) {
    const o = cell >>> CELL_MANTISSA_BITS;
    const lower =
      2 ** (FIRST_OCTAVE + o) *
      (1 + (cell & ((1 << CELL_MANTISSA_BITS) - 1)) / (1 << CELL_MANTISSA_BITS));
    let b = 0;
    while (b < BIN_COUNT - 1 && edges[b + 1] <= lower) b++;
    cellBin[cell] = b;
  }
  return { edges, cellBin };
}

/** The shared bin of `t` ms by float-bit binning (the set-up's and the rare paths' version). */
function binOf(t, edges, cellBin, f64, hiWord) {
  f64[0] = t;
  const hi = hiWord[0];
  const o = (hi >>> 20) - EXP_BIAS_FIRST;
  if (o < 0) return 0;
  if (o >= OCTAVES) return BIN_COUNT - 1;
  const b = cellBin[(o << 7) | ((hi >>> 13) & 127)];
  return t >= edges[b + 1] ? b + 1 : b;
}

const cache = new Map();
/** The tables for a profile, built once (set-up, not timed with the loop). */
export function prepareFast({
  bodyMedianMs = 4,
  bodySigma = 0.43,
  pauseP = 0.005,
  pauseMedianMs = 110,
  pauseSigma = 0.5,
} = {}) {
  const key = [bodyMedianMs, bodySigma, pauseP, pauseMedianMs, pauseSigma].join();
  if (!cache.has(key)) {
    const body = lognormalTable(bodyMedianMs, bodySigma);
    const { edges, cellBin } = bins();
    const f64 = new Float64Array(1),
      hiWord = new Uint32Array(f64.buffer, 4, 1);
    const bodyBin = Uint16Array.from(body, (t) => binOf(t, edges, cellBin, f64, hiWord));
    cache.set(key, {
      body,
      bodyBin,
      pause: lognormalTable(pauseMedianMs, pauseSigma),
      pauseThreshold: Math.round(pauseP * 65536),
      edges,
      cellBin,
    });
  }
  return cache.get(key);
}

/** Simulates `requests` parents over `fanout` leaves, binning every leaf and every parent. */
export function fastRun(requests, fanout, seed = 1, tables = prepareFast()) {
  const { body, pause, pauseThreshold, edges, cellBin } = tables;
  const leaf = new Float64Array(BIN_COUNT),
    parent = new Float64Array(BIN_COUNT);
  const f64 = new Float64Array(1),
    hiWord = new Uint32Array(f64.buffer, 4, 1); // little-endian
  let a = seed | 0;
  for (let k = 0; k < requests; k++) {
    let max = 0;
    for (let i = 0; i < fanout; i++) {
      a = (a + 0x6d2b79f5) | 0;
      let z = Math.imul(a ^ (a >>> 15), 1 | a);
      z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
      z ^= z >>> 14;
      let t = body[z >>> 16];
      if ((z & 0xffff) < pauseThreshold) {
        a = (a + 0x6d2b79f5) | 0;
        let y = Math.imul(a ^ (a >>> 15), 1 | a);
        y = (y + Math.imul(y ^ (y >>> 7), 61 | y)) ^ y;
        t += pause[(y ^ (y >>> 14)) >>> 16];
      }
      // Float-bit binning, written out (V8 measured it faster inline than as a call).
      f64[0] = t;
      const hi = hiWord[0];
      const o = (hi >>> 20) - EXP_BIAS_FIRST;
      let b = o < 0 ? 0 : o >= OCTAVES ? BIN_COUNT - 1 : cellBin[(o << 7) | ((hi >>> 13) & 127)];
      if (o >= 0 && o < OCTAVES && t >= edges[b + 1]) b++;
      leaf[b] += 1;
      if (t > max) max = t;
    }
    f64[0] = max;
    const hi = hiWord[0];
    const o = (hi >>> 20) - EXP_BIAS_FIRST;
    let b = o < 0 ? 0 : o >= OCTAVES ? BIN_COUNT - 1 : cellBin[(o << 7) | ((hi >>> 13) & 127)];
    if (o >= 0 && o < OCTAVES && max >= edges[b + 1]) b++;
    parent[b] += 1;
  }
  return { leaf, parent };
}

/**
 * `fastRun` with the body's cell → bin map: the same draws and histograms, an unpaused leaf
 * binned with one load. The best plain JS here, and the one the wasm core is measured against.
 * Its generator steps are `fastRun`'s written out again on purpose: the generator's state is a
 * local, and a call per draw to advance it is what both loops exist to avoid.
 */
export function fastRunCellBins(requests, fanout, seed = 1, tables = prepareFast()) {
  const { body, bodyBin, pause, pauseThreshold, edges, cellBin } = tables;
  const leaf = new Float64Array(BIN_COUNT),
    parent = new Float64Array(BIN_COUNT);
  const f64 = new Float64Array(1),
    hiWord = new Uint32Array(f64.buffer, 4, 1);
  let a = seed | 0;
  for (let k = 0; k < requests; k++) {
    let max = 0;
    for (let i = 0; i < fanout; i++) {
      a = (a + 0x6d2b79f5) | 0;
      let z = Math.imul(a ^ (a >>> 15), 1 | a);
      z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
      z ^= z >>> 14;
      const cell = z >>> 16;
      let t = body[cell];
      if ((z & 0xffff) >= pauseThreshold) {
        leaf[bodyBin[cell]] += 1;
      } else {
        a = (a + 0x6d2b79f5) | 0;
        let y = Math.imul(a ^ (a >>> 15), 1 | a);
        y = (y + Math.imul(y ^ (y >>> 7), 61 | y)) ^ y;
        t += pause[(y ^ (y >>> 14)) >>> 16];
        leaf[binOf(t, edges, cellBin, f64, hiWord)] += 1;
      }
      if (t > max) max = t;
    }
    parent[binOf(max, edges, cellBin, f64, hiWord)] += 1;
  }
  return { leaf, parent };
}
