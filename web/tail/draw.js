// Canvas drawing for the Tail page. Pure functions of the data they are given: no model logic
// and no state. Every latency axis here is logarithmic.

import { formatMs } from "../format.js";
import { prepare as prepareCanvas } from "../canvas.js";

/** The palette of the canvas being drawn (set by `prepare`; drawing is synchronous). */
let COLORS = null;

/** Latency range of the arena and histogram ruler (ms). */
export const RULER = { minMs: 1, maxMs: 4000 };
/** Left and right margins shared by the arena and the histograms, so their x axes line up. */
export const MARGIN = { left: 44, right: 18 };

/** Gets `canvas` ready (canvas.js) and takes its palette for this drawing. */
function prepare(canvas) {
  const { ctx, width, height, pal } = prepareCanvas(canvas);
  COLORS = { ...pal, rule: pal.grid, parentDark: pal.parentText };
  return { ctx, width, height };
}

/** x (CSS px) of a latency on the shared log ruler. */
export function rulerX(ms, width) {
  const span = Math.log(RULER.maxMs / RULER.minMs);
  const f = Math.log(Math.max(ms, 1e-9) / RULER.minMs) / span;
  return MARGIN.left + f * (width - MARGIN.left - MARGIN.right);
}

function rulerTicks(ctx, width, y, labels) {
  ctx.strokeStyle = COLORS.rule;
  ctx.fillStyle = COLORS.muted;
  ctx.font = "11px system-ui, sans-serif";
  ctx.textAlign = "center";
  let lastLabel = -Infinity;
  for (const ms of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]) {
    const x = rulerX(ms, width);
    ctx.beginPath();
    ctx.moveTo(x, 0);
    ctx.lineTo(x, y);
    ctx.stroke();
    // Thin the labels to fit the width: never closer than 46 px.
    if (labels && x - lastLabel >= 46) {
      ctx.fillText(ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`, x, y + 13);
      lastLabel = x;
    }
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
  const { ctx, width, height } = prepare(canvas);
  const axisY = height - 20;
  rulerTicks(ctx, width, axisY, true);
  if (!request) return;
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
    ctx.fillStyle = COLORS.wait;
    ctx.font = "600 12px system-ui, sans-serif";
    ctx.textAlign = x > width - 120 ? "right" : "left";
    ctx.fillText(
      `parent ${formatMs(request.parentMs)}`,
      x + (ctx.textAlign === "left" ? 6 : -6),
      14,
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

function tick(ctx, width, ms, y0, y1, color, label, labelY) {
  if (!Number.isFinite(ms)) return;
  const x = rulerX(ms, width);
  vline(ctx, x, y0, y1, color, 1.5);
  ctx.fillStyle = color;
  ctx.font = "600 11px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.fillText(label, x, labelY);
}

/** Leaf (teal) and parent (amber) histograms on the shared ruler, heights square-rooted. */
export function drawHistograms(canvas, { edges, leafBins, parentBins, marks, waitMs }) {
  const { ctx, width, height } = prepare(canvas);
  const axisY = height - 20;
  rulerTicks(ctx, width, axisY, true);
  const pileHeight = axisY - 60;
  pile(ctx, width, axisY, pileHeight, edges, leafBins, COLORS.leaf, 0.55);
  pile(ctx, width, axisY, pileHeight, edges, parentBins, COLORS.parent, 0.75);
  tick(
    ctx,
    width,
    marks.leafP50,
    axisY,
    axisY - 8,
    COLORS.leafText,
    `p50 ${formatMs(marks.leafP50)}`,
    12,
  );
  tick(
    ctx,
    width,
    marks.leafP99,
    axisY,
    axisY - 8,
    COLORS.leafText,
    `p99 ${formatMs(marks.leafP99)}`,
    26,
  );
  tick(
    ctx,
    width,
    marks.parentP50,
    axisY,
    axisY - 14,
    COLORS.parentDark,
    `p50 ${formatMs(marks.parentP50)}`,
    40,
  );
  tick(
    ctx,
    width,
    marks.parentP99,
    axisY,
    axisY - 14,
    COLORS.parentDark,
    `p99 ${formatMs(marks.parentP99)}`,
    54,
  );
  if (Number.isFinite(waitMs)) {
    // Red is backed by a label: under deuteranopia it is close to the dark amber ticks.
    const x = rulerX(waitMs, width);
    vline(ctx, x, 0, axisY, COLORS.wait, 2);
    ctx.fillStyle = COLORS.wait;
    ctx.font = "600 11px system-ui, sans-serif";
    ctx.textAlign = x > width - 110 ? "right" : "left";
    ctx.fillText("this request", x + (ctx.textAlign === "left" ? 5 : -5), 12);
  }
  ctx.font = "11px system-ui, sans-serif";
  ctx.textAlign = "left";
  ctx.fillStyle = COLORS.leafText;
  ctx.fillText("leaves", 6, 12);
  ctx.fillStyle = COLORS.parentDark;
  ctx.fillText("parents", 6, 26);
}

/** Parent p50/p99 against fan-out 1..curves.length, with the leaf's percentiles as flat lines. */
export function drawStrip(canvas, { p50, p99, leafP50, leafP99, fanout, crossoverN }) {
  const { ctx, width, height } = prepare(canvas);
  const left = MARGIN.left + 16,
    right = width - 110,
    top = 12,
    bottom = height - 26;
  const values = [...p50, ...p99, leafP50, leafP99].filter(Number.isFinite);
  if (values.length === 0) return;
  const lo = Math.min(...values) / 1.25,
    hi = Math.max(...values) * 1.25;
  const maxN = p50.length;
  const x = (n) => left + ((n - 1) / (maxN - 1)) * (right - left);
  const y = (ms) => bottom - (Math.log(ms / lo) / Math.log(hi / lo)) * (bottom - top);
  // Grid: latency labels at 1-2-5 steps inside the fitted range; fan-out every 32.
  ctx.font = "11px system-ui, sans-serif";
  ctx.strokeStyle = COLORS.rule;
  ctx.fillStyle = COLORS.muted;
  ctx.textAlign = "right";
  for (let decade = 0.1; decade < 1e5; decade *= 10) {
    for (const m of [1, 2, 5]) {
      const ms = m * decade;
      if (ms < lo || ms > hi) continue;
      ctx.beginPath();
      ctx.moveTo(left, y(ms));
      ctx.lineTo(right, y(ms));
      ctx.stroke();
      ctx.fillText(ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`, left - 4, y(ms) + 4);
    }
  }
  ctx.textAlign = "center";
  let lastLabel = -Infinity;
  for (const n of [1, 32, 64, 96, 128, 160, 192, 224, 256]) {
    if (n > maxN || x(n) - lastLabel < 34) continue;
    ctx.fillText(String(n), x(n), bottom + 14);
    lastLabel = x(n);
  }
  ctx.fillText("fan-out", (left + right) / 2, height - 1);
  const line = (v, color, dash, label) => {
    ctx.strokeStyle = color;
    ctx.setLineDash(dash);
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.moveTo(left, y(v));
    ctx.lineTo(right, y(v));
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = color;
    ctx.textAlign = "left";
    ctx.fillText(label, right + 6, y(v) + 4);
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
    ctx.fillStyle = color;
    ctx.textAlign = "left";
    ctx.fillText(label, right + 6, y(arr[arr.length - 1]) + 4);
  };
  curve(p50, COLORS.parentText, "parent p50", [6, 3]);
  curve(p99, COLORS.parentDark, "parent p99");
  // The crossover: the parent median reaches the leaf p99 at n = 69, whatever the profile.
  const cx = x(crossoverN);
  ctx.strokeStyle = COLORS.wait;
  ctx.setLineDash([2, 3]);
  ctx.beginPath();
  ctx.moveTo(cx, top);
  ctx.lineTo(cx, bottom);
  ctx.stroke();
  ctx.setLineDash([]);
  dot(ctx, cx, y(leafP99), 4, COLORS.wait);
  ctx.fillStyle = COLORS.wait;
  ctx.textAlign = "left";
  // Right of the crossing the parent median is above the leaf p99 line, so below it is clear.
  const long = `n = ${crossoverN}: parent p50 = leaf p99`;
  ctx.fillText(
    ctx.measureText(long).width < right - cx - 12 ? long : `n = ${crossoverN}`,
    cx + 6,
    y(leafP99) + 14,
  );
  // Current fan-out.
  const fx = x(fanout);
  vline(ctx, fx, top, bottom, COLORS.ink, 1);
  ctx.fillStyle = COLORS.ink;
  ctx.textAlign = fx > right - 60 ? "right" : "left";
  ctx.fillText(`n = ${fanout}`, fx + (ctx.textAlign === "left" ? 4 : -4), top + 10);
}
