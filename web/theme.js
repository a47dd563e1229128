// Colours come from the stylesheet's custom properties, so the canvases follow the page's light
// or dark theme (prefers-color-scheme) like the text does, and an embedded panel's `theme`
// attribute (the custom properties its root sets, read from the canvas itself). Every colour on a chart is backed by a
// shape, a dash or a label as well, so no reading depends on telling two hues apart.

const VARS = {
  bg: "--chart-bg",
  ink: "--ink",
  muted: "--muted",
  grid: "--grid",
  axis: "--axis",
  legendBg: "--legend-bg",
  leaf: "--leaf",
  leafText: "--leaf-text",
  parent: "--parent",
  parentText: "--parent-text",
  wait: "--wait",
  ring: "--ring",
  none: "--c-none",
  hedge: "--c-hedge",
  duplicate: "--c-duplicate",
  third: "--c-third",
  theory: "--ink",
  band: "--band",
  bandInk: "--band-ink",
};

/** The chart colours in force for `element` (a canvas, or anything inside the themed root). */
export function palette(element) {
  const source = element?.source ?? element ?? document.documentElement;
  const style = getComputedStyle(source instanceof Element ? source : document.documentElement);
  const out = {};
  for (const [k, v] of Object.entries(VARS)) out[k] = style.getPropertyValue(v).trim() || "#000";
  return out;
}

/** Hears `themeChanged()`: a panel's own theme changed (embed-panel.js). */
const themes = new EventTarget();

/** A panel's `theme` changed: every chart redraws (each reads its colours from its canvas). */
export function themeChanged() {
  themes.dispatchEvent(new Event("change"));
}

/**
 * Calls `redraw` whenever the colour scheme changes (the system's, or a panel's `theme`), until
 * `signal` (if given) aborts.
 */
export function onThemeChange(redraw, signal) {
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", redraw, { signal });
  themes.addEventListener("change", redraw, { signal });
}
