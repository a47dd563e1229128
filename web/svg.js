// A recording stand-in for a canvas: the subset of CanvasRenderingContext2D that the pages'
// drawing code uses, written out as SVG. Drawing a chart onto it gives the same picture as on
// screen, as vectors, for the "SVG" download.

/**
 * Text as SVG character data or an attribute value: & < > " ' escaped, and the characters XML
 * does not allow (controls other than tab and line breaks, lone surrogates, U+FFFE/U+FFFF) left
 * out, so no text drawn on a chart can end an attribute, open an element or spoil the file.
 */
function esc(s) {
  return String(s)
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
/** A number for an attribute: rounded to 0.01, and 0 for anything that is not a finite number. */
const num = (x) => {
  const v = Number(x);
  return Number.isFinite(v) ? Number(v.toFixed(2)) : 0;
};

class SvgContext {
  constructor(width, height) {
    this.width = width;
    this.height = height;
    this.parts = [];
    this.path = [];
    this.stack = [];
    this.clipId = 0;
    this.state = {
      fillStyle: "#000",
      strokeStyle: "#000",
      lineWidth: 1,
      font: "10px sans-serif",
      textAlign: "start",
      globalAlpha: 1,
      dash: [],
      tx: 0,
      ty: 0,
      rotate: 0,
      clip: null,
    };
  }

  // --- state
  get fillStyle() {
    return this.state.fillStyle;
  }
  set fillStyle(v) {
    this.state.fillStyle = v;
  }
  get strokeStyle() {
    return this.state.strokeStyle;
  }
  set strokeStyle(v) {
    this.state.strokeStyle = v;
  }
  get lineWidth() {
    return this.state.lineWidth;
  }
  set lineWidth(v) {
    this.state.lineWidth = v;
  }
  get font() {
    return this.state.font;
  }
  set font(v) {
    this.state.font = v;
  }
  get textAlign() {
    return this.state.textAlign;
  }
  set textAlign(v) {
    this.state.textAlign = v;
  }
  get globalAlpha() {
    return this.state.globalAlpha;
  }
  set globalAlpha(v) {
    this.state.globalAlpha = v;
  }
  setLineDash(d) {
    this.state.dash = [...d];
  }
  save() {
    this.stack.push({ ...this.state, dash: [...this.state.dash] });
  }
  restore() {
    if (this.stack.length) this.state = this.stack.pop();
  }
  setTransform() {
    this.state.tx = 0;
    this.state.ty = 0;
    this.state.rotate = 0;
  }
  translate(x, y) {
    this.state.tx += x;
    this.state.ty += y;
  }
  rotate(a) {
    this.state.rotate += (a * 180) / Math.PI;
  }
  measureText(text) {
    const size = Number(/(\d+(?:\.\d+)?)px/.exec(this.state.font)?.[1] ?? 10);
    return { width: String(text).length * size * 0.56 };
  }

  // --- paths
  beginPath() {
    this.path = [];
  }
  moveTo(x, y) {
    this.path.push(`M${num(x + this.state.tx)} ${num(y + this.state.ty)}`);
  }
  lineTo(x, y) {
    this.path.push(`L${num(x + this.state.tx)} ${num(y + this.state.ty)}`);
  }
  closePath() {
    this.path.push("Z");
  }
  rect(x, y, w, h) {
    const [a, b] = [x + this.state.tx, y + this.state.ty];
    this.path.push(`M${num(a)} ${num(b)}h${num(w)}v${num(h)}h${num(-w)}Z`);
  }
  arc(x, y, r, start, end) {
    const [cx, cy] = [x + this.state.tx, y + this.state.ty];
    if (end - start >= 2 * Math.PI - 1e-9) {
      this.path.push(
        `M${num(cx - r)} ${num(cy)}a${num(r)} ${num(r)} 0 1 0 ${num(2 * r)} 0a${num(r)} ${num(r)} 0 1 0 ${num(-2 * r)} 0`,
      );
    } else {
      const [x0, y0, x1, y1] = [
        cx + r * Math.cos(start),
        cy + r * Math.sin(start),
        cx + r * Math.cos(end),
        cy + r * Math.sin(end),
      ];
      this.path.push(
        `M${num(x0)} ${num(y0)}A${num(r)} ${num(r)} 0 ${end - start > Math.PI ? 1 : 0} 1 ${num(x1)} ${num(y1)}`,
      );
    }
  }
  clip() {
    const id = `clip${++this.clipId}`;
    this.parts.push(`<clipPath id="${id}"><path d="${this.path.join("")}"/></clipPath>`);
    this.state.clip = id;
  }
  common() {
    const s = this.state;
    return `${s.globalAlpha < 1 ? ` opacity="${num(s.globalAlpha)}"` : ""}${s.clip ? ` clip-path="url(#${s.clip})"` : ""}`;
  }
  fill() {
    if (this.path.length)
      this.parts.push(
        `<path d="${this.path.join("")}" fill="${esc(this.state.fillStyle)}"${this.common()}/>`,
      );
  }
  stroke() {
    if (!this.path.length) return;
    const dash = this.state.dash.length
      ? ` stroke-dasharray="${this.state.dash.map(num).join(" ")}"`
      : "";
    this.parts.push(
      `<path d="${this.path.join("")}" fill="none" stroke="${esc(this.state.strokeStyle)}" stroke-width="${num(this.state.lineWidth)}"${dash}${this.common()}/>`,
    );
  }

  // --- shapes and text
  clearRect() {}
  fillRect(x, y, w, h) {
    this.parts.push(
      `<rect x="${num(x + this.state.tx)}" y="${num(y + this.state.ty)}" width="${num(w)}" height="${num(h)}" fill="${esc(this.state.fillStyle)}"${this.common()}/>`,
    );
  }
  strokeRect(x, y, w, h) {
    this.parts.push(
      `<rect x="${num(x + this.state.tx)}" y="${num(y + this.state.ty)}" width="${num(w)}" height="${num(h)}" fill="none" stroke="${esc(this.state.strokeStyle)}" stroke-width="${num(this.state.lineWidth)}"${this.common()}/>`,
    );
  }
  fillText(text, x, y) {
    const anchor = { center: "middle", right: "end", end: "end" }[this.state.textAlign] ?? "start";
    const { tx, ty, rotate } = this.state;
    const at = rotate
      ? ` transform="translate(${num(tx)} ${num(ty)}) rotate(${num(rotate)})" x="${num(x)}" y="${num(y)}"`
      : ` x="${num(x + tx)}" y="${num(y + ty)}"`;
    this.parts.push(
      `<text${at} text-anchor="${anchor}" fill="${esc(this.state.fillStyle)}" style="font: ${esc(this.state.font)}"${this.common()}>${esc(text)}</text>`,
    );
  }

  /**
   * The SVG file. `title` (the chart's title) and `desc` (its text alternative) become its
   * <title> and <desc>, escaped as every text is; either is left out when empty.
   */
  toString({ title = "", desc = "" } = {}) {
    const [w, h] = [num(this.width), num(this.height)];
    const head = [
      title ? `<title>${esc(title)}</title>` : "",
      desc ? `<desc>${esc(desc)}</desc>` : "",
    ].join("");
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${head}${this.parts.join("")}</svg>`;
  }
}

/**
 * A stand-in for `canvas` that records instead of painting: give it to any drawing function
 * that takes a canvas, then call `toString()` for the SVG. `title` is the chart's title: the
 * SVG's <title>, and its <desc> is the canvas's text alternative (its aria-label) as it is when
 * `toString()` is called.
 */
export function svgCanvas(canvas, { title = "" } = {}) {
  const width = canvas.clientWidth || 600;
  const height = Number(canvas.dataset?.cssHeight || canvas.getAttribute("height"));
  const ctx = new SvgContext(width, height);
  return {
    clientWidth: width,
    width,
    height,
    svg: true,
    source: canvas,
    dataset: { ...canvas.dataset },
    getAttribute: (k) => (k === "height" ? String(height) : canvas.getAttribute(k)),
    getContext: () => ctx,
    closest: (s) => canvas.closest(s),
    toString: () => ctx.toString({ title, desc: canvas.getAttribute("aria-label") ?? "" }),
  };
}
