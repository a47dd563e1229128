// The loaded section's chart, as one drawing function of the answers it is given: the main chart
// (with its legend in a strip above the plot, out of the data) and the small multiples (one per
// cancellation rule, same axes, no legend) are both `drawLoaded`. Pure drawing: no model logic,
// no state beyond the canvas it draws on.
//
// What it promises, and the tests check (tests/js/loaded-draw.test.mjs in node with svg.js's
// recording context, tests/e2e/loaded-view.test.mjs in Chromium):
// - a line joins two neighbouring loads of the sweep only when both are computed (and stable):
//   a load not yet computed breaks the line, so a draft never shows a line that is not data;
//   what is drawn is published as `data-segments`;
// - the chosen policy is drawn last, thick and opaque with larger markers, the others faded
//   (`data-highlight` names it);
// - each policy has its own marker shape (circle, square, triangle), large enough to tell apart
//   without colour;
// - an error bar is drawn only where it reaches past its marker (`data-bars` counts them).

import { chart, shapePath } from "../../plot.js";
import { formatPct, formatTickMs } from "../../../format.js";

/** How each policy is drawn and named; the policies themselves are the core's (`labDefaults()`). */
export const POLICY_STYLE = {
  none: { label: "no backups", color: "none", shape: "circle" },
  hedge: { label: "hedge at p95", color: "hedge", shape: "square" },
  duplicate: { label: "duplicate all", color: "duplicate", shape: "triangle" },
};

/** The shared axes of the main chart and the small multiples. */
export const X_AXIS = { type: "linear", min: 0, max: 1 };
export const Y_AXIS = { type: "log", min: 2, max: 100_000 };

/** The opacity of the policies not chosen. */
const FADED = 0.3;
const FONT = "11px system-ui, sans-serif";
const BOLD = "600 11px system-ui, sans-serif";
/** The legend strip's row height and the space its rows leave above the plot. */
const ROW = 16;

/**
 * The runs of consecutive indices where `values` is a finite number: `[[first, last], ...]`. A
 * line is drawn through each run of two or more, and never across an index outside every run.
 * @param {ArrayLike<number | undefined | null>} values
 * @returns {[number, number][]}
 */
export function runs(values) {
  /** @type {[number, number][]} */
  const out = [];
  let start = -1;
  for (let i = 0; i <= values.length; i++) {
    const ok = i < values.length && Number.isFinite(values[i]);
    if (ok && start < 0) start = i;
    if (!ok && start >= 0) {
      out.push([start, i - 1]);
      start = -1;
    }
  }
  return out;
}

/**
 * The legend's items laid out in rows that fit `width` (CSS px): `{ item, x, row }` each, and the
 * number of rows.
 */
function layout(ctx, items, width) {
  const placed = [];
  let x = 8,
    row = 0;
  for (const item of items) {
    ctx.font = item.bold ? BOLD : FONT;
    const w = 30 + ctx.measureText(item.label).width;
    if (x > 8 && x + w > width - 8) {
      row++;
      x = 8;
    }
    placed.push({ item, x, row });
    x += w + 14;
  }
  return { placed, rows: row + 1 };
}

/** A marker of `shape` at (px, py), radius `r` (plot.js's shapes): filled, or hollow; a plus is stroked. */
function marker(ctx, shape, px, py, r, hollow) {
  shapePath(ctx, shape, px, py, r);
  if (hollow || shape === "plus") ctx.stroke();
  else ctx.fill();
}

/**
 * Draws the loaded chart on `canvas` (or svg.js's stand-in) and returns what it drew.
 * - `loads`: the sweep's loads; `policies`: `{ name, label, color, shape }` in drawing order;
 * - `get(load, policy)`: the answer at that point, or undefined while it is not computed;
 * - `highlight`: the chosen policy's name; `marker`: the chosen load (a marker line), or null;
 * - `theory`: `{ xs, ys }`, the M/G/1 mean without backups, or null; `means`: draw the simulated
 *   no-backup means;
 * - `compact`: a small multiple (no legend, no axis titles, no band labels, smaller markers);
 * - `height`: the plot's height in CSS px (the canvas grows by the legend's rows);
 * - `yMin`: the latency axis's bottom (ms), [`Y_AXIS`]'s unless the service is faster (a
 *   reader's own data).
 * @param {any} canvas
 * @param {{ loads: number[], policies: { name: string, label: string, color: string,
 *   shape: string }[], get: (load: number, policy: string) => any, highlight?: string,
 *   marker?: number | null, theory?: { xs: number[], ys: number[] } | null, means?: boolean,
 *   compact?: boolean, height?: number, yMin?: number }} view
 */
export function drawLoaded(canvas, view) {
  const { loads, policies, get, highlight, compact = false } = view;
  const yAxis = { ...Y_AXIS, min: Math.min(Y_AXIS.min, view.yMin ?? Y_AXIS.min) };
  const height = view.height ?? (compact ? 150 : 340);
  const order = [
    ...policies.filter((p) => p.name !== highlight),
    ...policies.filter((p) => p.name === highlight),
  ];
  const legend = compact
    ? null
    : [
        ...policies.map((p) => ({
          label: p.name === highlight ? `${p.label} (chosen)` : p.label,
          color: p.color,
          shape: p.shape,
          bold: p.name === highlight,
          line: [],
        })),
        { label: "p50 solid, p99 dashed and hollow", color: "ink", line: [5, 4] },
        { label: "no backups: mean", color: "none", shape: "plus" },
        { label: "M/G/1 mean (Pollaczek–Khinchine)", color: "theory", line: [2, 3] },
      ];
  // The legend's rows are measured before the chart is drawn: the canvas grows by them, so the
  // plot keeps its height whatever the width.
  const width = canvas.clientWidth || 600;
  // (An SVG export measures on the canvas on screen, so its legend has the same rows.)
  const measure = (canvas.svg && canvas.source?.getContext?.("2d")) || canvas.getContext("2d");
  const { placed, rows } = legend ? layout(measure, legend, width) : { placed: [], rows: 0 };
  const top = compact ? 8 : 10 + rows * ROW;
  const total = height + (top - 14);
  // (svg.js's stand-in keeps a copy of the dataset, and its size from the canvas on screen.)
  canvas.dataset.cssHeight = String(total);
  if (!canvas.svg && canvas.style.height !== `${total}px`) canvas.style.height = `${total}px`;
  const c = chart(canvas, {
    x: {
      ...X_AXIS,
      label: compact ? "" : "load (offered work over capacity, before backups)",
      format: (v) => formatPct(v, 0),
    },
    y: { ...yAxis, label: compact ? "" : "latency", format: formatTickMs },
    margin: compact
      ? { left: 46, right: 14, top, bottom: 20 }
      : { left: 66, right: 26, top, bottom: 40 },
  });
  const { ctx, pal } = c;
  const colour = (name) => pal[name] ?? name;
  c.axes();

  // Unstable regions: from the first unstable load upward, one band per policy (labelled on the
  // main chart).
  const bands = [];
  for (const p of policies) {
    const first = loads.find((l) => get(l, p.name)?.stable === false);
    if (first === undefined) continue;
    c.band(first - 0.025, 1, compact ? "" : `${"\n".repeat(bands.length)}${p.label}: unstable`);
    bands.push(`${p.label}: unstable from ${formatPct(first, 0)} load`);
  }

  const segments = {};
  let bars = 0;
  for (const p of order) {
    const chosen = p.name === highlight || highlight === undefined;
    ctx.save();
    ctx.globalAlpha = chosen ? 1 : FADED;
    const pts = loads.map((l) => get(l, p.name));
    segments[p.name] = {};
    /** @type {[string, number[], number][]} */
    const styles = [
      ["p50", [], chosen ? 3 : 1.5],
      ["p99", [5, 4], chosen ? 2.25 : 1.25],
    ];
    for (const [f, dash, w] of styles) {
      const ys = pts.map((x) => (x?.stable ? x[f] : NaN));
      const drawn = runs(ys).filter(([a, b]) => b > a);
      for (const [a, b] of drawn)
        c.line(loads.slice(a, b + 1), ys.slice(a, b + 1), {
          color: p.color,
          width: compact ? w * 0.75 : w,
          dash,
        });
      segments[p.name][f] = drawn.map(([a, b]) => [loads[a], loads[b]]);
    }
    // Markers: a policy's own shape, larger when chosen; p50 filled, p99 hollow. An error bar
    // (the 95% batch-means interval) is drawn only where it reaches past its marker.
    const r = compact ? (chosen ? 3.5 : 2.75) : chosen ? 6 : 4.5;
    /** @type {[string, boolean][]} */
    const kinds = [
      ["p50", false],
      ["p99", true],
    ];
    for (const [f, hollow] of kinds) {
      const marks = [];
      for (const x of pts) {
        if (!x?.stable) continue;
        const py = c.sy(x[f]);
        const lo = x[`${f}Low`],
          hi = x[`${f}High`];
        const reach =
          Number.isFinite(lo) && Number.isFinite(hi) && lo > 0
            ? Math.max(c.sy(lo) - py, py - c.sy(hi))
            : 0;
        const bar = !compact && reach > r + 1.5;
        if (bar) bars++;
        marks.push({ x: x.load, y: x[f], ...(bar && { lo, hi }) });
      }
      ctx.fillStyle = colour(p.color);
      ctx.strokeStyle = colour(p.color);
      for (const m of marks) {
        if (!(m.y > 0)) continue;
        const px = c.sx(m.x),
          py = c.sy(Math.min(Math.max(m.y, yAxis.min), yAxis.max));
        if (m.lo !== undefined) {
          const [a, b] = [c.sy(Math.max(m.lo, yAxis.min)), c.sy(Math.min(m.hi, yAxis.max))];
          ctx.lineWidth = 1.25;
          ctx.beginPath();
          ctx.moveTo(px, a);
          ctx.lineTo(px, b);
          ctx.moveTo(px - 3, a);
          ctx.lineTo(px + 3, a);
          ctx.moveTo(px - 3, b);
          ctx.lineTo(px + 3, b);
          ctx.stroke();
        }
        ctx.lineWidth = hollow ? 1.5 : 1;
        marker(ctx, p.shape, px, py, hollow ? r - 0.5 : r, hollow);
      }
    }
    // "at capacity" once per policy, at its first such load (a draft may have several).
    const capacity = pts.find((x) => x?.atCapacity);
    if (!compact && capacity)
      c.label(capacity.load, capacity.p50, "at capacity", {
        color: p.color,
        align: "left",
        dy: 14,
      });
    ctx.restore();
  }

  // Without backups each replica is M/G/1: its mean against Pollaczek–Khinchine's.
  if (view.theory)
    c.line(view.theory.xs, view.theory.ys, { color: "theory", width: 1.5, dash: [2, 3] });
  if (view.means) {
    ctx.strokeStyle = colour("none");
    ctx.lineWidth = 1.5;
    for (const l of loads) {
      const x = get(l, "none");
      if (x?.stable && x.mean > 0) marker(ctx, "plus", c.sx(l), c.sy(x.mean), 4, false);
    }
  }
  if (view.marker !== null && view.marker !== undefined)
    c.vline(view.marker, compact ? "" : `load ${formatPct(view.marker, 0)}`);

  // The legend: a strip above the plot, so it never covers a point. Its text goes through the
  // chart's own `Labels`, so `done()` publishes it with the plot's ticks, bands and markers.
  if (legend) {
    const labels = c.labels;
    for (const { item, x, row } of placed) {
      const y = 6 + row * ROW + 11;
      ctx.save();
      ctx.strokeStyle = colour(item.color);
      ctx.fillStyle = colour(item.color);
      if (item.line) {
        ctx.lineWidth = item.bold ? 3 : 2;
        ctx.setLineDash(item.line);
        ctx.beginPath();
        ctx.moveTo(x, y - 4);
        ctx.lineTo(x + 24, y - 4);
        ctx.stroke();
        ctx.setLineDash([]);
      }
      if (item.shape) {
        ctx.lineWidth = 1.5;
        marker(ctx, item.shape, x + 12, y - 4, item.shape === "plus" ? 4 : 4.5, false);
      }
      ctx.restore();
      labels.place(item.label, [{ x: x + 30, y }], {
        font: item.bold ? BOLD : FONT,
        color: pal.ink,
      });
    }
  }
  // Places the band, marker and "at capacity" labels, draws the crosshair, publishes the boxes.
  c.done();

  if (canvas.dataset) {
    canvas.dataset.bands = bands.join("; ");
    canvas.dataset.segments = JSON.stringify(segments);
    canvas.dataset.highlight = highlight ?? "";
    canvas.dataset.bars = String(bars);
    // The loads drawn as points of each policy (computed and stable), and the plot's box.
    canvas.dataset.points = JSON.stringify(
      Object.fromEntries(
        policies.map((p) => [p.name, loads.filter((l) => get(l, p.name)?.stable)]),
      ),
    );
    const box = c.plot;
    canvas.dataset.plot = JSON.stringify({
      left: box.left,
      top: box.top,
      right: box.right,
      bottom: box.bottom,
    });
  }
  return { chart: c, segments, bars, bands, height: total };
}
