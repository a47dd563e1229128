// Getting a canvas ready to draw on, shared by every chart: sized for the device pixel ratio (or
// svg.js's stand-in at 1:1), painted with the theme's opaque background, so a saved PNG or SVG
// has the page's background rather than transparency. The backing store is the canvas's content
// box (inside its border) times the pixel ratio, so one drawn pixel is one device pixel and text
// is sharp; `data-css-height` keeps that drawn height for the SVG stand-in.

import { palette } from "./theme.js";

/** Returns `{ ctx, width, height, pal }`: the context, the CSS-pixel size and the colours. */
export function prepare(canvas) {
  const dpr = canvas.svg ? 1 : window.devicePixelRatio || 1;
  // clientWidth/clientHeight are the content box (no padding on a chart canvas), without the
  // border; a canvas not laid out (hidden) falls back to its attribute and the last size drawn.
  const width = canvas.clientWidth || 600;
  const height =
    (!canvas.svg && canvas.clientHeight) ||
    Number(canvas.dataset.cssHeight || canvas.getAttribute("height"));
  if (!canvas.svg) {
    canvas.dataset.cssHeight = String(height);
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
    }
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const pal = palette(canvas);
  ctx.fillStyle = pal.bg;
  ctx.fillRect(0, 0, width, height);
  return { ctx, width, height, pal };
}
