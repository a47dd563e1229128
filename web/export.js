// Downloads for a chart: the numbers it draws as CSV (with units, the seed and the parameters in
// a header), the same drawing as SVG, and the canvas as PNG (opaque, at the device pixel ratio);
// and a button that copies a link to the current view.

import { svgCanvas } from "./svg.js";

function download(blob, filename) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  a.style.display = "none";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

/** A number as CSV writes it (a spreadsheet reads it back as the same number). */
const NUMERIC = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * One CSV field. Text that a spreadsheet would run as a formula (starting with = + - @, a tab or
 * a carriage return, unless it is a plain number) gets a leading apostrophe; a field with a
 * comma, a quote or a line break is quoted, its quotes doubled. Missing and non-finite numbers
 * are empty.
 */
function csvCell(v) {
  if (v === null || v === undefined || (typeof v === "number" && !Number.isFinite(v))) return "";
  let s = String(v);
  if (typeof v !== "number" && typeof v !== "bigint" && /^[=+\-@\t\r]/.test(s) && !NUMERIC.test(s))
    s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * A `# …` header line: one line however the text runs (line breaks become spaces), and one CSV
 * field (`csvCell` quotes it when it holds a comma or a quote; a `#` never starts a formula), so
 * no part of it can start a cell of its own.
 */
const comment = (text) => csvCell(`# ${String(text).replace(/[\r\n]+/g, " ")}`);

/** CSV text: `# key=value` lines for `meta`, then the header and the rows. */
export function toCsv({ title, meta, header, rows }) {
  const lines = [
    comment(title),
    ...Object.entries(meta).map(([k, v]) => comment(`${k}=${v}`)),
    header.map(csvCell).join(","),
  ];
  for (const r of rows) lines.push(r.map(csvCell).join(","));
  return `${lines.join("\n")}\n`;
}

/**
 * The page's URL (its query holds the settings) ending with `#id`, for a section's "copy link":
 * the link opens the page at that section.
 * @param {string} id
 */
export function sectionLink(id) {
  const url = new URL(location.href);
  url.hash = id;
  return url.href;
}

/**
 * Adds "CSV", "SVG", "PNG" and "copy link" buttons to `parent` for one chart. `name` names the
 * files; `canvas` is the chart; `table()` gives `{ header, rows }`; `meta()` the seed and the
 * parameters; `draw(target)` draws the chart onto a canvas or svg.js's stand-in; `link()` the
 * URL of this view.
 */
export function exportBar(
  parent,
  { name, title, canvas, table, meta, draw, link = () => location.href },
) {
  const bar = document.createElement("div");
  bar.className = "export-bar";
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", `Download ${title}`);
  const status = document.createElement("span");
  status.className = "export-status";
  status.setAttribute("role", "status");
  const button = (label, aria, onClick) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.setAttribute("aria-label", aria);
    b.dataset.export = label.toLowerCase().replace(/\s+/g, "-");
    b.addEventListener("click", onClick);
    bar.append(b);
  };
  button("CSV", `${title}: download the numbers as CSV`, () => {
    const t = table();
    download(new Blob([toCsv({ title, meta: meta(), ...t })], { type: "text/csv" }), `${name}.csv`);
  });
  button("SVG", `${title}: download the chart as SVG`, () => {
    const stand = svgCanvas(canvas, { title });
    draw(stand);
    download(new Blob([stand.toString()], { type: "image/svg+xml" }), `${name}.svg`);
  });
  button("PNG", `${title}: download the chart as PNG`, () => {
    draw(canvas);
    canvas.toBlob((blob) => download(blob, `${name}.png`), "image/png");
  });
  button("copy link", `copy link to this view of ${title}`, async () => {
    const url = link();
    try {
      await navigator.clipboard.writeText(url);
      status.textContent = "link copied";
    } catch {
      status.textContent = url;
    }
    setTimeout(() => {
      status.textContent = "";
    }, 4000);
  });
  bar.append(status);
  parent.append(bar);
  return bar;
}
