// Where a chart's text goes, so that no two pieces of text overlap at any width. Every chart (the
// Lab's plot.js and the Tail page's draw.js) places its text through a `Labels` made for one
// drawing: a label tries its candidate positions in order and takes the first whose box stays
// inside the canvas and overlaps nothing placed or blocked before it. Lines and legends that text
// must not cross are blocked first. After drawing, `publish` writes the boxes to the canvas's
// `data-labels` (JSON), which the browser tests read to prove that no two boxes overlap, from
// 320 px up. Pure layout of the text it is given: no model logic.

/**
 * One placed piece of text: its box in CSS pixels (x, y the top left) and the text.
 * @typedef {{ text: string, x: number, y: number, w: number, h: number }} LabelBox
 */

/**
 * Where a label may go: its anchor (x, y in CSS pixels, y the alphabetic baseline) and how the
 * text sits on it.
 * @typedef {{ x: number, y: number, align?: CanvasTextAlign }} LabelSpot
 */

/** How far two boxes must stay apart, in CSS pixels. */
const GAP = 1;

/** Whether two boxes overlap (touching at `GAP` or less counts). */
export function overlaps(a, b) {
  return (
    a.x < b.x + b.w + GAP && b.x < a.x + a.w + GAP && a.y < b.y + b.h + GAP && b.y < a.y + a.h + GAP
  );
}

export class Labels {
  /**
   * @param {CanvasRenderingContext2D} ctx the context the text is drawn on (or svg.js's stand-in)
   * @param {number} width the canvas's CSS width (px)
   * @param {number} height the canvas's CSS height (px)
   */
  constructor(ctx, width, height) {
    this.ctx = ctx;
    this.width = width;
    this.height = height;
    /** @type {LabelBox[]} */
    this.placed = [];
    /** @type {LabelBox[]} */
    this.blocked = [];
  }

  /** Reserves a rectangle (CSS px) that no later label may cover: a legend, a marker line. */
  block(x, y, w, h) {
    this.blocked.push({ text: "", x, y, w, h });
  }

  /** Reserves a vertical line at `x` from `y0` to `y1` (a marker), 2 px wide. */
  blockLine(x, y0, y1) {
    this.block(x - 1, Math.min(y0, y1), 2, Math.abs(y1 - y0));
  }

  /**
   * Takes `box` for `text` if it is free, then calls `paint()` to draw it (text drawn some other
   * way: rotated, or in a box of its own); returns the box, or null (nothing painted).
   * @param {string} text
   * @param {{ x: number, y: number, w: number, h: number }} box
   * @param {() => void} paint
   * @param {boolean} [over] the text has an opaque patch of its own: it may cover a blocked line
   * @returns {LabelBox | null}
   */
  placeBox(text, box, paint, over = false) {
    const b = { text, x: box.x, y: box.y, w: box.w, h: box.h };
    if (!this.free(b, over)) return null;
    paint();
    this.placed.push(b);
    return b;
  }

  /**
   * The box `text` would take at `spot` in `font` (a CSS font with its size in px; the box is
   * the size tall, from 0.8 of it above the baseline to 0.2 below).
   * @param {string} text
   * @param {LabelSpot} spot
   * @param {string} font
   * @returns {LabelBox}
   */
  box(text, spot, font, maxWidth = Infinity) {
    this.ctx.font = font;
    const w = Math.min(this.ctx.measureText(text).width, maxWidth);
    const size = Number(/(\d+(?:\.\d+)?)px/.exec(font)?.[1] ?? 11);
    const align = spot.align ?? "left";
    const x =
      align === "center"
        ? spot.x - w / 2
        : align === "right" || align === "end"
          ? spot.x - w
          : spot.x;
    return { text, x, y: spot.y - 0.8 * size, w, h: size };
  }

  /**
   * Whether `b` lies inside the canvas and clear of every placed box and (unless `over`: text
   * on an opaque patch of its own, such as a legend, may sit over a line) every blocked one.
   */
  free(b, over = false) {
    if (b.x < 0 || b.y < 0 || b.x + b.w > this.width || b.y + b.h > this.height) return false;
    return (
      !this.placed.some((p) => overlaps(p, b)) &&
      (over || !this.blocked.some((p) => overlaps(p, b)))
    );
  }

  /**
   * Draws `text` at the first of `spots` where it fits (inside the canvas, over nothing placed
   * or blocked) and returns its box; returns null and draws nothing when no spot fits, so a
   * label that would collide is left out rather than drawn over another.
   * @param {string} text
   * @param {LabelSpot[]} spots
   * `maxWidth` squeezes the text to at most that width (canvas `fillText`'s own argument); `bg`
   * paints the box first, so a label on a line stays readable.
   * @param {{ font?: string, color?: string, maxWidth?: number, bg?: string }} [style]
   * @returns {LabelBox | null}
   */
  place(text, spots, { font = "11px system-ui, sans-serif", color, maxWidth, bg } = {}) {
    for (const spot of spots) {
      const b = this.box(text, spot, font, maxWidth);
      if (!this.free(b)) continue;
      const ctx = this.ctx;
      if (bg) {
        ctx.fillStyle = bg;
        ctx.fillRect(b.x - 2, b.y, b.w + 4, b.h);
      }
      ctx.font = font;
      if (color) ctx.fillStyle = color;
      ctx.textAlign = spot.align ?? "left";
      ctx.textBaseline = "alphabetic";
      if (maxWidth !== undefined) ctx.fillText(text, spot.x, spot.y, maxWidth);
      else ctx.fillText(text, spot.x, spot.y);
      this.placed.push(b);
      return b;
    }
    return null;
  }

  /** Writes the placed boxes to `canvas.dataset.labels` (JSON, rounded to 0.1 px) for the tests. */
  publish(canvas) {
    if (!canvas?.dataset) return;
    const r = (v) => Math.round(v * 10) / 10;
    const json = JSON.stringify(
      this.placed.map((b) => ({ text: b.text, x: r(b.x), y: r(b.y), w: r(b.w), h: r(b.h) })),
    );
    if (canvas.dataset.labels !== json) canvas.dataset.labels = json;
  }
}

/**
 * The usual spots for a label beside a point (x, y): above right, above left, below right,
 * below left, each `d` px away, then further out.
 * @returns {LabelSpot[]}
 */
export function around(x, y, d = 6, size = 11) {
  const out = [];
  for (const k of [1, 2.5]) {
    out.push(
      { x: x + d, y: y - d * k, align: "left" },
      { x: x - d, y: y - d * k, align: "right" },
      { x: x + d, y: y + d * k + 0.8 * size, align: "left" },
      { x: x - d, y: y + d * k + 0.8 * size, align: "right" },
    );
  }
  return out;
}
