// Your own latencies: a reader pastes or drops what they have (latencies one per line, a CSV
// column, an HdrHistogram table as wrk2 prints it, a Prometheus histogram, typed percentiles),
// the core reads it in a worker and fits it, and every section that takes a service model runs
// on it (the page's LabService). The chart is the fitted distribution over the input's own
// points, with the sampler's draws checked against it. The data never leaves the tab: the URL
// carries only a short percentile summary of the model.

import { formatCount, formatMs, formatNumber, formatProb, formatTickMs } from "../../../format.js";
import { chart } from "../../plot.js";
import { touchChart } from "../../../touch.js";
import { exportBar } from "../../../export.js";
import { NO_LINK_NOTE, SUMMARY_PARAM, latencyInput, plain } from "../../../latency-input.js";
import { quoted } from "../../../params.js";
import {
  choice,
  el,
  initial,
  panel,
  perFrame,
  readout,
  redrawOnResize,
  runSweep,
  settingsOf,
  sectionContext,
} from "../../section.js";

/** Points the model's curve is drawn through at least (a sparse model's knots are joined by more). */
const CURVE_POINTS = 400;

/** Draws of the sampler check, and parents of its fan-out check. */
export const DRAWS = 20_000;
/** Leaves per parent in the fan-out check. */
export const FANOUT = 100;
/**
 * The most columns the CSV column picker lists: the first ones (and the one read, if it lies
 * past them). A wider table's other columns are chosen by number, so a file of any width costs
 * the page at most this many options.
 */
export const PICKER_COLUMNS = 200;
export { MAX_BYTES } from "../../../latency-input.js";

/** The section's settings: `data`, the summary a link carries (latency-input.js). */
export const params = [SUMMARY_PARAM];

const FORMATS = [
  ["", "detect"],
  ["lines", "one per line"],
  ["csv", "CSV column"],
  ["hdrhistogram", "HdrHistogram / wrk2"],
  ["prometheus", "Prometheus buckets"],
  ["percentiles", "percentiles"],
];
const UNITS = [
  ["", "detect (else ms)"],
  ["ns", "ns"],
  ["us", "µs"],
  ["ms", "ms"],
  ["s", "s"],
];
const FORMAT_NAMES = {
  lines: "one latency per line",
  csv: "a CSV column",
  hdrhistogram: "an HdrHistogram percentile table",
  prometheus: "Prometheus histogram buckets",
  percentiles: "percentiles",
};

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext} context
 */
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, service, signal } =
    sectionContext(context);
  const start = initial(settingsOf(params, api), values);
  const ui = panel(root, {
    chartHeight: 300,
    chartLabel: "Your latencies: the fitted distribution over your points",
  });
  const reset = el("button", {
    type: "button",
    "data-action": "reset",
    text: "back to the Lab's model",
    disabled: true,
  });
  // The paste box, file input, buttons and status line are web/latency-input.js's, shared with
  // the Tail page; the format, unit and column choices sit between the box and the status.
  const box = latencyInput({
    prefix,
    onSource: (source, what) => read(source, parseOptions(), true, what),
    onExample: () => useExample(),
    buttons: [reset],
  });
  const { area, say, status } = box;
  // The summary the page runs on, as a setting (the URL's `data`, an embed's attribute): a
  // summary set here is read as percentiles and used; an empty one goes back to the Lab's model.
  const summary = el("input", { type: "hidden", id: `${prefix}data` });
  ui.controls.append(summary, box.element);
  const format = choice(ui.controls, {
    id: `${prefix}data-format`,
    label: "format",
    options: FORMATS,
    value: "",
  });
  const unit = choice(ui.controls, {
    id: `${prefix}data-unit`,
    label: "unit of bare numbers",
    options: UNITS,
    value: "",
  });
  const column = choice(ui.controls, {
    id: `${prefix}data-column`,
    label: "CSV column",
    options: [],
    value: "",
  });
  const columnBox = /** @type {HTMLElement} */ (column.parentElement);
  columnBox.hidden = true;
  // Any column by its number, for a table wider than the list (shown only then; its label says
  // how many columns the list leaves out).
  const columnNumber = /** @type {HTMLInputElement} */ (
    el("input", {
      type: "number",
      id: `${prefix}data-column-number`,
      min: 1,
      step: 1,
      inputmode: "numeric",
    })
  );
  const columnNumberLabel = el("label", { for: columnNumber.id });
  const columnNumberBox = el(
    "div",
    { class: "lab-control", hidden: true },
    columnNumberLabel,
    columnNumber,
  );
  ui.controls.append(columnNumberBox, status);

  const r = {
    read: readout(ui.readouts, { name: "data-count", label: "latencies read" }),
    p50: readout(ui.readouts, { name: "data-p50", label: "p50 of the draws", theory: true }),
    p99: readout(ui.readouts, { name: "data-p99", label: "p99 of the draws", theory: true }),
    p999: readout(ui.readouts, { name: "data-p999", label: "p99.9 of the draws", theory: true }),
    ks: readout(ui.readouts, { name: "data-ks", label: "KS distance", theory: true }),
    parent: readout(ui.readouts, {
      name: "data-parent-p50",
      label: `median of ${FANOUT} leaves`,
      theory: true,
    }),
  };

  /** The accepted input (`parseLatencies`'s answer) on screen, and its sampler check. */
  let parsed = /** @type {any} */ (null);
  let check = /** @type {any} */ (null);
  /** What the chart shows: "example" (a preview, not in use), or "yours" (every section runs on it). */
  let shown = "example";
  /** The last source read, and how, so that a changed format, unit or column reads it again. */
  let last =
    /** @type {{ source: string | Blob, options: any, apply: boolean, what: string } | null} */ (
      null
    );
  /** The source of `parsed` (the column picker lists its columns). */
  let parsedSource = /** @type {string | Blob | null} */ (null);
  /**
   * The column the reader chose in the picker, with the header it was chosen on. A new input
   * (a paste, a file, the example, a link) is read with its column found afresh; the chosen one
   * is read instead only while the header is the same, and forgotten once another comes.
   */
  let chosen = /** @type {{ columns: string[], column: number } | null} */ (null);

  /**
   * The options `parseLatencies` gets from the controls: the format and unit, and, with
   * `withColumn` (a changed control reading the same source again), the column shown.
   */
  function parseOptions(withColumn = false) {
    /** @type {import("../../api.js").ParseLatenciesOptions} */
    const o = {};
    if (format.value) o.format = /** @type {any} */ (format.value);
    if (unit.value) o.unit = /** @type {any} */ (unit.value);
    if (withColumn && column.value && !columnBox.hidden) o.column = Number(column.value);
    return o;
  }

  /** Two headers with the same names in the same order (an empty one, no header, never matches). */
  const sameHeader = (a, b) =>
    a.length > 0 && a.length === b.length && a.every((name, i) => name === b[i]);

  /**
   * The chosen column when `res` (read with its column found afresh) has the header it was
   * chosen on and found another; else 0.
   */
  function keptColumn(res, options) {
    if (!chosen || options.column !== undefined || res.format !== "csv") return 0;
    if (!sameHeader(chosen.columns, res.columns)) return 0;
    return res.column !== chosen.column && chosen.column <= res.columnCount ? chosen.column : 0;
  }

  function describe(res) {
    const what =
      res.kind === "samples"
        ? `${formatCount(res.count)} latencies`
        : `${formatCount(res.count)} points of a distribution`;
    const skipped = res.skippedLines
      ? `; ${formatCount(res.skippedLines)} line${res.skippedLines === 1 ? "" : "s"} without data skipped`
      : "";
    // A header's name is the reader's text: quoted at most 40 characters, as a link's are.
    const col = res.column
      ? `, column ${quoted(res.columns[res.column - 1] ?? "") || res.column}${res.columnGuessed ? " (no header named the latencies, so the last column holding numbers: choose another below if it is not)" : ""}`
      : "";
    const series =
      res.series > 1 ? `, ${formatCount(res.series)} series summed bucket by bucket` : "";
    return `${what} read as ${FORMAT_NAMES[res.format]}${col}${series} (bare numbers in ${res.unit})${skipped}`;
  }

  /**
   * The column picker for `res`: at most PICKER_COLUMNS options (the first columns, then the
   * one read if it lies past them), each named by at most 40 characters of its header; a wider
   * table also gets the number field, for any column from 1 to its count.
   */
  function showColumns(res) {
    const count = res.format === "csv" ? res.columnCount : 0;
    columnBox.hidden = count < 2;
    columnNumberBox.hidden = count <= PICKER_COLUMNS;
    if (count < 2) return;
    const option = (i) =>
      el("option", {
        value: i + 1,
        text: quoted(res.columns[i] ?? "") || `column ${i + 1}`,
        selected: i + 1 === res.column,
      });
    const listed = Math.min(count, PICKER_COLUMNS);
    const options = Array.from({ length: listed }, (_, i) => option(i));
    if (res.column > listed) options.push(option(res.column - 1));
    column.replaceChildren(...options);
    if (count > PICKER_COLUMNS) {
      columnNumber.max = String(count);
      columnNumber.value = String(res.column ?? "");
      columnNumber.removeAttribute("aria-invalid");
      columnNumberLabel.textContent = `or any of the ${formatCount(count)} columns by its number (the list shows the first ${PICKER_COLUMNS})`;
    }
  }

  /** Hides the picker: it lists the columns of an input that is no longer the one read. */
  function hideColumns() {
    columnBox.hidden = true;
    columnNumberBox.hidden = true;
  }

  /**
   * Reads `source` (text, or a Blob from a file) in a worker. On success it is shown and, when
   * `apply`, every section runs on it; on failure the message names the line and the section
   * keeps what it had.
   */
  function read(source, options, apply, what) {
    last = { source, options, apply, what };
    // The picker lists the columns of the input shown: not this one's, until it is read.
    if (source !== parsedSource) hideColumns();
    say(`Reading ${what}…`);
    // Under way until the read and its check answer (the progress line is what waits on it).
    ui.progress(0, 1, 0, 0);
    client.run([{ fn: "parseLatencies", args: [source, options] }], {
      onPoint: (_i, res, error) => {
        if (error) {
          ui.progress(1, 1);
          // A link's summary that does not read is dropped from the URL.
          if (what === "the link's summary") {
            summary.value = "";
            onChange({ data: "" });
          }
          say(
            `Not used: ${plain(error)}. ${shown === "yours" ? "The sections keep the data they had." : "Nothing changed."}`,
            true,
          );
          return;
        }
        // The same header as the reader's chosen column: that column, not the one found.
        const kept = keptColumn(res, options);
        if (kept) return read(source, { ...options, column: kept }, apply, what);
        accept(res, source, apply, what);
      },
    });
  }

  function accept(res, source, apply, what) {
    parsed = res;
    parsedSource = source;
    check = null;
    if (chosen && !sameHeader(chosen.columns, res.columns)) chosen = null;
    showColumns(res);
    if (apply) {
      shown = "yours";
      service.set(res.service, `your data (${describe(res).split(" read as")[0]})`);
      reset.disabled = false;
      // A summary read from the link stays as it was written; the reader's own data goes into
      // the link as its model's summary.
      summary.value = what === "the link's summary" ? String(last?.source) : res.percentiles;
      onChange({ data: summary.value });
      say(
        `${what === "the link's summary" ? "From the link: " : ""}${describe(res)}. Every section that takes a service model now runs on it.${summary.value ? "" : NO_LINK_NOTE}`,
      );
    } else {
      say(
        `Showing the bundled example (${describe(res)}), not yet in use. Paste your own latencies, drop a file, or press “use the example”.`,
      );
    }
    redrawSoon();
    runCheck();
  }

  function runCheck() {
    if (!parsed) return;
    const call = {
      fn: "simulateEmpirical",
      args: [{ service: parsed.service, requests: DRAWS, fanout: FANOUT, seed: seed.value }],
    };
    runSweep(client, ui, [call], {
      size: "requests",
      onError: (e) => r.ks.set("error", plain(e)),
      onResult: (res) => {
        check = res;
        r.read.set(
          parsed.kind === "samples"
            ? formatCount(parsed.count)
            : `${formatCount(parsed.count)} points`,
        );
        r.p50.set(formatMs(res.p50), `exact ${formatMs(res.theoryP50)}`);
        r.p99.set(formatMs(res.p99), `exact ${formatMs(res.theoryP99)}`);
        r.p999.set(formatMs(res.p999), `exact ${formatMs(res.theoryP999)}`);
        r.ks.set(
          formatNumber(res.ksDistance, 2),
          `DKW 95% bound ${formatNumber(res.dkwBound95, 2)}`,
        );
        r.parent.set(formatMs(res.parentP50), `theory ${formatMs(res.theoryParentP50)}`);
        ui.canvas.setAttribute(
          "aria-label",
          `${shown === "yours" ? "Your latencies" : "The bundled example"}: median ${formatMs(res.theoryP50)}, p99 ${formatMs(res.theoryP99)}, p99.9 ${formatMs(res.theoryP999)}; ${formatCount(res.requests)} draws from the fitted model give ${formatMs(res.p50)}, ${formatMs(res.p99)} and ${formatMs(res.p999)}.`,
        );
      },
      redraw: redrawSoon,
    });
  }

  /** The chart's ranges: powers of ten around the model's support. */
  function ranges() {
    const ms = parsed.service.empirical.ms;
    const lo = 10 ** Math.floor(Math.log10(ms[0]));
    const hi = 10 ** Math.ceil(Math.log10(ms[ms.length - 1]) + 1e-9);
    return { lo, hi: hi > lo ? hi : lo * 10 };
  }

  function draw(canvas = ui.canvas) {
    const points = parsed?.kind === "points";
    const c = chart(canvas, {
      legend: [
        {
          label: points ? "the fit through your points" : "your latencies (their CDF)",
          color: "none",
          width: 2.5,
        },
        ...(points ? [{ label: "your points", color: "ink", shape: "circle" }] : []),
        {
          label: `${formatCount(check?.requests ?? DRAWS)} draws from the model`,
          color: "hedge",
          shape: "diamond",
          hollow: true,
        },
      ],
      legendCorner: "left",
      x: parsed
        ? {
            type: "log",
            min: ranges().lo,
            max: ranges().hi,
            label: "latency t",
            format: formatTickMs,
          }
        : { type: "log", min: 0.1, max: 1000, label: "latency t", format: formatTickMs },
      y: { type: "log", min: 1e-4, max: 1, label: "P(latency > t)" },
    });
    c.axes();
    if (!parsed) return c.done();
    const { xs, ys } = curvePoints(parsed.service.empirical);
    c.line(xs, ys, { color: "none", width: 2.5 });
    if (check) {
      const q = [
        [0.5, check.p50],
        [0.9, check.p90],
        [0.99, check.p99],
        [0.999, check.p999],
      ];
      c.dots(
        q.map(([level, t]) => ({ x: t, y: 1 - level })),
        { color: "hedge", r: 5, shape: "diamond", hollow: true },
      );
    }
    if (points) {
      const p = parsed.points;
      c.dots(
        Array.from(p.ms, (t, i) => ({ x: t, y: 1 - p.levels[i] })).filter((d) => d.y > 0),
        { color: "ink", r: 4 },
      );
    }
    c.done();
  }

  const redrawSoon = perFrame(() => draw());

  /**
   * The model's survival curve to draw: its knots, and between two knots of a sparse model
   * (fewer than CURVE_POINTS) points along the segment, since a straight line in t is a curve
   * on the chart's log axes (two knots drawn as one segment put it in the wrong place). The last
   * knot's survival is 0, off a log axis: the line runs down to the axis's floor.
   * @param {{ levels: Float64Array, ms: Float64Array }} knots
   */
  function curvePoints({ levels, ms }) {
    const steps = ms.length >= CURVE_POINTS ? 1 : Math.ceil(CURVE_POINTS / ms.length);
    const xs = [];
    const ys = [];
    for (let i = 0; i < ms.length; i++) {
      const last = i === ms.length - 1;
      for (let k = 0; k < (last ? 1 : steps); k++) {
        const f = k / steps;
        const t = last ? ms[i] : ms[i] + f * (ms[i + 1] - ms[i]);
        const u = last ? levels[i] : levels[i] + f * (levels[i + 1] - levels[i]);
        xs.push(t);
        ys.push(1 - u > 0 ? 1 - u : 1e-12);
      }
    }
    return { xs, ys };
  }

  /** P(latency > t) of the model at t, between its knots (its CDF is linear in t there). */
  function survivalAt(t) {
    const { levels, ms } = parsed.service.empirical;
    let i = 0;
    while (i < ms.length - 1 && ms[i + 1] <= t) i++;
    if (i >= ms.length - 1) return 0;
    const f = ms[i + 1] > ms[i] ? (t - ms[i]) / (ms[i + 1] - ms[i]) : 0;
    return 1 - (levels[i] + f * (levels[i + 1] - levels[i]));
  }
  touchChart(ui.canvas, {
    xs: () => {
      if (!parsed) return [];
      const { ms } = parsed.service.empirical;
      const step = Math.max(1, Math.floor(ms.length / 400));
      return Array.from(ms).filter((_, i) => i % step === 0 || i === ms.length - 1);
    },
    read: (t) => {
      if (!parsed) return null;
      const s = survivalAt(t);
      return {
        lines: [`t = ${formatMs(t)}`, `P(latency > t) ${formatProb(s)}`],
        marks: [{ y: s, color: "none" }],
      };
    },
    redraw: redrawSoon,
  });

  function useExample() {
    ui.progress(0, 1, 0, 0);
    client.run([{ fn: "exampleLatencies", args: [] }], {
      onPoint: (_i, text, error) => {
        if (error) {
          ui.progress(1, 1);
          return say(`The example could not be read: ${plain(error)}.`, true);
        }
        area.value = text;
        format.value = "";
        unit.value = "";
        read(text, {}, true, "the example");
      },
    });
  }
  function backToLab() {
    service.set(undefined);
    shown = "example";
    // The button is about to be disabled: a keyboard reader's focus goes to the box instead of
    // falling to the page.
    if (document.activeElement === reset) area.focus();
    reset.disabled = true;
    summary.value = "";
    onChange({ data: "" });
    say("Every section runs on the Lab's own model again. Your latencies stay in the box.");
  }
  reset.addEventListener("click", backToLab);
  summary.addEventListener("input", () => {
    if (summary.value) readSummary(summary.value);
    else if (shown === "yours") backToLab();
  });
  // A changed format, unit or column reads the last source again, the same way.
  for (const control of [format, unit, column])
    control.addEventListener("change", () => {
      if (control === column && parsed) chosen = { columns: parsed.columns, column: +column.value };
      if (last) read(last.source, parseOptions(true), last.apply, last.what);
    });
  // A column by its number: a whole number from 1 to the table's count reads that column.
  columnNumber.addEventListener("change", () => {
    const n = Number(columnNumber.value);
    const count = parsed?.format === "csv" ? parsed.columnCount : 0;
    const valid = Number.isInteger(n) && n >= 1 && n <= count;
    columnNumber.setAttribute("aria-invalid", String(!valid));
    if (!valid) {
      say(
        `Not read: a column number is a whole number from 1 to ${formatCount(count)}. Nothing changed.`,
        true,
      );
      return;
    }
    if (!last || !parsed) return;
    chosen = { columns: parsed.columns, column: n };
    read(last.source, { ...parseOptions(), column: n }, last.apply, last.what);
  });
  seed.watch(runCheck, signal);
  redrawOnResize(ui.canvas, draw, signal);

  ui.note.textContent = `Your data never leaves this tab: it is read and fitted by the page's own workers, and a link carries only a short summary of the fit (its minimum, p50, p90, p99, p99.9, its p99.99 where the others do not carry the tail, and maximum), never the data. Latencies become their interpolated empirical CDF; percentiles and histogram buckets become a curve through every point, lognormal between them (a straight line on lognormal probability paper), constant inside a histogram's outer buckets, and carried two decades of tail probability past the last percentile. The diamonds are ${formatCount(DRAWS)} draws from the model: the Kolmogorov–Smirnov distance between their CDF and the model's stays under the DKW bound 19 runs in 20.`;

  exportBar(ui.tools, {
    link,
    name: "your-data",
    title: "Your latencies: the fitted distribution",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      source: shown === "yours" ? "your data" : "the bundled example",
      summary: parsed?.percentiles ?? "",
      draws: check?.requests ?? DRAWS,
    }),
    table: () => ({
      header: ["level", "ms"],
      rows: parsed
        ? Array.from(parsed.service.empirical.levels, (u, i) => [u, parsed.service.empirical.ms[i]])
        : [],
    }),
  });

  /** Reads a link's summary (percentiles) and runs every section on it. */
  function readSummary(text) {
    area.value = text.split(",").join("\n");
    format.value = "percentiles";
    read(text, { format: "percentiles" }, true, "the link's summary");
  }

  if (start.data) {
    readSummary(start.data);
  } else {
    // Under way from the start, so that a page waiting on every section waits on this one too;
    // with no worker to read the example, it ends (and says so) rather than staying "…".
    ui.progress(0, 1, 0, 0);
    client.run([{ fn: "exampleLatencies", args: [] }], {
      onPoint: (_i, text, error) => {
        if (typeof text === "string") return read(text, {}, false, "the example");
        ui.progress(1, 1);
        say(`The bundled example could not be read: ${plain(error)}.`, true);
      },
    });
  }
  redrawSoon();
}
