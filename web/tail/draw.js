// Canvas drawing for the Tail page. Pure functions of the data they are given: no model logic
// and no state. Every latency axis here is logarithmic. Every piece of text goes through one
// `Labels` per drawing (web/labels.js): the lines text must not cross are blocked first, each
// label takes the first free spot of its candidates (or is left out), and the boxes are
// published to `data-labels`. Each chart records its frame and draws its crosshair last
// (web/touch.js); `touchTail` makes the three charts answer the pointer and the keyboard.

import { formatCount, formatMs } from "../format.js";
import { prepare as prepareCanvas } from "../canvas.js";
import { Labels } from "../labels.js";
import { paintGuide, setFrame, touchChart } from "../touch.js";

/** The palette of the canvas being drawn (set by `prepare`; drawing is synchronous). */
let COLORS = null;

/** Latency range of the arena and histogram ruler (ms). */
export const RULER = { minMs: 1, maxMs: 4000 };
/** Left and right margins shared by the arena and the histograms, so their x axes line up. */
export const MARGIN = { left: 44, right: 18 };

const FONT = "11px system-ui, sans-serif";
const BOLD = "600 11px system-ui, sans-serif";

/** Gets `canvas` ready (canvas.js) and takes its palette for this drawing. */
function prepare(canvas) {
  const { ctx, width, height, pal } = prepareCanvas(canvas);
  COLORS = { ...pal, rule: pal.grid, parentDark: pal.parentText };
  return { ctx, width, height, labels: new Labels(ctx, width, height) };
}

/** x (CSS px) of a latency on the shared log ruler. */
export function rulerX(ms, width) {
  const span = Math.log(RULER.maxMs / RULER.minMs);
  const f = Math.log(Math.max(ms, 1e-9) / RULER.minMs) / span;
  return MARGIN.left + f * (width - MARGIN.left - MARGIN.right);
}

/** The latency (ms) at x (CSS px) on the shared log ruler: `rulerX`'s inverse. */
export function rulerMs(x, width) {
  const f = (x - MARGIN.left) / (width - MARGIN.left - MARGIN.right);
  return RULER.minMs * (RULER.maxMs / RULER.minMs) ** f;
}

/** Records the ruler's frame for the crosshair (web/touch.js): from the top to `bottom`. */
function rulerFrame(canvas, width, bottom) {
  setFrame(canvas, {
    toPx: (ms) => rulerX(ms, width),
    toX: (x) => rulerMs(x, width),
    left: MARGIN.left,
    right: width - MARGIN.right,
    top: 0,
    bottom,
  });
}

/** The crosshair (if any) and the label boxes, last thing in a drawing. */
function finish(canvas, ctx, labels) {
  paintGuide(canvas, ctx, COLORS);
  labels.publish(canvas);
}

function rulerTicks(ctx, labels, width, y, withLabels) {
  ctx.strokeStyle = COLORS.rule;
  ctx.lineWidth = 1;
  for (const ms of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]) {
    const x = rulerX(ms, width);
    ctx.beginPath();
    ctx.moveTo(x, 0);
    ctx.lineTo(x, y);
    ctx.stroke();
  }
  if (!withLabels) return;
  // A label that would touch its neighbour is left out (Labels), so they thin to fit the width.
  for (const ms of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]) {
    const x = rulerX(ms, width);
    labels.place(ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`, [{ x, y: y + 13, align: "center" }], {
      font: FONT,
      color: COLORS.muted,
    });
  }
}

function vline(ctx, x, y0, y1, color, width) {
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.beginPath();
  ctx.moveTo(x, y0);
  ctx.lineTo(x, y1);
  ctx.stroke();
}

function ring(ctx, x, y, r, color) {
  ctx.strokeStyle = color;
  ctx.lineWidth = 1.3;
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.stroke();
}

function dot(ctx, x, y, r, color) {
  ctx.fillStyle = color;
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.fill();
}

/**
 * One parent request. `request` is the API's request object; `sweepMs` is the sweep line's
 * position (ms) in slow motion, or null to show everything.
 */
export function drawArena(canvas, request, sweepMs) {
  const { ctx, width, height, labels } = prepare(canvas);
  const axisY = height - 20;
  rulerFrame(canvas, width, axisY);
  rulerTicks(ctx, labels, width, axisY, true);
  if (!request) return finish(canvas, ctx, labels);
  const { originalMs, resolvedMs, retryMs, hedged, dropped } = request.leaves;
  const n = resolvedMs.length;
  const top = 10;
  const band = axisY - top - 10;
  const shown = (ms) => sweepMs === null || ms <= sweepMs;
  const delay = request.hedgeDelayMs ?? 0;
  for (let i = 0; i < n; i++) {
    // Deterministic vertical spread (golden-ratio jitter) so dots do not stack.
    const y = top + ((i * 0.6180339887) % 1) * band;
    const resolved = resolvedMs[i];
    if (hedged[i]) {
      const abandoned = Math.max(originalMs[i], delay + retryMs[i]);
      if (shown(abandoned)) {
        ring(ctx, rulerX(abandoned, width), y, 4, COLORS.ring);
      }
      if (shown(resolved)) {
        ctx.strokeStyle = COLORS.ring;
        ctx.lineWidth = 1;
        ctx.beginPath();
        ctx.moveTo(rulerX(resolved, width), y);
        ctx.lineTo(rulerX(Math.min(abandoned, sweepMs ?? abandoned), width), y);
        ctx.stroke();
      }
    }
    if (!shown(resolved)) continue;
    const x = rulerX(resolved, width);
    if (dropped[i]) ring(ctx, x, y, 4, COLORS.leaf);
    else if (i === request.waitedOn) dot(ctx, x, y, 4.5, COLORS.wait);
    else dot(ctx, x, y, 3.3, COLORS.leaf);
  }
  if (shown(request.parentMs)) {
    const x = rulerX(request.parentMs, width);
    vline(ctx, x, 0, axisY, COLORS.wait, 2);
    labels.blockLine(x, 0, axisY);
    labels.place(
      `parent ${formatMs(request.parentMs)}`,
      [
        { x: x + 6, y: 14, align: "left" },
        { x: x - 6, y: 14, align: "right" },
      ],
      { font: "600 12px system-ui, sans-serif", color: COLORS.wait, bg: COLORS.bg },
    );
  }
  if (sweepMs !== null) {
    const x = rulerX(sweepMs, width);
    ctx.strokeStyle = COLORS.ink;
    ctx.setLineDash([3, 3]);
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(x, 0);
    ctx.lineTo(x, axisY);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  finish(canvas, ctx, labels);
}

function pile(ctx, width, base, height, edges, counts, color, alpha) {
  let max = 0;
  for (let b = 0; b < counts.length; b++) max = Math.max(max, counts[b]);
  if (max === 0) return;
  const scale = height / Math.sqrt(max);
  ctx.fillStyle = color;
  ctx.globalAlpha = alpha;
  for (let b = 0; b < counts.length; b++) {
    const c = counts[b];
    if (c === 0 || edges[b + 1] < 1 || edges[b] > 4000) continue;
    const x0 = rulerX(edges[b], width);
    const x1 = rulerX(edges[b + 1], width);
    const h = Math.sqrt(c) * scale;
    ctx.fillRect(x0, base - h, Math.max(x1 - x0, 1), h);
  }
  ctx.globalAlpha = 1;
}

/** A short tick at `ms` from y0 to y1; its label at the first free spot of the rows given. */
function tick(ctx, labels, width, ms, y0, y1, color, label, rows) {
  if (!Number.isFinite(ms)) return;
  const x = rulerX(ms, width);
  vline(ctx, x, y0, y1, color, 1.5);
  const spots = [];
  for (const y of rows)
    spots.push(
      { x, y, align: /** @type {CanvasTextAlign} */ ("center") },
      { x: x + 2, y, align: /** @type {CanvasTextAlign} */ ("left") },
      { x: x - 2, y, align: /** @type {CanvasTextAlign} */ ("right") },
    );
  labels.place(label, spots, { font: BOLD, color, bg: COLORS.bg });
}

/**
 * Leaf (teal) and parent (amber) histograms on the shared ruler, heights square-rooted (said on
 * the chart: "height ∝ √count"). `waitMs` is the request on the arena, drawn as the red line
 * ("this request"); NaN leaves it out (no arena shown, or a sweep before the parent answered).
 */
export function drawHistograms(canvas, { edges, leafBins, parentBins, marks, waitMs }) {
  const { ctx, width, height, labels } = prepare(canvas);
  const axisY = height - 20;
  rulerFrame(canvas, width, axisY);
  rulerTicks(ctx, labels, width, axisY, true);
  const pileHeight = axisY - 60;
  pile(ctx, width, axisY, pileHeight, edges, leafBins, COLORS.leaf, 0.55);
  pile(ctx, width, axisY, pileHeight, edges, parentBins, COLORS.parent, 0.75);
  // The names and the scale first, at the top left; then the red line, which no text may cross.
  labels.place("leaves", [{ x: 6, y: 12 }], { font: FONT, color: COLORS.leafText });
  labels.place("parents", [{ x: 6, y: 26 }], { font: FONT, color: COLORS.parentDark });
  labels.place(
    "height ∝ √count",
    [
      { x: 6, y: 40 },
      { x: width - 6, y: 12, align: "right" },
    ],
    {
      font: FONT,
      color: COLORS.muted,
    },
  );
  let waitX = NaN;
  if (Number.isFinite(waitMs)) {
    // Red is backed by a label: under deuteranopia it is close to the dark amber ticks.
    waitX = rulerX(waitMs, width);
    vline(ctx, waitX, 0, axisY, COLORS.wait, 2);
    labels.blockLine(waitX, 0, axisY);
  }
  if (Number.isFinite(waitX)) {
    const spots = [];
    for (const y of [12, 26, 40, 54, 68, 82])
      spots.push(
        { x: waitX + 5, y, align: /** @type {CanvasTextAlign} */ ("left") },
        { x: waitX - 5, y, align: /** @type {CanvasTextAlign} */ ("right") },
      );
    labels.place("this request", spots, { font: BOLD, color: COLORS.wait, bg: COLORS.bg });
  }
  const rows = [12, 26, 40, 54, 68];
  const ticks = [
    [marks.leafP50, 8, COLORS.leafText, "p50"],
    [marks.leafP99, 8, COLORS.leafText, "p99"],
    [marks.parentP50, 14, COLORS.parentDark, "p50"],
    [marks.parentP99, 14, COLORS.parentDark, "p99"],
  ];
  for (const [i, [ms, len, color, name]] of ticks.entries()) {
    tick(ctx, labels, width, ms, axisY, axisY - len, color, `${name} ${formatMs(ms)}`, [
      ...rows.slice(i),
      ...rows.slice(0, i),
    ]);
  }
  finish(canvas, ctx, labels);
}

/** The strip's plot box for a canvas `width` × `height` (CSS px). */
function stripBox(width, height) {
  return { left: MARGIN.left + 16, right: width - 110, top: 12, bottom: height - 26 };
}

/** Parent p50/p99 against fan-out 1..curves.length, with the leaf's percentiles as flat lines. */
export function drawStrip(canvas, { p50, p99, leafP50, leafP99, fanout, crossoverN }) {
  const { ctx, width, height, labels } = prepare(canvas);
  const { left, right, top, bottom } = stripBox(width, height);
  const values = [...p50, ...p99, leafP50, leafP99].filter(Number.isFinite);
  if (values.length === 0) return finish(canvas, ctx, labels);
  const lo = Math.min(...values) / 1.25,
    hi = Math.max(...values) * 1.25;
  const maxN = p50.length;
  const x = (n) => left + ((n - 1) / (maxN - 1)) * (right - left);
  const y = (ms) => bottom - (Math.log(ms / lo) / Math.log(hi / lo)) * (bottom - top);
  setFrame(canvas, {
    toPx: x,
    toX: (px) => 1 + ((px - left) / (right - left)) * (maxN - 1),
    toPy: y,
    left,
    right,
    top,
    bottom,
  });
  const muted = { font: FONT, color: COLORS.muted };
  // Grid: latency labels at 1-2-5 steps inside the fitted range; fan-out every 32.
  ctx.strokeStyle = COLORS.rule;
  ctx.lineWidth = 1;
  for (let decade = 0.1; decade < 1e5; decade *= 10) {
    for (const m of [1, 2, 5]) {
      const ms = m * decade;
      if (ms < lo || ms > hi) continue;
      ctx.beginPath();
      ctx.moveTo(left, y(ms));
      ctx.lineTo(right, y(ms));
      ctx.stroke();
      labels.place(
        ms >= 1000 ? `${Number((ms / 1000).toPrecision(3))} s` : `${Number(ms.toPrecision(3))} ms`,
        [{ x: left - 4, y: y(ms) + 4, align: "right" }],
        muted,
      );
    }
  }
  let lastLabel = -Infinity;
  for (const n of [1, 32, 64, 96, 128, 160, 192, 224, 256]) {
    // Thinned to fit the width: never closer than 34 px, so they read as separate numbers.
    if (n > maxN || x(n) - lastLabel < 34) continue;
    if (labels.place(String(n), [{ x: x(n), y: bottom + 14, align: "center" }], muted))
      lastLabel = x(n);
  }
  labels.place("fan-out", [{ x: (left + right) / 2, y: height - 1, align: "center" }], muted);
  // The marker lines first: the current fan-out and the crossover, which no text may cross.
  const fx = x(fanout);
  vline(ctx, fx, top, bottom, COLORS.ink, 1);
  labels.blockLine(fx, top, bottom);
  const cx = x(crossoverN);
  ctx.strokeStyle = COLORS.wait;
  ctx.setLineDash([2, 3]);
  ctx.beginPath();
  ctx.moveTo(cx, top);
  ctx.lineTo(cx, bottom);
  ctx.stroke();
  ctx.setLineDash([]);
  labels.blockLine(cx, top, bottom);
  /** A label right of the plot at the height of `ms`, nudged up or down if taken. */
  const side = (ms, text, color) =>
    labels.place(
      text,
      [0, -12, 12, -24, 24].map((d) => ({ x: right + 6, y: y(ms) + 4 + d })),
      { font: FONT, color },
    );
  const line = (v, color, dash, label) => {
    ctx.strokeStyle = color;
    ctx.setLineDash(dash);
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.moveTo(left, y(v));
    ctx.lineTo(right, y(v));
    ctx.stroke();
    ctx.setLineDash([]);
    side(v, label, color);
  };
  line(leafP50, COLORS.leafText, [4, 3], `leaf p50 ${formatMs(leafP50)}`);
  line(leafP99, COLORS.leafText, [], `leaf p99 ${formatMs(leafP99)}`);
  const curve = (arr, color, label, dash = []) => {
    ctx.strokeStyle = color;
    ctx.setLineDash(dash);
    ctx.lineWidth = 2;
    ctx.beginPath();
    for (const [i, v] of arr.entries()) {
      if (i === 0) ctx.moveTo(x(i + 1), y(v));
      else ctx.lineTo(x(i + 1), y(v));
    }
    ctx.stroke();
    ctx.setLineDash([]);
    side(arr[arr.length - 1], label, color);
  };
  curve(p50, COLORS.parentText, "parent p50", [6, 3]);
  curve(p99, COLORS.parentDark, "parent p99");
  // The crossover: the parent median reaches the leaf p99 at n = 69, whatever the profile.
  dot(ctx, cx, y(leafP99), 4, COLORS.wait);
  // Right of the crossing the parent median is above the leaf p99 line, so below it is clear.
  const long = `n = ${crossoverN}: parent p50 = leaf p99`;
  const short = `n = ${crossoverN}`;
  const cy = y(leafP99) + 14;
  const red = { font: FONT, color: COLORS.wait, bg: COLORS.bg };
  if (!labels.place(long, [{ x: cx + 6, y: cy }], red))
    labels.place(
      short,
      [
        { x: cx + 6, y: cy },
        { x: cx - 6, y: cy, align: "right" },
      ],
      red,
    );
  // Current fan-out: beside its line, right of it unless the plot's right edge is near.
  /** @type {import("../labels.js").LabelSpot[]} */
  const beside = [
    { x: fx + 4, y: top + 10, align: "left" },
    { x: fx - 4, y: top + 10, align: "right" },
    { x: fx + 4, y: bottom - 4, align: "left" },
    { x: fx - 4, y: bottom - 4, align: "right" },
  ];
  if (fx > right - 60) beside.reverse();
  labels.place(`n = ${fanout}`, beside, { font: FONT, color: COLORS.ink, bg: COLORS.bg });
  finish(canvas, ctx, labels);
}

/**
 * Makes the Tail page's charts answer the pointer and the keyboard (web/touch.js): the arena
 * reads the nearest leaf, the histograms the nearest bin with counts, the strip the parent's
 * percentiles at the nearest fan-out; the strip's n marker drags the fan-out slider (`fanout`,
 * when the piece shows its controls). `data` gives what is on screen now; `redraw` draws again.
 * @param {Record<string, HTMLCanvasElement>} canvases
 * @param {{
 *   request: () => any,
 *   bins: () => { edges: Float64Array | number[], leaf: ArrayLike<number>, parent: ArrayLike<number> },
 *   curves: () => any,
 *   fanout?: HTMLInputElement,
 *   redraw: () => void,
 * }} data
 */
export function touchTail(canvases, { request, bins, curves, fanout, redraw }) {
  if (canvases.arena) {
    touchChart(canvases.arena, {
      xs: () => {
        const r = request();
        return r ? [...new Set(r.leaves.resolvedMs)].sort((a, b) => a - b) : [];
      },
      read: (ms) => {
        const r = request();
        const i = r ? Array.prototype.indexOf.call(r.leaves.resolvedMs, ms) : -1;
        if (i < 0) return null;
        const flags = [
          i === r.waitedOn ? "the one the parent waited on" : "",
          r.leaves.hedged[i] ? "hedged" : "",
          r.leaves.dropped[i] ? "dropped" : "",
        ].filter(Boolean);
        return {
          lines: [
            `leaf ${i}: ${formatMs(ms)}${flags.length ? ` (${flags.join(", ")})` : ""}`,
            `parent ${formatMs(r.parentMs)}`,
          ],
        };
      },
      redraw,
    });
  }
  if (canvases.histograms) {
    /** The bins with any count, by their middle (geometric) latency. */
    const filled = () => {
      const { edges, leaf, parent } = bins();
      const out = [];
      for (let b = 0; b < leaf.length; b++) {
        if (!(leaf[b] || parent[b]) || edges[b + 1] < RULER.minMs || edges[b] > RULER.maxMs)
          continue;
        out.push({ ms: Math.sqrt(Math.max(edges[b], 1e-3) * edges[b + 1]), b });
      }
      return out;
    };
    touchChart(canvases.histograms, {
      xs: () => filled().map((f) => f.ms),
      read: (ms) => {
        const hit = filled().find((f) => f.ms === ms);
        if (!hit) return null;
        const { edges, leaf, parent } = bins();
        return {
          lines: [
            `${formatMs(edges[hit.b])} to ${formatMs(edges[hit.b + 1])}`,
            `leaves ${formatCount(leaf[hit.b])}`,
            `parents ${formatCount(parent[hit.b])}`,
          ],
        };
      },
      redraw,
    });
  }
  if (canvases.strip) {
    touchChart(canvases.strip, {
      xs: () => {
        const c = curves();
        return c ? Array.from(c.p50, (_, i) => i + 1) : [];
      },
      read: (n) => {
        const c = curves();
        if (!c) return null;
        return {
          lines: [
            `n = ${n}`,
            `parent p50 ${formatMs(c.p50[n - 1])}`,
            `parent p99 ${formatMs(c.p99[n - 1])}`,
            `leaf p50 ${formatMs(c.leafP50)}, p99 ${formatMs(c.leafP99)}`,
          ],
          marks: [
            { y: c.p50[n - 1], color: "parentText" },
            { y: c.p99[n - 1], color: "parentText" },
          ],
        };
      },
      ...(fanout && {
        marker: {
          input: fanout,
          value: () => Number(fanout.value),
          toControl: (n) => String(Math.min(Number(fanout.max), Math.max(1, Math.round(n)))),
        },
      }),
      redraw,
    });
  }
}
