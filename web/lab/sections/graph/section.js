// Request graphs, quorums and deadlines: a request is stages in series, each one call or k of n
// children at once; a deadline answers with what has arrived. The chart draws the p99 answer
// time against what the deadline costs (answers missing, requests cut short) as the deadline
// moves, simulated beside the core's theory; a second chart the completion time's survival.

import { formatCount, formatMs, formatPct, formatTickMs } from "../../../format.js";
import { chart } from "../../plot.js";
import { touchChart } from "../../../touch.js";
import { exportBar } from "../../../export.js";
import {
  LabService,
  choice,
  el,
  initial,
  panel,
  perFrame,
  readout,
  redrawOnResize,
  runSweep,
  settingsOf,
  slider,
  sectionContext,
} from "../../section.js";
import { LIMITS, formatStages, fromPreset, parseStages, stageOptions } from "./stages.js";
import { plain } from "../../../latency-input.js";

export const REQUESTS = 20_000;

/**
 * Requests × children one call may simulate: the binding's work bound (`simulateGraph` counts
 * 3 units a child), so a graph of many wide stages runs fewer requests rather than being refused.
 */
const CHILD_DRAWS = 50_000_000;

/** The requests a run of `stages` simulates: 20,000, or fewer when its children are many. */
export const requestsOf = (stages) => {
  const children = stages.reduce((n, s) => n + (s.kind === "parallel" ? s.width : 1), 0);
  return Math.min(REQUESTS, Math.floor(CHILD_DRAWS / Math.max(1, children)));
};

/** The deadline slider holds log10 of the deadline in ms; below 0 it is off. */
const OFF = -0.2;
const LOG_MAX = 4;
const deadlineOf = (v) => (v < 0 ? null : 10 ** v);
const deadlineControl = (ms) => (ms > 0 ? Math.max(OFF, Math.log10(ms)).toFixed(3) : String(OFF));

const PRESET_TEXT = {
  fanout: "one stage × 100 leaves",
  search: "auth → 10 shards → rank",
  quorum: "a 3-of-5 quorum write",
  chain: "a chain of 3 (exponential)",
  custom: "your stages",
};

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  {
    name: "graph-preset",
    type: "enum",
    values: ["fanout", "search", "quorum", "chain", "custom"],
    default: "search",
  },
  // The edited stages (stages.js): empty for the preset's own.
  {
    name: "graph-stages",
    type: "string",
    default: "",
    examples: ["p20k15,s.e4"],
    parse: (text) => {
      const [stages, why] = parseStages(text);
      return [formatStages(stages), why];
    },
  },
  // The deadline in ms; 0 is none. The slider holds its log10.
  {
    name: "graph-deadline",
    type: "float",
    min: 0,
    max: 10_000,
    default: 100,
    control: deadlineControl,
  },
];

/** A stage's service in words, for its select. */
const SERVICES = [
  ["page", "the page's service"],
  ["lab", "the Lab's model"],
  ["exp", "exponential"],
];

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext & { service?: LabService }} context
 */
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, service, signal } =
    sectionContext(context);
  const start = initial(settingsOf(params, api), values);
  const presets = api.graphPresets();
  const labService = api.labDefaults().service;
  const ui = panel(root, {
    chartHeight: 320,
    chartLabel: "The p99 answer time against what the deadline cuts",
  });
  const preset = choice(ui.controls, {
    id: `${prefix}graph-preset`,
    label: "request graph",
    value: start["graph-preset"],
    options: params[0].values.map((v) => [v, PRESET_TEXT[v]]),
  });
  // The edited stages as the URL carries them (applyValues sets it from a link or attribute).
  const stagesInput = el("input", {
    id: `${prefix}graph-stages`,
    type: "hidden",
    value: start["graph-stages"],
  });
  ui.controls.append(stagesInput);
  const deadline = slider(ui.controls, {
    id: `${prefix}graph-deadline`,
    label: "deadline",
    min: OFF,
    max: LOG_MAX,
    step: 0.001,
    value: deadlineControl(start["graph-deadline"]),
    format: (v) => (v < 0 ? "none" : formatMs(10 ** v)),
    valuetext: (v) => (v < 0 ? "no deadline" : `deadline ${formatMs(10 ** v)}`),
  });
  const editor = el("fieldset", { class: "lab-own lab-graph-stages" });
  ui.controls.append(editor);

  /** @type {import("./stages.js").GraphStage[]} */
  let stages = [];
  const presetStages = (name) =>
    fromPreset((presets.find((p) => p.name === name) ?? presets[1]).stages);
  {
    const [given] = parseStages(start["graph-stages"]);
    if (given.length > 0) {
      preset.value = "custom";
      stages = given;
    } else {
      stages = presetStages(preset.value === "custom" ? "search" : preset.value);
    }
  }

  const r = {
    miss: readout(ui.readouts, {
      name: "miss",
      label: "requests cut by the deadline",
      theory: true,
    }),
    completeness: readout(ui.readouts, {
      name: "completeness",
      label: "completeness",
      theory: true,
    }),
    p50: readout(ui.readouts, { name: "p50", label: "p50", theory: true }),
    p99: readout(ui.readouts, { name: "p99", label: "p99", theory: true }),
    p999: readout(ui.readouts, { name: "p999", label: "p99.9", theory: true }),
  };

  const survival = el("canvas", {
    height: 240,
    role: "img",
    "aria-label": "The request's completion time, survival P(T > t)",
    "data-chart": "graph-survival",
  });
  survival.style.height = "240px";
  ui.canvas.after(survival);

  /** @type {import("../../api.js").GraphResult | null} */
  let result = null;

  // ---- the stage editor ----
  function field(parent, id, label, input) {
    parent.append(
      el("div", { class: "lab-control" }, el("label", { for: id, text: label }), input),
    );
    return input;
  }
  function renderEditor() {
    editor.replaceChildren(el("legend", { text: "stages, run one after another" }));
    const list = el("ol", { class: "lab-graph-list" });
    editor.append(list);
    stages.forEach((s, i) => {
      const id = (name) => `${prefix}graph-stage${i}-${name}`;
      const item = el("li", { class: "lab-graph-stage", "aria-label": `stage ${i + 1}` });
      list.append(item);
      const kind = field(
        item,
        id("kind"),
        `stage ${i + 1}`,
        el(
          "select",
          { id: id("kind") },
          el("option", { value: "single", text: "one call", selected: s.kind === "single" }),
          el("option", { value: "parallel", text: "parallel", selected: s.kind === "parallel" }),
        ),
      );
      kind.addEventListener("change", () => {
        s.kind = kind.value === "parallel" ? "parallel" : "single";
        if (s.kind === "parallel" && s.width < 2) s.width = s.k = 10;
        edited();
      });
      if (s.kind === "parallel") {
        const width = field(
          item,
          id("width"),
          "children",
          el("input", {
            id: id("width"),
            type: "number",
            min: 1,
            max: LIMITS.width,
            value: s.width,
          }),
        );
        const k = field(
          item,
          id("k"),
          "waits for",
          el("input", { id: id("k"), type: "number", min: 1, max: s.width, value: s.k }),
        );
        const whole = (input, lo, hi) => {
          const v = Math.round(Number(input.value));
          return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : lo;
        };
        width.addEventListener("change", () => {
          const all = s.k === s.width;
          s.width = whole(width, 1, LIMITS.width);
          s.k = all ? s.width : Math.min(s.k, s.width);
          edited();
        });
        k.addEventListener("change", () => {
          s.k = whole(k, 1, s.width);
          edited();
        });
      }
      const svc = field(
        item,
        id("service"),
        "service",
        el(
          "select",
          { id: id("service") },
          ...SERVICES.map(([v, t]) =>
            el("option", { value: v, text: t, selected: s.service === v }),
          ),
        ),
      );
      svc.addEventListener("change", () => {
        s.service = /** @type {"page" | "lab" | "exp"} */ (svc.value);
        edited();
      });
      if (s.service === "exp") {
        const mean = field(
          item,
          id("mean"),
          "mean (ms)",
          el("input", {
            id: id("mean"),
            type: "number",
            min: LIMITS.meanMin,
            max: LIMITS.meanMax,
            step: "any",
            value: s.mean,
          }),
        );
        mean.addEventListener("change", () => {
          const v = Number(mean.value);
          s.mean = Number.isFinite(v) ? Math.min(LIMITS.meanMax, Math.max(LIMITS.meanMin, v)) : 10;
          edited();
        });
      }
      const remove = el("button", {
        type: "button",
        text: "remove",
        "aria-label": `remove stage ${i + 1}`,
        disabled: stages.length === 1,
      });
      remove.addEventListener("click", () => {
        stages.splice(i, 1);
        edited(`${prefix}graph-add`);
      });
      item.append(remove);
    });
    const add = el("button", {
      type: "button",
      id: `${prefix}graph-add`,
      text: "add a stage",
      disabled: stages.length >= LIMITS.stages,
    });
    add.addEventListener("click", () => {
      stages.push({ kind: "parallel", width: 10, k: 10, service: "page", mean: 10 });
      edited(`${prefix}graph-stage${stages.length - 1}-kind`);
    });
    editor.append(add);
  }

  /** The reader edited a stage: the graph is now theirs ("custom"), and focus stays put. */
  function edited(focusId) {
    const active = focusId ?? document.activeElement?.id;
    preset.value = "custom";
    stagesInput.value = formatStages(stages);
    renderEditor();
    if (active)
      /** @type {HTMLElement | null} */ (root.querySelector(`#${CSS.escape(active)}`))?.focus();
    update();
  }

  // ---- the charts ----
  const floorOf = (res) => 5 / res.requests;
  const logRange = (lo, hi) => [
    10 ** Math.floor(Math.log10(Math.max(lo, 0.01))),
    10 ** Math.ceil(Math.log10(Math.max(hi, lo * 10))),
  ];

  function draw(canvas = ui.canvas) {
    const sw = result?.sweep;
    const d = result?.deadlineMs ?? null;
    const [xMin, xMax] = sw
      ? logRange(
          Math.min(...sw.p99, ...sw.theoryP99) / 1.2,
          Math.max(...sw.p99, ...sw.theoryP99, d ?? 0) * 1.2,
        )
      : [1, 10_000];
    const c = chart(canvas, {
      legend: [
        { label: "answers missing, simulated", color: "hedge", shape: "circle" },
        { label: "requests cut, simulated", color: "none", shape: "circle", hollow: true },
        { label: "theory", color: "theory", width: 1.5 },
      ],
      legendCorner: "right",
      x: { type: "log", min: xMin, max: xMax, label: "p99 answer time", format: formatTickMs },
      y: { type: "log", min: 1e-5, max: 1, label: "share lost to the deadline" },
    });
    c.axes();
    if (!result || !sw) return c.done();
    const lost = (v) => (v >= 1e-5 ? v : NaN);
    c.line(
      sw.theoryP99,
      Array.from(sw.theoryCompleteness, (v) => lost(1 - v)),
      {
        color: "theory",
        width: 1.5,
      },
    );
    c.line(sw.theoryP99, Array.from(sw.theoryMiss, lost), {
      color: "theory",
      width: 1.5,
      dash: [5, 4],
    });
    const floor = floorOf(result);
    const sim = (ys) => Array.from(sw.p99, (x, i) => ({ x, y: ys[i] >= floor ? ys[i] : NaN }));
    c.dots(sim(Array.from(sw.completeness, (v) => 1 - v)), { color: "hedge", r: 3.5 });
    c.dots(sim(Array.from(sw.miss)), { color: "none", r: 3.5, hollow: true });
    if (d !== null) c.vline(d, `D = ${formatMs(d)}`, { color: "hedge" });
    c.done();
  }

  function drawSurvival(canvas = survival) {
    const cv = result?.curves;
    const th = cv ? Array.from(cv.theorySurvival) : [];
    const tMs = cv ? Array.from(cv.tMs) : [];
    // From where the theory leaves 1 to where it passes 10⁻⁵.
    const lo = tMs.find((_t, i) => th[i] < 0.999) ?? 1;
    const hi = tMs.find((_t, i) => th[i] < 1e-5) ?? 10_000;
    const [xMin, xMax] = cv ? logRange(lo, hi) : [1, 10_000];
    const c = chart(canvas, {
      legend: [
        { label: "simulated", color: "hedge", width: 3 },
        { label: "theory", color: "theory", dash: [5, 4], width: 1.5 },
      ],
      legendCorner: "left",
      x: { type: "log", min: xMin, max: xMax, label: "completion time t", format: formatTickMs },
      y: { type: "log", min: 1e-5, max: 1, label: "P(T > t)" },
    });
    c.axes();
    if (!result || !cv) return c.done();
    const floor = floorOf(result);
    c.line(
      tMs,
      Array.from(cv.survival, (v) => (v >= floor ? v : NaN)),
      { color: "hedge", width: 3 },
    );
    c.line(tMs, th, { color: "theory", width: 1.5, dash: [5, 4] });
    if (result.deadlineMs !== null)
      c.vline(result.deadlineMs, `D = ${formatMs(result.deadlineMs)}`, { color: "hedge" });
    c.done();
  }

  function options() {
    const d = deadlineOf(Number(deadline.input.value));
    /** @type {import("../../api.js").SimulateGraphOptions} */
    const opts = {
      requests: requestsOf(stages),
      seed: seed.value,
      deadlineMs: d === null ? null : Number(d.toPrecision(4)),
    };
    if (service.value !== undefined) opts.service = service.value;
    if (preset.value === "custom") opts.stages = stageOptions(stages, labService);
    else opts.preset = /** @type {"fanout" | "search" | "quorum" | "chain"} */ (preset.value);
    return opts;
  }

  const redrawSoon = perFrame(() => {
    draw();
    drawSurvival();
  });

  const note = () => {
    const th = result
      ? result.theoryExact
        ? "The theory is exact for one stage."
        : `The theory convolves the stages numerically, within ${formatPct(result.theoryCdfError, 2)} on P(T ≤ t).`
      : "";
    ui.note.textContent = `${formatCount(requestsOf(stages))} requests on ${service.label}. Completeness counts the answers a complete request waits for (k of each parallel stage); a stage not yet started by the deadline has none in. ${th}`;
  };

  function update() {
    const d = deadlineOf(Number(deadline.input.value));
    onChange({
      "graph-preset": preset.value,
      "graph-stages": preset.value === "custom" ? formatStages(stages) : "",
      "graph-deadline": d === null ? 0 : Number(d.toPrecision(3)),
    });
    runSweep(client, ui, [{ fn: "simulateGraph", args: [options()] }], {
      size: "requests",
      onError: (error) => {
        // Never an earlier run's numbers beside an error: every readout says it has none.
        result = null;
        for (const out of Object.values(r)) out.set("—", "");
        r.miss.set("error", plain(error));
        redrawSoon();
      },
      onResult: (res) => {
        result = res;
        const t = (v) => `theory ${v}`;
        r.miss.set(formatPct(res.miss, 2), t(formatPct(res.theoryMiss, 2)));
        r.completeness.set(formatPct(res.completeness, 2), t(formatPct(res.theoryCompleteness, 2)));
        r.p50.set(formatMs(res.p50), t(formatMs(res.theoryP50)));
        r.p99.set(formatMs(res.p99), t(formatMs(res.theoryP99)));
        r.p999.set(formatMs(res.p999), t(formatMs(res.theoryP999)));
        note();
        const dl =
          res.deadlineMs === null ? "no deadline" : `a deadline of ${formatMs(res.deadlineMs)}`;
        ui.canvas.setAttribute(
          "aria-label",
          `The p99 answer time against the share lost as the deadline moves. At ${dl}, ${formatPct(res.miss, 2)} of requests are cut (theory ${formatPct(res.theoryMiss, 2)}) and ${formatPct(1 - res.completeness, 2)} of answers are missing (theory ${formatPct(1 - res.theoryCompleteness, 2)}).`,
        );
        survival.setAttribute(
          "aria-label",
          `The completion time's survival P(T > t), simulated and in theory: p99.9 ${formatMs(res.p999)}, theory ${formatMs(res.theoryP999)}.`,
        );
      },
      redraw: redrawSoon,
    });
  }

  touchChart(ui.canvas, {
    xs: () => (result ? Array.from(result.sweep.p99) : []),
    read: (x) => {
      if (!result) return null;
      const sw = result.sweep;
      const i = Array.prototype.indexOf.call(sw.p99, x);
      if (i < 0) return null;
      return {
        lines: [
          `deadline ${formatMs(sw.deadlineMs[i])}: p99 ${formatMs(sw.p99[i])}`,
          `answers missing ${formatPct(1 - sw.completeness[i], 3)} (theory ${formatPct(1 - sw.theoryCompleteness[i], 3)})`,
          `requests cut ${formatPct(sw.miss[i], 2)} (theory ${formatPct(sw.theoryMiss[i], 2)})`,
        ],
        marks: [
          { y: 1 - sw.completeness[i], color: "hedge" },
          { y: sw.miss[i], color: "none" },
        ],
      };
    },
    marker: {
      input: deadline.input,
      value: () => result?.deadlineMs ?? NaN,
      toControl: (x) => Math.min(LOG_MAX, Math.max(0, Math.log10(x))).toFixed(3),
      // A key moves the deadline by a twentieth of a decade; Home and End to the ends.
      step: (k) => {
        const v = Number(deadline.input.value);
        const to = !Number.isFinite(k) ? (k < 0 ? 0 : LOG_MAX) : Math.max(0, v) + k * 0.05;
        return Math.min(LOG_MAX, Math.max(0, to)).toFixed(3);
      },
    },
    redraw: redrawSoon,
  });

  exportBar(ui.tools, {
    link,
    name: "graph",
    title: "Request graph: the p99 answer time against what the deadline cuts",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      requests: result?.requests ?? requestsOf(stages),
      preset: preset.value,
      stages: formatStages(stages),
      deadline_ms: result?.deadlineMs ?? "none",
      service: service.label,
    }),
    table: () => ({
      header: [
        "deadline_ms",
        "sim_p99_ms",
        "sim_completeness",
        "sim_miss",
        "theory_p99_ms",
        "theory_completeness",
        "theory_miss",
      ],
      rows: result
        ? Array.from(result.sweep.deadlineMs, (d, i) => [
            d,
            result.sweep.p99[i],
            result.sweep.completeness[i],
            result.sweep.miss[i],
            result.sweep.theoryP99[i],
            result.sweep.theoryCompleteness[i],
            result.sweep.theoryMiss[i],
          ])
        : [],
    }),
  });

  preset.addEventListener("change", () => {
    if (preset.value !== "custom") stages = presetStages(preset.value);
    stagesInput.value = preset.value === "custom" ? formatStages(stages) : "";
    renderEditor();
    update();
  });
  // A link or an attribute sets the stages' text (applyValues): read it as the URL is read.
  stagesInput.addEventListener("input", () => {
    const [given] = parseStages(stagesInput.value);
    if (given.length > 0) {
      stages = given;
      preset.value = "custom";
    }
    renderEditor();
    update();
  });
  deadline.input.addEventListener("input", update);
  seed.watch(update, signal);
  service.watch(update, signal);
  redrawOnResize(ui.canvas, draw, signal);
  redrawOnResize(survival, drawSurvival, signal);
  renderEditor();
  note();
  update();
}
