// Charts you can touch: a crosshair with the exact values at the pointer or the focused reading
// position, and a marker line (a chart's chosen setting) dragged by pointer or moved by arrow keys,
// which moves the SAME control as its slider (the slider's value changes and it gets an `input`
// event, so its output, the URL and the recompute follow exactly as if the slider moved).
//
// A chart module publishes its frame after each drawing (`setFrame`: data x ↔ CSS px, the plot's
// box) and calls `paintGuide` last; a section (or the Tail piece) says what its chart can read:
//
//   touchChart(canvas, {
//     xs: () => number[],           // the data x's the guide snaps to, ascending
//     read: (x) => ({ lines: ["n = 100", "theory 63.4%"], marks: [{ y, color }] }) | null,
//     marker: {                     // optional: the draggable marker line
//       input,                      // the slider it moves
//       value: () => number,        // the marker's data x now
//       toControl: (x) => string,   // data x → the slider's value, snapped to its stops
//       step?: (k) => string,       // the slider's value k steps on (default: stepUp/stepDown)
//     },
//     redraw: () => void,           // draws the chart again (once a frame)
//   })
//
// The canvas becomes focusable (tabindex 0) with role slider: its value is the marker's (or the
// reading position's) and its `aria-valuetext` the exact values there, so a screen reader reads a
// change once. A visually hidden caption under the chart (`data-crosshair`, not live) holds the
// same text and describes the chart; `canvas.dataset.guide` is the guide's data x and
// `data-marker-px` where the marker is drawn, for tests.
// Pointer moves change only the drawing; the caption and valuetext change on focus, keys and the
// end of a drag. Pointer: a ±10 px hit zone around the marker (cursor ew-resize), `touch-action:
// pan-y`, so a vertical swipe still scrolls the page.

/**
 * Where a chart drew its data: data x ↔ CSS px, data y → CSS px, and the plot's box.
 * @typedef {{ toPx: (x: number) => number, toX: (px: number) => number,
 *   toPy?: (y: number) => number, left: number, right: number, top: number, bottom: number }} Frame
 */
/**
 * @typedef {{ input: HTMLInputElement, value: () => number, toControl: (x: number) => string,
 *   step?: (k: number) => string }} Marker
 * @typedef {{ lines: string[], marks?: { y: number, color: string }[] }} Reading
 * @typedef {{ xs: () => number[], read: (x: number) => Reading | null, marker?: Marker,
 *   redraw: () => void }} TouchOptions
 */

/** How near the marker (CSS px) a press grabs it. */
export const HIT = 10;

/** @type {WeakMap<object, Frame>} */
const frames = new WeakMap();
/** @type {WeakMap<object, Touch>} */
const touches = new WeakMap();

/** Records where `canvas`'s chart was drawn (called by the drawing code after each draw). */
export function setFrame(canvas, frame) {
  frames.set(canvas, frame);
}

/** The frame `canvas` was last drawn with, if any. */
export const frameOf = (canvas) => frames.get(canvas);

/** The x of `xs` nearest `x` in pixels (so a log axis snaps as the eye does). */
function nearest(xs, x, toPx) {
  let best = null;
  let gap = Infinity;
  const p = toPx(x);
  for (const v of xs) {
    const d = Math.abs(toPx(v) - p);
    if (d < gap) {
      gap = d;
      best = v;
    }
  }
  return best;
}

class Touch {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {TouchOptions} options
   */
  constructor(canvas, options) {
    this.canvas = canvas;
    this.options = options;
    /** The guide: null, "marker" (at the marker, wherever it moves) or a data x. */
    this.guide = /** @type {null | "marker" | number} */ (null);
    this.dragging = false;
    this.focused = false;
    /** Where the pointer was pressed on the marker (CSS px), until it moves. */
    this.pressedAt = NaN;
    /** The latest dragged value not yet applied, and the frame that applies it. */
    this.dragValue = /** @type {string | undefined} */ (undefined);
    this.dragFrame = 0;
    const id = `${canvas.id || `chart-${Math.random().toString(36).slice(2, 9)}`}-reading`;
    this.caption = document.createElement("p");
    this.caption.className = "visually-hidden chart-reading";
    this.caption.id = id;
    this.caption.dataset.crosshair = "";
    this.caption.setAttribute("aria-live", "off");
    canvas.after(this.caption);
    canvas.tabIndex = 0;
    canvas.setAttribute("role", "slider");
    canvas.setAttribute("aria-describedby", id);
    canvas.dataset.touch = options.marker ? "marker" : "read";
    canvas.classList.add("touch-chart");
    this.listen();
    this.describe();
  }

  /** The data x the guide stands at now (snapped to the chart's data), or null. */
  at() {
    const frame = frames.get(this.canvas);
    if (this.guide === null || !frame) return null;
    const x = this.guide === "marker" ? this.options.marker?.value() : this.guide;
    if (!Number.isFinite(x)) return null;
    return nearest(this.options.xs(), x, frame.toPx);
  }

  /** The caption, the valuetext and the slider's value, from the reading at the guide. */
  describe() {
    const { marker } = this.options;
    const xs = this.options.xs();
    const x = this.at() ?? (marker ? null : xs[Math.floor(xs.length / 2)]);
    const reading = x === null || x === undefined ? null : this.options.read(x);
    const text = reading ? reading.lines.join("; ") : "";
    if (this.caption.textContent !== text) this.caption.textContent = text;
    const c = this.canvas;
    if (marker) {
      c.setAttribute("aria-valuemin", marker.input.min);
      c.setAttribute("aria-valuemax", marker.input.max);
      c.setAttribute("aria-valuenow", marker.input.value);
      const own = marker.input.getAttribute("aria-valuetext") ?? marker.input.value;
      c.setAttribute("aria-valuetext", text || own);
    } else {
      c.setAttribute("aria-valuemin", "0");
      c.setAttribute("aria-valuemax", String(Math.max(0, xs.length - 1)));
      c.setAttribute("aria-valuenow", String(Math.max(0, xs.indexOf(x))));
      c.setAttribute("aria-valuetext", text || "no data yet");
    }
  }

  /** Moves the marker's control to `value` as the slider would move it. */
  setControl(value) {
    const input = this.options.marker?.input;
    if (!input || input.value === value) return;
    input.value = value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }

  /**
   * A drag's value, applied once a frame: pointer moves can outnumber frames, and each applied
   * value is a new setting (a recompute, a URL, the prose), so only the latest one of a frame is.
   */
  dragTo(value) {
    this.dragValue = value;
    if (this.dragFrame) return;
    this.dragFrame = requestAnimationFrame(() => {
      this.dragFrame = 0;
      if (this.dragValue !== undefined) this.setControl(this.dragValue);
      this.dragValue = undefined;
    });
  }

  listen() {
    const c = this.canvas;
    const px = (e) => e.clientX - c.getBoundingClientRect().left - c.clientLeft;
    const nearMarker = (p) => {
      const frame = frames.get(c);
      const m = this.options.marker;
      if (!frame || !m) return false;
      const v = m.value();
      return Number.isFinite(v) && Math.abs(frame.toPx(v) - p) <= HIT;
    };
    // A drag moves the marker by as much as the pointer moved: the marker keeps its offset from
    // the pointer (the press need not be exactly on the line), and a press alone changes nothing.
    let grab = 0;
    const follow = (p) => {
      const frame = frames.get(c);
      if (!frame) return;
      const x = frame.toX(Math.min(Math.max(p, frame.left), frame.right));
      if (this.dragging) {
        const to = frame.toX(Math.min(Math.max(p + grab, frame.left), frame.right));
        this.dragTo(this.options.marker.toControl(to));
      }
      this.guide = x;
      this.options.redraw();
    };
    c.addEventListener("pointerdown", (e) => {
      const p = px(e);
      if (!nearMarker(p)) return;
      const frame = frames.get(c);
      grab = frame ? frame.toPx(this.options.marker.value()) - p : 0;
      this.dragging = true;
      this.pressedAt = p;
      c.setPointerCapture?.(e.pointerId);
      e.preventDefault();
    });
    c.addEventListener("pointermove", (e) => {
      const p = px(e);
      c.style.cursor = this.dragging || nearMarker(p) ? "ew-resize" : "crosshair";
      // (A press that has not moved yet is not a drag: a click on the marker changes nothing.)
      if (this.dragging && p === this.pressedAt) return;
      this.pressedAt = NaN;
      follow(p);
    });
    const end = () => {
      if (!this.dragging) return;
      this.dragging = false;
      // The drag's last value applies now, before the reading is described.
      if (this.dragFrame) {
        cancelAnimationFrame(this.dragFrame);
        this.dragFrame = 0;
        if (this.dragValue !== undefined) this.setControl(this.dragValue);
        this.dragValue = undefined;
      }
      this.describe();
    };
    c.addEventListener("pointerup", end);
    c.addEventListener("pointercancel", end);
    c.addEventListener("pointerleave", () => {
      if (this.dragging) return;
      this.guide = this.focused ? this.keyGuide() : null;
      this.options.redraw();
    });
    c.addEventListener("focus", () => {
      this.focused = true;
      this.guide = this.keyGuide();
      this.describe();
      this.options.redraw();
    });
    c.addEventListener("blur", () => {
      this.focused = false;
      this.guide = null;
      this.options.redraw();
    });
    c.addEventListener("keydown", (e) => {
      const k =
        { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1, PageDown: -10, PageUp: 10 }[
          e.key
        ] ?? (e.key === "Home" ? -Infinity : e.key === "End" ? Infinity : 0);
      if (k === 0) return;
      e.preventDefault();
      this.step(k);
      this.describe();
      this.options.redraw();
    });
  }

  /** Where the guide stands for a keyboard reader: at the marker, or the last reading. */
  keyGuide() {
    if (this.options.marker) return "marker";
    const xs = this.options.xs();
    return typeof this.guide === "number" ? this.guide : (xs[Math.floor(xs.length / 2)] ?? null);
  }

  /** `k` steps on (±Infinity: to an end): the marker's control, or the reading position. */
  step(k) {
    const m = this.options.marker;
    if (m) {
      const input = m.input;
      if (m.step) this.setControl(m.step(k));
      else if (!Number.isFinite(k)) this.setControl(k < 0 ? input.min : input.max);
      else {
        const before = input.value;
        if (k > 0) input.stepUp(k);
        else input.stepDown(-k);
        const after = input.value;
        input.value = before;
        this.setControl(after);
      }
      this.guide = "marker";
      return;
    }
    const xs = this.options.xs();
    if (xs.length === 0) return;
    const at = this.at();
    const i = at === null ? Math.floor(xs.length / 2) : xs.indexOf(at);
    const j = Math.min(
      xs.length - 1,
      Math.max(0, Number.isFinite(k) ? i + k : k < 0 ? 0 : xs.length),
    );
    this.guide = xs[j];
  }
}

/**
 * Makes `canvas` answer the pointer and the keyboard (see the top of this file).
 * @param {HTMLCanvasElement} canvas
 * @param {TouchOptions} options
 */
export function touchChart(canvas, options) {
  const t = new Touch(canvas, options);
  touches.set(canvas, t);
  return {
    /** Writes the caption and valuetext again (the data under the guide changed). */
    describe: () => t.describe(),
  };
}

/**
 * Draws `canvas`'s crosshair, if it has one now: a vertical guide at the nearest data x, a ring
 * at each value read there, and the exact values in a box at the top of the plot (an overlay,
 * opaque, on top of the chart's own labels, gone when the pointer leaves). Called last by the
 * drawing code, on the live canvas only (an export has no crosshair).
 * @param {any} canvas
 * @param {CanvasRenderingContext2D} ctx
 * @param {Record<string, string>} pal the chart's palette (a mark's colour may name one)
 */
export function paintGuide(canvas, ctx, pal) {
  const t = touches.get(canvas);
  const frame = frames.get(canvas);
  if (!t || !frame) return;
  // Where the marker is drawn (CSS px from the canvas's left), for tests that drag it.
  const mv = t.options.marker?.value();
  if (Number.isFinite(mv)) canvas.dataset.markerPx = frame.toPx(mv).toFixed(1);
  const x = t.at();
  delete canvas.dataset.guide;
  if (x === null) return;
  const reading = t.options.read(x);
  if (!reading) return;
  canvas.dataset.guide = String(x);
  // At the marker (keyboard), the data under it may have changed since the key: say it again.
  if (t.guide === "marker") t.describe();
  const px = frame.toPx(x);
  ctx.save();
  ctx.setLineDash([]);
  ctx.strokeStyle = pal.ink;
  ctx.globalAlpha = 0.7;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(px, frame.top);
  ctx.lineTo(px, frame.bottom);
  ctx.stroke();
  ctx.globalAlpha = 1;
  for (const m of reading.marks ?? []) {
    const py = frame.toPy?.(m.y);
    if (!Number.isFinite(py) || py < frame.top - 1 || py > frame.bottom + 1) continue;
    ctx.strokeStyle = pal[m.color] ?? m.color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(px, py, 6, 0, 2 * Math.PI);
    ctx.stroke();
  }
  ctx.font = "12px system-ui, sans-serif";
  const lines = reading.lines;
  const w = Math.max(...lines.map((l) => ctx.measureText(l).width)) + 12;
  const h = 15 * lines.length + 6;
  const width = canvas.clientWidth || frame.right;
  let x0 = px + 8;
  if (x0 + w > frame.right) x0 = px - 8 - w;
  if (x0 < 0) x0 = Math.max(0, Math.min(width - w, px - w / 2));
  const y0 = frame.top + 2;
  ctx.fillStyle = pal.bg;
  ctx.strokeStyle = pal.axis ?? pal.ink;
  ctx.lineWidth = 1;
  ctx.fillRect(x0, y0, w, h);
  ctx.strokeRect(x0 + 0.5, y0 + 0.5, w - 1, h - 1);
  ctx.fillStyle = pal.ink;
  ctx.textAlign = "left";
  ctx.textBaseline = "alphabetic";
  lines.forEach((l, i) => {
    ctx.fillText(l, x0 + 6, y0 + 15 + 15 * i);
  });
  ctx.restore();
}
