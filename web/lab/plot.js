// Shared plotting for the Lab's sections: scales (linear and log), axes with 1-2-5 ticks, lines,
// dots with error bars, shaded bands, marker lines and legends on a 2D canvas. Pure drawing of
// the numbers it is given: no model logic and no state beyond the canvas it draws on.
//
// Every piece of text goes through one `Labels` (web/labels.js), so no two overlap at any width:
// tick labels and axis titles as the axes are drawn; the legend once the data is drawn (in the
// corner that covers the fewest drawn points, or above the plot when the chart is too narrow for
// it to sit inside); then the marker, point, band and line labels, each at the first of its
// candidate spots that is free (left out when none is). `done()` (or `legend()`, for a section
// that ends with it) places them, draws the crosshair (web/touch.js) and publishes the boxes
// to `data-labels`.

import { prepare } from "../canvas.js";
import { Labels, around } from "../labels.js";
import { superscript } from "../format.js";
import { paintGuide, setFrame } from "../touch.js";

/** A scale from data to pixels: `type` "linear" or "log", data domain [min, max] → [p0, p1]. */
export function scale(type, min, max, p0, p1) {
  const f = type === "log" ? Math.log : (v) => v;
  const a = f(min),
    b = f(max);
  const map = (v) => p0 + ((f(v) - a) / (b - a)) * (p1 - p0);
  map.type = type;
  map.min = min;
  map.max = max;
  map.inverse = (p) => {
    const u = a + ((p - p0) / (p1 - p0)) * (b - a);
    return type === "log" ? Math.exp(u) : u;
  };
  return map;
}

/** Tick values: 1-2-5 per decade on a log scale (thinned to fit), "nice" steps on a linear one. */
export function ticks(type, min, max, maxCount = 8) {
  if (type === "log") {
    for (const mantissas of [[1, 2, 5], [1, 3], [1]]) {
      const out = [];
      for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
        for (const m of mantissas) {
          const v = m * 10 ** e;
          if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) out.push(Number(v.toPrecision(12)));
        }
      }
      if (out.length <= maxCount) return out;
    }
    const out = [];
    for (let e = Math.ceil(Math.log10(min)); e <= Math.floor(Math.log10(max)); e += 2)
      out.push(10 ** e);
    return out;
  }
  const raw = (max - min) / Math.max(1, maxCount - 1);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out = [];
  for (let v = Math.ceil(min / step - 1e-9) * step; v <= max + 1e-9 * step; v += step)
    out.push(Number(v.toPrecision(12)));
  return out;
}

/**
 * The one tick format of a log axis from `min` to `max`: plain decimals ("0.5", "20", "1000")
 * when every tick reads well that way (the axis stays within 0.01 to 100,000), else powers of
 * ten with superscripts for every tick ("10⁻³", "2×10⁻³", "10⁰"): never both on one axis.
 */
export function logFormat(min, max) {
  if (min >= 0.01 && max < 1e5) return (v) => String(Number(v.toPrecision(6)));
  return (v) => {
    const e = Math.floor(Math.log10(v) + 1e-9);
    const m = Number((v / 10 ** e).toPrecision(3));
    return m === 1 ? `10${superscript(e)}` : `${m}×10${superscript(e)}`;
  };
}

/**
 * The part of the segment from (x0, f0) to (x1, f1) with f inside [lo, hi], as parameters
 * [t0, t1] of 0..1, or null when none of it is: a line leaving the plot stops at its edge.
 */
export function clipSegment(f0, f1, lo, hi) {
  let t0 = 0,
    t1 = 1;
  const d = f1 - f0;
  for (const [p, q] of [
    [-d, f0 - lo],
    [d, hi - f0],
  ]) {
    if (p === 0) {
      if (q < 0) return null;
    } else {
      const r = q / p;
      if (p < 0) t0 = Math.max(t0, r);
      else t1 = Math.min(t1, r);
    }
  }
  return t0 <= t1 ? [t0, t1] : null;
}

/**
 * The path of a marker of `shape` ("circle", "square", "triangle", "diamond", or "plus", two
 * strokes with no area) of radius `r` at (x, y); the caller fills or strokes it.
 */
export function shapePath(ctx, shape, x, y, r) {
  ctx.beginPath();
  if (shape === "plus") {
    ctx.moveTo(x - r, y);
    ctx.lineTo(x + r, y);
    ctx.moveTo(x, y - r);
    ctx.lineTo(x, y + r);
  } else if (shape === "square") ctx.rect(x - r * 0.9, y - r * 0.9, 1.8 * r, 1.8 * r);
  else if (shape === "triangle") {
    ctx.moveTo(x, y - r * 1.25);
    ctx.lineTo(x + r * 1.15, y + r * 0.85);
    ctx.lineTo(x - r * 1.15, y + r * 0.85);
    ctx.closePath();
  } else if (shape === "diamond") {
    ctx.moveTo(x, y - r * 1.2);
    ctx.lineTo(x + r * 1.2, y);
    ctx.lineTo(x, y + r * 1.2);
    ctx.lineTo(x - r * 1.2, y);
    ctx.closePath();
  } else ctx.arc(x, y, r, 0, 2 * Math.PI);
}

const ROW = 15;
/** The legend's size for `items` (CSS px), in the current font. */
function legendSize(ctx, items) {
  return {
    w: Math.max(...items.map((i) => ctx.measureText(i.label).width)) + 34,
    h: ROW * items.length + 6,
  };
}

/**
 * A chart on `canvas` (its CSS width, its `height` attribute in CSS px): `x` and `y` are
 * `{ type, min, max, label, format }`. `legend` (items, as for `legend()`) is drawn by `done()`:
 * inside the plot in its emptiest corner (`legendCorner` "left" or "right" breaks ties), or
 * above the plot when it would take more than half the plot's width. Returns drawing helpers in
 * data coordinates.
 */
export function chart(
  canvas,
  {
    x,
    y,
    margin = { left: 66, right: 26, top: 14, bottom: 40 },
    legend = null,
    legendCorner: corner = "left",
  },
) {
  const { ctx, width, height: cssHeight, pal: COLORS } = prepare(canvas);
  const color = (c) => COLORS[c] ?? c;
  const font = (size = 11, weight = "") => `${weight} ${size}px system-ui, sans-serif`.trim();
  const labels = new Labels(ctx, width, cssHeight);
  ctx.font = font();
  const m = { ...margin };
  // The left margin holds the widest y tick label and, beside it, the rotated y title: with
  // less, the title collides with a tick and is left out (the loaded chart lost "latency").
  const yTickFormat = y.format ?? (y.type === "log" ? logFormat(y.min, y.max) : String);
  const widest = Math.max(
    0,
    ...ticks(y.type, y.min, y.max, 12).map((v) => ctx.measureText(yTickFormat(v)).width),
  );
  const needed = Math.ceil(widest + 7 + (y.label ? 15 : 2));
  if (width < 420) {
    // A narrow screen: the y axis title and ticks take no more room than they need.
    m.left = Math.min(m.left, Math.max(54, needed));
    m.right = Math.min(m.right, 12);
  }
  m.left = Math.max(m.left, needed);
  let legendAbove = false;
  if (legend) {
    const { w, h } = legendSize(ctx, legend);
    if (w > 0.5 * (width - m.left - m.right)) {
      legendAbove = true;
      m.top += h + 4;
    }
  }
  const plot = {
    left: m.left,
    right: width - m.right,
    top: m.top,
    bottom: cssHeight - m.bottom,
  };
  const sx = scale(x.type, x.min, x.max, plot.left, plot.right);
  const sy = scale(y.type, y.min, y.max, plot.bottom, plot.top);
  setFrame(canvas, {
    toPx: sx,
    toX: sx.inverse,
    toPy: sy,
    left: plot.left,
    right: plot.right,
    top: plot.top,
    bottom: plot.bottom,
  });
  const inX = (v) => Number.isFinite(v) && v >= x.min && v <= x.max;
  const clampY = (v) => Math.min(Math.max(v, y.min), y.max);
  const fy = y.type === "log" ? Math.log : (v) => v;
  const fLo = fy(y.min),
    fHi = fy(y.max);
  const pyOf = (f) => plot.bottom + ((f - fLo) / (fHi - fLo)) * (plot.top - plot.bottom);
  const xFormat = x.format ?? (x.type === "log" ? logFormat(x.min, x.max) : String);
  const yFormat = y.format ?? (y.type === "log" ? logFormat(y.min, y.max) : String);
  /** Points drawn (CSS px), so the legend can sit where it covers the fewest. */
  const drawn = [];
  /** Text placed once the legend is down: [priority, place()]. */
  const pending = [];
  let finished = false;

  /** Draws the legend box with its top left at (x0, y0); its rows are placed labels. */
  function drawLegend(items, x0, y0) {
    ctx.font = font();
    const { w, h } = legendSize(ctx, items);
    ctx.fillStyle = COLORS.legendBg;
    ctx.fillRect(x0, y0, w, h);
    items.forEach((item, i) => {
      const yy = y0 + 14 + i * ROW;
      labels.placeBox(
        item.label,
        { x: x0 + 2, y: yy - 11, w: w - 4, h: 13 },
        () => {
          ctx.strokeStyle = color(item.color);
          ctx.fillStyle = color(item.color);
          if (item.shape) {
            shapePath(ctx, item.shape, x0 + 14, yy - 4, 4.5);
            if (item.hollow) {
              ctx.lineWidth = 1.5;
              ctx.stroke();
            } else ctx.fill();
          } else {
            ctx.lineWidth = item.width ?? 2;
            ctx.setLineDash(item.dash ?? []);
            ctx.beginPath();
            ctx.moveTo(x0 + 4, yy - 4);
            ctx.lineTo(x0 + 24, yy - 4);
            ctx.stroke();
            ctx.setLineDash([]);
          }
          ctx.font = font();
          ctx.fillStyle = COLORS.ink;
          ctx.textAlign = "left";
          ctx.textBaseline = "alphabetic";
          ctx.fillText(item.label, x0 + 30, yy);
        },
        true,
      );
    });
  }

  /** The corner of the plot for a legend of `items` that covers the fewest drawn points. */
  function legendCorner(items, prefer) {
    ctx.font = font();
    const { w, h } = legendSize(ctx, items);
    const left = plot.left + 6,
      right = plot.right - w - 6,
      top = plot.top + 6,
      bottom = plot.bottom - h - 6;
    const corners = [
      [left, top],
      [right, top],
      [left, bottom],
      [right, bottom],
    ];
    if (prefer === "right") corners.unshift(corners.splice(1, 1)[0]);
    let best = corners[0];
    let fewest = Infinity;
    for (const [cx, cy] of corners) {
      let n = 0;
      for (const [px, py, weight] of drawn)
        if (px >= cx - 4 && px <= cx + w + 4 && py >= cy - 4 && py <= cy + h + 4) n += weight;
      // The text placed so far (a marker's label is not yet) must stay clear too.
      if (!labels.free({ text: "", x: cx, y: cy, w, h }, true)) n += 1e6;
      if (n < fewest) {
        fewest = n;
        best = [cx, cy];
      }
    }
    return best;
  }

  function flush() {
    pending.sort((a, b) => a[0] - b[0]);
    for (const [, place] of pending) place();
    pending.length = 0;
  }

  function finish() {
    if (finished) return;
    finished = true;
    if (legend) api.legend(legend, { corner });
    flush();
    paintGuide(canvas, ctx, COLORS);
    labels.publish(canvas);
  }

  const api = {
    ctx,
    width,
    height: cssHeight,
    plot,
    sx,
    sy,
    pal: COLORS,
    labels,

    /** Grid, tick labels and axis titles. */
    axes() {
      ctx.font = font();
      ctx.lineWidth = 1;
      const xt = ticks(
        x.type,
        x.min,
        x.max,
        Math.max(3, Math.floor((plot.right - plot.left) / 70)),
      );
      const yt = ticks(
        y.type,
        y.min,
        y.max,
        Math.max(3, Math.floor((plot.bottom - plot.top) / 28)),
      );
      ctx.strokeStyle = COLORS.grid;
      for (const v of xt) {
        const px = sx(v);
        ctx.beginPath();
        ctx.moveTo(px, plot.top);
        ctx.lineTo(px, plot.bottom);
        ctx.stroke();
      }
      for (const v of yt) {
        const py = sy(v);
        ctx.beginPath();
        ctx.moveTo(plot.left, py);
        ctx.lineTo(plot.right, py);
        ctx.stroke();
      }
      ctx.strokeStyle = COLORS.axis;
      ctx.strokeRect(plot.left, plot.top, plot.right - plot.left, plot.bottom - plot.top);
      const style = { font: font(), color: COLORS.muted };
      // The y ticks first: where the axes meet, an x tick moves aside for the y tick.
      for (const v of yt)
        labels.place(yFormat(v), [{ x: plot.left - 5, y: sy(v) + 4, align: "right" }], style);
      for (const v of xt) {
        const px = sx(v);
        const ty = plot.bottom + 14;
        labels.place(
          xFormat(v),
          [
            { x: px, y: ty, align: "center" },
            { x: px, y: ty, align: px < width / 2 ? "left" : "right" },
          ],
          style,
        );
      }
      // Titles never run past the plot: squeezed to its width on a narrow screen.
      const title = { font: font(), color: COLORS.ink, maxWidth: plot.right - plot.left };
      if (x.label)
        labels.place(
          x.label,
          [{ x: (plot.left + plot.right) / 2, y: cssHeight - 6, align: "center" }],
          title,
        );
      if (y.label) {
        ctx.font = font();
        const h = plot.bottom - plot.top;
        const w = Math.min(ctx.measureText(y.label).width, h);
        const mid = (plot.top + plot.bottom) / 2;
        labels.placeBox(y.label, { x: 10 - 8.8, y: mid - w / 2, w: 11, h: w }, () => {
          ctx.save();
          ctx.fillStyle = COLORS.ink;
          ctx.textAlign = "center";
          ctx.textBaseline = "alphabetic";
          ctx.translate(10, mid);
          ctx.rotate(-Math.PI / 2);
          ctx.fillText(y.label, 0, 0, h);
          ctx.restore();
        });
      }
      if (legendAbove && legend) {
        drawLegend(
          legend,
          Math.max(4, Math.min(plot.left, width - legendSize(ctx, legend).w - 4)),
          4,
        );
        legend = null;
      }
    },

    /**
     * A polyline through the finite points (breaks at gaps). A segment leaving the y range is
     * cut where it crosses the plot's edge: a curve below the axis's minimum stops there, it is
     * never drawn flat along the edge.
     */
    line(xs, ys, { color: c = "ink", width: w = 2, dash = [] } = {}) {
      ctx.save();
      ctx.beginPath();
      ctx.rect(plot.left, plot.top, plot.right - plot.left, plot.bottom - plot.top);
      ctx.clip();
      ctx.strokeStyle = color(c);
      ctx.lineWidth = w;
      ctx.setLineDash(dash);
      ctx.beginPath();
      let prev = null;
      let pen = false;
      for (let i = 0; i < xs.length; i++) {
        const ok = inX(xs[i]) && Number.isFinite(ys[i]) && (y.type !== "log" || ys[i] > 0);
        if (!ok) {
          prev = null;
          pen = false;
          continue;
        }
        const cur = [sx(xs[i]), fy(ys[i])];
        if (prev) {
          const t = clipSegment(prev[1], cur[1], fLo, fHi);
          if (t) {
            const at = (k) => [
              prev[0] + k * (cur[0] - prev[0]),
              pyOf(prev[1] + k * (cur[1] - prev[1])),
            ];
            const [ax, ay] = at(t[0]);
            const [bx, by] = at(t[1]);
            if (!pen || t[0] > 0) ctx.moveTo(ax, ay);
            ctx.lineTo(bx, by);
            drawn.push([bx, by, 1]);
            pen = t[1] === 1;
          } else pen = false;
        } else if (cur[1] >= fLo && cur[1] <= fHi) {
          // A lone first point: the pen rests on it.
          ctx.moveTo(cur[0], pyOf(cur[1]));
          drawn.push([cur[0], pyOf(cur[1]), 1]);
          pen = true;
        }
        prev = cur;
      }
      ctx.stroke();
      ctx.restore();
    },

    /**
     * Dots `{ x, y, lo?, hi? }` with optional vertical error bars; `shape` "circle", "square",
     * "triangle" or "diamond" (one per series, so series differ by shape as well as colour).
     * A bar's caps are wider than its marker and drawn over it, so an interval shorter than
     * the marker still shows, as the two caps either side of it.
     */
    dots(points, { color: c = "ink", r = 5, shape = "circle", hollow = false } = {}) {
      const col = color(c);
      ctx.lineWidth = 1.5;
      const cap = r + 3;
      for (const p of points) {
        if (!inX(p.x) || !Number.isFinite(p.y) || (y.type === "log" && p.y <= 0)) continue;
        const px = sx(p.x),
          py = sy(clampY(p.y));
        drawn.push([px, py, 3]);
        const bars = Number.isFinite(p.lo) && Number.isFinite(p.hi);
        const ylo = bars ? sy(clampY(p.lo)) : 0,
          yhi = bars ? sy(clampY(p.hi)) : 0;
        ctx.strokeStyle = col;
        if (bars) {
          ctx.beginPath();
          ctx.moveTo(px, ylo);
          ctx.lineTo(px, yhi);
          ctx.stroke();
        }
        shapePath(ctx, shape, px, py, r);
        if (hollow) {
          ctx.fillStyle = COLORS.bg;
          ctx.fill();
          ctx.stroke();
        } else {
          ctx.fillStyle = col;
          ctx.fill();
        }
        if (bars) {
          ctx.beginPath();
          ctx.moveTo(px - cap, ylo);
          ctx.lineTo(px + cap, ylo);
          ctx.moveTo(px - cap, yhi);
          ctx.lineTo(px + cap, yhi);
          ctx.stroke();
        }
      }
    },

    /** A shaded vertical band from x0 to x1 with a label at its top (lines split at "\n"). */
    band(x0, x1, label, { fill = COLORS.band, ink = COLORS.bandInk } = {}) {
      const a = sx(Math.max(x0, x.min)),
        b = sx(Math.min(x1, x.max));
      if (!(b > a)) return;
      ctx.fillStyle = fill;
      ctx.fillRect(a, plot.top, b - a, plot.bottom - plot.top);
      const lines = String(label).split("\n");
      pending.push([
        3,
        () => {
          for (const [i, l] of lines.entries()) {
            if (!l) continue;
            const yy = plot.top + 14 + 13 * i;
            labels.place(
              l,
              [
                { x: (a + b) / 2, y: yy, align: "center" },
                { x: b - 2, y: yy, align: "right" },
                { x: (a + b) / 2, y: yy + 26, align: "center" },
              ],
              { font: font(11, "600"), color: ink, maxWidth: Math.max(1, b - a - 4) },
            );
          }
        },
      ]);
    },

    /** A vertical marker at `v` with a label beside it; no text may cross the line. */
    vline(v, label, { color: c = "ink", dash = [4, 3] } = {}) {
      const col = color(c);
      if (!inX(v)) return;
      const px = sx(v);
      ctx.strokeStyle = col;
      ctx.lineWidth = 1;
      ctx.setLineDash(dash);
      ctx.beginPath();
      ctx.moveTo(px, plot.top);
      ctx.lineTo(px, plot.bottom);
      ctx.stroke();
      ctx.setLineDash([]);
      labels.blockLine(px, plot.top, plot.bottom);
      if (label) {
        const right = px <= (plot.left + plot.right) / 2;
        const spots = [];
        for (const yy of [
          plot.bottom - 6,
          plot.bottom - 22,
          plot.top + 12,
          (plot.top + plot.bottom) / 2,
        ]) {
          const beside = [
            { x: px + 4, y: yy, align: /** @type {CanvasTextAlign} */ ("left") },
            { x: px - 4, y: yy, align: /** @type {CanvasTextAlign} */ ("right") },
          ];
          spots.push(...(right ? beside : beside.reverse()));
        }
        pending.push([1, () => labels.place(label, spots, { font: font(11, "600"), color: col })]);
      }
    },

    /**
     * The legend: items `{ label, color, dash?, width?, shape?, hollow? }`, in the corner of
     * the plot that covers the fewest drawn points (`corner` breaks ties: "left" or "right").
     * Then the pending labels are placed, and the chart is finished (see `done`).
     */
    legend(items, { corner = "left" } = {}) {
      if (items?.length) {
        const [x0, y0] = legendCorner(items, corner);
        drawLegend(items, x0, y0);
      }
      legend = null;
      finish();
    },

    /** Text at data coordinates, beside its point (left out where it would cover other text). */
    label(vx, vy, text, { color: c = "ink", align = "left", dy = -6 } = {}) {
      if (!inX(vx) || !Number.isFinite(vy)) return;
      const px = sx(vx),
        py = sy(clampY(vy));
      const first = {
        x: px + (align === "left" ? 5 : align === "right" ? -5 : 0),
        y: py + dy,
        align: /** @type {CanvasTextAlign} */ (align),
      };
      pending.push([
        2,
        () =>
          labels.place(text, [first, ...around(px, py, 8)], {
            font: font(11, "600"),
            color: color(c),
          }),
      ]);
    },

    /**
     * A direct label on a curve (xs, ys): at the first free spot along it, from the right,
     * on a patch of the background so the curve under it does not hide it.
     */
    lineLabel(xs, ys, text, { color: c = "ink" } = {}) {
      const spots = [];
      for (let i = xs.length - 1; i >= 0; i -= Math.max(1, Math.floor(xs.length / 24))) {
        const v = ys[i];
        if (!inX(xs[i]) || !Number.isFinite(v) || v < y.min || v > y.max) continue;
        const px = sx(xs[i]),
          py = sy(v);
        spots.push({ x: px + 4, y: py - 5, align: /** @type {CanvasTextAlign} */ ("left") });
        spots.push({ x: px - 4, y: py + 14, align: /** @type {CanvasTextAlign} */ ("right") });
      }
      const f = font(11, "600");
      const inside = (s) => {
        const b = labels.box(text, s, f);
        return (
          b.x >= plot.left && b.x + b.w <= plot.right && b.y >= plot.top && b.y + b.h <= plot.bottom
        );
      };
      pending.push([
        4,
        () => labels.place(text, spots.filter(inside), { font: f, color: color(c), bg: COLORS.bg }),
      ]);
    },

    /** Places what is pending, draws the crosshair and publishes the label boxes. */
    done() {
      finish();
    },
  };
  return api;
}
