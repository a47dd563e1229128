// Shared plotting for the Lab's sections: scales (linear and log), axes with 1-2-5 ticks, lines,
// dots with error bars, shaded bands, marker lines and legends on a 2D canvas. Pure drawing of
// the numbers it is given: no model logic and no state beyond the canvas it draws on.

import { prepare } from "../canvas.js";

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
 * A chart on `canvas` (its CSS width, its `height` attribute in CSS px): `x` and `y` are
 * `{ type, min, max, label, format }`. Returns drawing helpers in data coordinates.
 */
export function chart(canvas, { x, y, margin = { left: 66, right: 26, top: 14, bottom: 40 } }) {
  const { ctx, width, height: cssHeight, pal: COLORS } = prepare(canvas);
  const color = (c) => COLORS[c] ?? c;
  const plot = {
    left: margin.left,
    right: width - margin.right,
    top: margin.top,
    bottom: cssHeight - margin.bottom,
  };
  const sx = scale(x.type, x.min, x.max, plot.left, plot.right);
  const sy = scale(y.type, y.min, y.max, plot.bottom, plot.top);
  const inX = (v) => Number.isFinite(v) && v >= x.min && v <= x.max;
  const clampY = (v) => Math.min(Math.max(v, y.min), y.max);
  const font = (size = 11, weight = "") => `${weight} ${size}px system-ui, sans-serif`.trim();

  const api = {
    ctx,
    width,
    height: cssHeight,
    plot,
    sx,
    sy,
    pal: COLORS,

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
      ctx.fillStyle = COLORS.muted;
      ctx.textAlign = "center";
      for (const v of xt) {
        const px = sx(v);
        ctx.beginPath();
        ctx.moveTo(px, plot.top);
        ctx.lineTo(px, plot.bottom);
        ctx.stroke();
        ctx.fillText((x.format ?? String)(v), px, plot.bottom + 14);
      }
      ctx.textAlign = "right";
      for (const v of yt) {
        const py = sy(v);
        ctx.beginPath();
        ctx.moveTo(plot.left, py);
        ctx.lineTo(plot.right, py);
        ctx.stroke();
        ctx.fillText((y.format ?? String)(v), plot.left - 5, py + 4);
      }
      ctx.strokeStyle = COLORS.axis;
      ctx.strokeRect(plot.left, plot.top, plot.right - plot.left, plot.bottom - plot.top);
      ctx.fillStyle = COLORS.ink;
      ctx.textAlign = "center";
      // Titles never run past the plot: squeezed to its width on a narrow screen.
      if (x.label)
        ctx.fillText(x.label, (plot.left + plot.right) / 2, cssHeight - 6, plot.right - plot.left);
      if (y.label) {
        ctx.save();
        ctx.translate(10, (plot.top + plot.bottom) / 2);
        ctx.rotate(-Math.PI / 2);
        ctx.fillText(y.label, 0, 0, plot.bottom - plot.top);
        ctx.restore();
      }
    },

    /** A polyline through the finite points inside the y range (breaks at gaps). */
    line(xs, ys, { color: c = "ink", width: w = 2, dash = [] } = {}) {
      const color = COLORS[c] ?? c;
      ctx.save();
      ctx.beginPath();
      ctx.rect(plot.left, plot.top, plot.right - plot.left, plot.bottom - plot.top);
      ctx.clip();
      ctx.strokeStyle = color;
      ctx.lineWidth = w;
      ctx.setLineDash(dash);
      ctx.beginPath();
      let pen = false;
      for (let i = 0; i < xs.length; i++) {
        const ok = inX(xs[i]) && Number.isFinite(ys[i]) && (y.type !== "log" || ys[i] > 0);
        if (!ok) {
          pen = false;
          continue;
        }
        const px = sx(xs[i]),
          py = sy(clampY(ys[i]));
        if (pen) ctx.lineTo(px, py);
        else ctx.moveTo(px, py);
        pen = true;
      }
      ctx.stroke();
      ctx.restore();
    },

    /** Dots `{ x, y, lo?, hi? }` with optional vertical error bars; `shape` "circle" or "square". */
    dots(points, { color: c = "ink", r = 3.5, shape = "circle", hollow = false } = {}) {
      const color = COLORS[c] ?? c;
      ctx.strokeStyle = color;
      ctx.fillStyle = color;
      ctx.lineWidth = 1.5;
      for (const p of points) {
        if (!inX(p.x) || !Number.isFinite(p.y) || (y.type === "log" && p.y <= 0)) continue;
        const px = sx(p.x),
          py = sy(clampY(p.y));
        if (Number.isFinite(p.lo) && Number.isFinite(p.hi)) {
          ctx.beginPath();
          ctx.moveTo(px, sy(clampY(p.lo)));
          ctx.lineTo(px, sy(clampY(p.hi)));
          ctx.moveTo(px - 3, sy(clampY(p.lo)));
          ctx.lineTo(px + 3, sy(clampY(p.lo)));
          ctx.moveTo(px - 3, sy(clampY(p.hi)));
          ctx.lineTo(px + 3, sy(clampY(p.hi)));
          ctx.stroke();
        }
        ctx.beginPath();
        if (shape === "square") ctx.rect(px - r, py - r, 2 * r, 2 * r);
        else if (shape === "triangle") {
          ctx.moveTo(px, py - r * 1.2);
          ctx.lineTo(px + r * 1.1, py + r * 0.8);
          ctx.lineTo(px - r * 1.1, py + r * 0.8);
          ctx.closePath();
        } else ctx.arc(px, py, r, 0, 2 * Math.PI);
        if (hollow) ctx.stroke();
        else ctx.fill();
      }
    },

    /** A shaded vertical band from x0 to x1 with a label at its top. */
    band(x0, x1, label, { fill = COLORS.band, ink = COLORS.bandInk } = {}) {
      const a = sx(Math.max(x0, x.min)),
        b = sx(Math.min(x1, x.max));
      if (!(b > a)) return;
      ctx.fillStyle = fill;
      ctx.fillRect(a, plot.top, b - a, plot.bottom - plot.top);
      ctx.fillStyle = ink;
      ctx.font = font(11, "600");
      ctx.textAlign = "center";
      const lines = String(label).split("\n");
      for (const [i, l] of lines.entries()) {
        ctx.fillText(l, (a + b) / 2, plot.top + 14 + 13 * i, b - a - 4);
      }
    },

    /** A vertical marker at `v` with a label. */
    vline(v, label, { color: c = "ink", dash = [4, 3] } = {}) {
      const color = COLORS[c] ?? c;
      if (!inX(v)) return;
      const px = sx(v);
      ctx.strokeStyle = color;
      ctx.lineWidth = 1;
      ctx.setLineDash(dash);
      ctx.beginPath();
      ctx.moveTo(px, plot.top);
      ctx.lineTo(px, plot.bottom);
      ctx.stroke();
      ctx.setLineDash([]);
      if (label) {
        ctx.fillStyle = color;
        ctx.font = font(11, "600");
        ctx.textAlign = px > (plot.left + plot.right) / 2 ? "right" : "left";
        ctx.fillText(label, px + (ctx.textAlign === "left" ? 4 : -4), plot.bottom - 6);
      }
    },

    /** A legend box: items `{ label, color, dash?, shape? }`, at the top left or top right. */
    legend(items, { corner = "left" } = {}) {
      ctx.font = font();
      const rowH = 15,
        w = Math.max(...items.map((i) => ctx.measureText(i.label).width)) + 34;
      const x0 = corner === "left" ? plot.left + 8 : plot.right - w - 8,
        y0 = plot.top + 6;
      ctx.fillStyle = COLORS.legendBg;
      ctx.fillRect(x0, y0, w, rowH * items.length + 6);
      items.forEach((item, i) => {
        const yy = y0 + 12 + i * rowH;
        ctx.strokeStyle = color(item.color);
        ctx.fillStyle = color(item.color);
        if (item.shape) {
          ctx.beginPath();
          if (item.shape === "square") ctx.rect(x0 + 10, yy - 7, 7, 7);
          else if (item.shape === "triangle") {
            ctx.moveTo(x0 + 13.5, yy - 8);
            ctx.lineTo(x0 + 17.5, yy - 1);
            ctx.lineTo(x0 + 9.5, yy - 1);
            ctx.closePath();
          } else ctx.arc(x0 + 13.5, yy - 3.5, 3.5, 0, 2 * Math.PI);
          ctx.fill();
        } else {
          ctx.lineWidth = item.width ?? 2;
          ctx.setLineDash(item.dash ?? []);
          ctx.beginPath();
          ctx.moveTo(x0 + 4, yy - 4);
          ctx.lineTo(x0 + 24, yy - 4);
          ctx.stroke();
          ctx.setLineDash([]);
        }
        ctx.fillStyle = COLORS.ink;
        ctx.textAlign = "left";
        ctx.fillText(item.label, x0 + 30, yy);
      });
    },

    /** Text at data coordinates (clamped into the plot). */
    label(vx, vy, text, { color: c = "ink", align = "left", dy = -6 } = {}) {
      if (!inX(vx) || !Number.isFinite(vy)) return;
      ctx.fillStyle = color(c);
      ctx.font = font(11, "600");
      ctx.textAlign = align;
      ctx.fillText(
        text,
        sx(vx) + (align === "left" ? 5 : align === "right" ? -5 : 0),
        sy(clampY(vy)) + dy,
      );
    },
  };
  return api;
}
