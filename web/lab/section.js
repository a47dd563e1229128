// The pieces every Lab section is built from: controls, readouts, a chart canvas and a progress
// line, created inside the root the section is given (never looked up document-wide), so a
// section can be mounted into any page.

import { soon } from "../scheduler.js";
import { onThemeChange } from "../theme.js";

export { el } from "../dom.js";
import { el } from "../dom.js";
export { LabSeed, SEED_PARAM } from "./seed.js";
import { LabSeed } from "./seed.js";
import { LabService } from "./service.js";
export { LabService } from "./service.js";

/**
 * What a section's `mount(root, context)` is given (lab/main.js, embed.js): the worker client,
 * the closed-forms facade, the settings read from the URL or attributes, the id prefix, a
 * listener for changed settings, the "copy link" source, the seed its simulations run at
 * (the page's one seed, or an embed's `seed` attribute), the service model its simulations
 * run on (the page's one: the Lab's, or the reader's own data) and, in an embed, the signal
 * that unmounts it.
 * @typedef {{
 *   client: import("./sim.js").SimClient,
 *   api: import("./api.js").ClosedForms,
 *   values?: Record<string, any>,
 *   prefix?: string,
 *   onChange?: (changed: Record<string, unknown>) => void,
 *   link?: () => string,
 *   seed?: import("./seed.js").LabSeed,
 *   service?: import("./service.js").LabService,
 *   signal?: AbortSignal,
 * }} SectionContext
 */

/** The section's heading as a reader hears it ("Fan-out turns…"), without its number, or (an
 * embedded section has none) the chart's label. */
const heading = (root, chartLabel) =>
  root
    .querySelector("h2")
    ?.textContent.replace(/^\s*\d+\s*/, "")
    .trim() || chartLabel;

/**
 * A one-line summary of a finished sweep from the section's readouts: the first three that
 * have a value, each as "label value (theory)".
 * @param {HTMLElement} readouts
 */
function readoutSummary(readouts) {
  const parts = [];
  for (const box of readouts.querySelectorAll(".lab-readout")) {
    const value = box.querySelector(".v")?.textContent ?? "";
    if (!value || value === "—" || value === "…") continue;
    const theory = box.querySelector(".t")?.textContent;
    const label = box.querySelector(".k")?.textContent ?? "";
    parts.push(`${label} ${value}${theory ? ` (${theory})` : ""}`);
    if (parts.length === 3) break;
  }
  return parts.length ? `${parts.join("; ")}.` : "done.";
}

/**
 * A section's context with its optional parts filled in: no id prefix, a listener that hears
 * nothing, the page's default seed and the Lab's own service model (what a section mounted on
 * its own, as in a test, gets).
 * @param {SectionContext} context
 */
export function sectionContext(context) {
  return {
    ...context,
    prefix: context.prefix ?? "",
    onChange: context.onChange ?? (() => {}),
    seed: context.seed ?? new LabSeed(),
    service: context.service ?? new LabService(),
  };
}

/**
 * The skeleton of a section: controls, readouts, progress and a chart, appended to `root`.
 * `summary()`, if given, is the line announced when a sweep is done (else the first readouts).
 * @param {HTMLElement} root
 * @param {{ chartHeight?: number, chartLabel: string, summary?: () => string }} options
 */
export function panel(root, { chartHeight = 300, chartLabel, summary = undefined }) {
  const controls = el("div", { class: "lab-controls" });
  const readouts = el("div", { class: "lab-readouts" });
  // The visible progress line moves with every point; what a screen reader hears is `announce`
  // (see progress): "computing" once, then the result, at most twice a sweep.
  const status = el("p", { class: "lab-progress", "data-progress": "" });
  const announce = el("p", { class: "visually-hidden", role: "status", "data-announce": "" });
  const canvas = el("canvas", { height: chartHeight, role: "img", "aria-label": chartLabel });
  // A fixed CSS height: resizing the backing store must never change the layout (no resize loop).
  canvas.style.height = `${chartHeight}px`;
  const note = el("p", { class: "lab-note" });
  const tools = el("div", { class: "lab-tools" });
  const box = el(
    "div",
    { class: "lab-panel" },
    controls,
    readouts,
    status,
    announce,
    canvas,
    tools,
    note,
  );
  root.append(box);
  /** Whether a sweep is under way: "computing" has been announced and its result has not. */
  let computing = false;
  return {
    controls,
    readouts,
    canvas,
    note,
    tools,
    /**
     * Shows how far a sweep is: "computing k of n points" while points are missing, "draft
     * shown, refining k of n points" once every point has at least a draft (`drafted`), and
     * nothing when every point is at full size. `data-done` counts full-size points only,
     * `data-tenth` points at a tenth of their sample or more, `data-drafted` points with any answer.
     * That line is not a live region: the separate `[data-announce]` status says "Computing…"
     * when a sweep starts (once, however many sweeps a drag starts before one finishes) and a
     * one-line summary of the result when it is done (`summary`, or the section's first
     * readouts): at most two announcements a sweep.
     */
    progress(done, total, drafted = done, tenth = drafted) {
      status.dataset.done = String(done);
      status.dataset.total = String(total);
      status.dataset.drafted = String(Math.max(drafted, done));
      // Points at a tenth of their sample or more (the last draft, or full size).
      status.dataset.tenth = String(Math.max(tenth, done));
      status.textContent =
        done >= total
          ? ""
          : drafted < total
            ? `computing: ${drafted} of ${total} points`
            : `draft shown; refining to the full sample: ${done} of ${total} points`;
      status.classList.toggle("busy", done < total);
      box.toggleAttribute("data-draft", done < total && drafted > 0);
      if (done < total && !computing) {
        computing = true;
        announce.textContent = `${heading(root, chartLabel)}: computing…`;
      } else if (done >= total) {
        // Also when every point came from the cache (no "computing" first): the new result.
        computing = false;
        const text = `${heading(root, chartLabel)}: ${summary?.() || readoutSummary(readouts)}`;
        if (announce.textContent !== text) announce.textContent = text;
      }
    },
  };
}

/**
 * A range input with its label and its value; `format(value)` shows the value in the output
 * and `valuetext(value)` (default: `format`) is the input's `aria-valuetext`, so a screen reader
 * reads "p = 1%" rather than a log slider's raw "-2". The output is not a live region (an
 * `<output>` is one by default): the slider's own value change is what a screen reader reads,
 * once. `snap(value, previous)`, when given, moves a value the reader set (dragging, keys,
 * assistive technology) onto one of the slider's stops before anything else sees it; values set
 * by code (`applyValues`, a link) are left as they are.
 * @param {HTMLElement} parent
 * @param {{ id: string, label: string, min: number, max: number, step: number | "any",
 *   value: number | string, format?: (value: number) => string,
 *   valuetext?: (value: number) => string,
 *   snap?: (value: number, previous: number) => number }} options
 */
export function slider(
  parent,
  { id, label, min, max, step, value, format = String, valuetext, snap },
) {
  const input = el("input", { id, type: "range", min, max, step, value });
  const output = el("output", { for: id, "aria-live": "off", text: format(Number(value)) });
  parent.append(
    el("div", { class: "lab-control" }, el("label", { for: id, text: label }), input, output),
  );
  let previous = Number(input.value);
  const show = () => {
    const v = Number(input.value);
    output.textContent = format(v);
    input.setAttribute("aria-valuetext", (valuetext ?? format)(v));
    previous = v;
  };
  show();
  input.addEventListener("input", (e) => {
    if (snap && e.isTrusted) {
      const v = snap(Number(input.value), previous);
      if (String(v) !== input.value) input.value = String(v);
    }
    show();
  });
  return { input, output, show };
}

/**
 * The slider of the numeric setting `name` in `params` (a section's `params`): its id is
 * `prefix + name`, its range and step the spec's (an "int" steps by 1), so a section states a
 * setting's range once, in `params`. A setting shown through a transform (a spec with
 * `control`, a log scale) builds its own `slider`.
 * @param {HTMLElement} parent
 * @param {readonly any[]} params
 * @param {string} name
 * @param {{ prefix: string, label: string, value: number | string,
 *   format?: (value: number) => string, valuetext?: (value: number) => string,
 *   snap?: (value: number, previous: number) => number }} options
 */
export function paramSlider(parent, params, name, { prefix, ...options }) {
  const spec = params.find((s) => s.name === name);
  if (!spec || (spec.type !== "float" && spec.type !== "int") || spec.control)
    throw new TypeError(`${name} is not a numeric setting shown as it is`);
  const step = spec.step ?? (spec.type === "int" ? 1 : "any");
  return slider(parent, { id: `${prefix}${name}`, min: spec.min, max: spec.max, step, ...options });
}

/** A select with its label; `options` are `[value, text]` pairs. */
export function choice(parent, { id, label, options, value }) {
  const select = el(
    "select",
    { id },
    ...options.map(([v, t]) => el("option", { value: v, text: t, selected: v === value })),
  );
  parent.append(el("div", { class: "lab-control" }, el("label", { for: id, text: label }), select));
  return select;
}

/**
 * A readout: the simulated number as text under `data-readout=name`, and, when the section
 * has one, the closed form beside it under `data-theory=name`.
 */
export function readout(parent, { name, label, theory = false }) {
  const value = el("span", { class: "v", "data-readout": name, text: "—" });
  const box = el("div", { class: "lab-readout" }, el("span", { class: "k", text: label }), value);
  let theoryEl = null;
  if (theory) {
    theoryEl = el("span", { class: "t", "data-theory": name, text: "" });
    box.append(theoryEl);
  }
  parent.append(box);
  return {
    set(text, theoryText) {
      if (value.textContent !== text) value.textContent = text;
      if (theoryEl && theoryText !== undefined) theoryEl.textContent = theoryText;
    },
  };
}

/**
 * `fn`, called at most once per animation frame however often it is asked for: a dragged
 * slider's input events and a burst of worker answers become one update and one redraw. The
 * page's frame loop runs it (scheduler.js), within the frame's ceiling shared by every panel.
 */
export function perFrame(fn) {
  const job = () => fn();
  return () => soon(job);
}

/**
 * Redraws whenever the canvas changes width or the colour scheme changes (in the next frame),
 * until `signal` aborts (the section was removed).
 */
export function redrawOnResize(canvas, draw, signal) {
  let width = 0;
  const job = () => draw();
  const resized = new ResizeObserver(() => {
    if (canvas.clientWidth !== width) {
      width = canvas.clientWidth;
      soon(job);
    }
  });
  resized.observe(canvas);
  signal?.addEventListener("abort", () => resized.disconnect());
  onThemeChange(() => soon(job), signal);
}

/**
 * Puts settings changed from outside (`values`, already checked by params.js) into a mounted
 * section's controls, as a reader would: each control gets its value and its own event, so the
 * section answers exactly as it does to the reader. A spec's `control(value)` gives the control's
 * value where the two differ (a log slider).
 */
export function applyValues(root, prefix, specs, values) {
  for (const [name, value] of Object.entries(values)) {
    const spec = specs.find((s) => s.name === name);
    const input = root.querySelector(`#${CSS.escape(`${prefix}${name}`)}`);
    if (!spec || !input) continue;
    input.value = spec.control ? spec.control(value) : String(value);
    input.dispatchEvent(
      new Event(input.tagName === "SELECT" ? "change" : "input", { bubbles: true }),
    );
  }
}

/** A section's settings from `values` (params.js), falling back to each spec's default. */
export function initial(specs, values = {}) {
  return Object.fromEntries(specs.map((s) => [s.name, values[s.name] ?? s.default]));
}

/**
 * A section's setting specs with the model's numbers and names filled in: a spec's `default` or
 * `values` may be a function of the core's Lab defaults (`api.labDefaults()`), so a section
 * holds no model constant of its own.
 */
export function settingsOf(params = [], api) {
  const lab = params.some((s) => typeof s.default === "function" || typeof s.values === "function")
    ? api.labDefaults()
    : null;
  return params.map((s) => ({
    ...s,
    ...(typeof s.default === "function" && { default: s.default(lab) }),
    ...(typeof s.values === "function" && { values: s.values(lab) }),
  }));
}

/**
 * The samples a sweep's drafts take, as fractions of the full sample: a complete draft at a
 * hundredth comes back within a slider step, one at a tenth within a second, then every point
 * at full size (issue 19). A draft is an ordinary call of the core at the smaller size, so what
 * it shows is what the API gives for that size.
 */
export const DRAFT_FRACTIONS = [1 / 100, 1 / 10];

/** What a queueing section's bars are, in words (the core's batch-means intervals). */
export const INTERVAL_NOTE_PLANNED =
  "Each bar is its point's 95% interval by batch means (five batches of consecutive requests, Student's t), so it allows for queues' correlated waits. Measured over 200 seeds against closed forms, such bars held the truth in 90–98% of runs at loads from 20% to 95% (the queue, balance, balancer and loaded models). They measure a run's noise, not the bias of a run too short to settle.";

/** INTERVAL_NOTE_PLANNED, for a sweep of fixed lengths drafted at DRAFT_FRACTIONS. */
export const INTERVAL_NOTE = `${INTERVAL_NOTE_PLANNED} Points are drawn first from a hundredth and a tenth of their sample, with wider bars, then refined in place.`;

/**
 * What a sweep run to precision does, in words, from the core's run-length rule of `model`
 * (`api.runLengths()`): the targets, the bounds in `unit` ("requests", "arrivals"), and why the
 * length is planned from a pilot rather than stopped when the bars first look narrow.
 * @param {any} api
 * @param {string} model
 * @param {string} unit
 */
export function plannedNote(api, model, unit) {
  const rule = api.runLengths().find((r) => r.model === model);
  if (!rule) return "";
  const pct = (v) => `${(v * 100).toLocaleString("en-US", { maximumFractionDigits: 1 })}%`;
  const count = (v) => v.toLocaleString("en-US");
  return `Each point's length is planned for bars of ±${pct(rule.mean)} of the mean and ±${pct(rule.p99)} of the p99, from ${count(rule.floor)} to ${count(rule.cap)} ${unit}, from a pilot of ${count(rule.pilot)} ${unit} on a seed of its own, drawn first as the point's draft. So a run's own noise never decides when it stops (stopping once the bars look narrow would pick the runs that happen to read narrow, and their bars would cover less than they claim). A pilot only estimates the noise, so a planned point can fall a little short of its targets, and points near saturation stop at the cap, well short; the readout says what the chosen point reached.`;
}

/**
 * The run-length rule of `model` as an export's `# key=value` lines: the targets (fractions)
 * and the bounds.
 * @param {any} api
 * @param {string} model
 */
export function runLengthMeta(api, model) {
  const rule = api.runLengths().find((r) => r.model === model);
  return rule
    ? {
        target_mean_half_width: rule.mean,
        target_p99_half_width: rule.p99,
        pilot: rule.pilot,
        floor: rule.floor,
        cap: rule.cap,
      }
    : {};
}

/**
 * A point's precision in words, from its result's `precision` record (the core's): the
 * half-widths its bars reached (mean · p99) and what chose its length, as a readout shows it.
 * @param {{ precision: any }} x
 * @param {number} length the run's length
 * @param {string} unit
 */
export function precisionText(x, length, unit) {
  const p = x.precision;
  const pct = (v) => (v === null ? "none" : `±${(v * 100).toFixed(v < 0.1 ? 1 : 0)}%`);
  const how = {
    fixed: "fixed length",
    pilot: "pilot (draft)",
    target: "planned",
    floor: "planned: the floor",
    cap: "planned: the cap",
    "no-interval": "planned: no bar to aim for",
  }[p.lengthBy];
  // Whether the targets were met is the core's (`met`); a fixed length has none.
  const why =
    p.lengthBy === "fixed" ? how : `${how}, ${p.met ? "targets met" : "short of targets"}`;
  return {
    value: `${pct(p.mean)} · ${pct(p.p99)}`,
    detail: `${length.toLocaleString("en-US")} ${unit}, ${why}`,
  };
}

/**
 * A sweep's answers by key, each a draft or final. A new sweep drops the drafts the last one
 * left (a superseded sweep never refines them), a final that fails drops its draft (a draft is
 * never shown as a result), and `finals()` is what an export may write: numbers at full size
 * only.
 */
export class SweepResults {
  constructor() {
    /** @type {Map<string, any>} */
    this.map = new Map();
    /** @type {Set<string>} */
    this.drafts = new Set();
  }

  get(key) {
    return this.map.get(key);
  }

  values() {
    return this.map.values();
  }

  /** Every answer at full size. */
  finals() {
    return [...this.map].filter(([k]) => !this.drafts.has(k)).map(([, v]) => v);
  }

  set(key, value, final = true) {
    this.map.set(key, value);
    if (final) this.drafts.delete(key);
    else this.drafts.add(key);
  }

  /** A new sweep starts: the drafts left by the last one go. */
  startSweep() {
    for (const k of this.drafts) this.map.delete(k);
    this.drafts.clear();
  }

  /** The point's full-size call failed: its draft goes too. */
  discard(key) {
    if (this.drafts.delete(key)) this.map.delete(key);
  }

  clear() {
    this.map.clear();
    this.drafts.clear();
  }
}

/**
 * A call with its sample size (option `size` of its options object) scaled by `fraction`.
 * @param {any} call
 */
function scaled(call, size, fraction, minSize = 1) {
  const [options, ...rest] = call.args;
  const n = Math.max(minSize, Math.round(options[size] * fraction));
  return { ...call, args: [{ ...options, [size]: Math.min(options[size], n) }, ...rest] };
}

/**
 * Runs a sweep's `calls` on the section's worker `client`: each answer goes to
 * `onResult(result, final, point)` (`point`: the call's index in `calls`), an error to
 * `onError(message, point)`, and after every batch of
 * answers the progress line moves and `redraw` runs: one redraw per batch (cached answers arrive
 * together), not one per point.
 *
 * With `size` (the name of the calls' sample-size option, such as "requests"), every point is
 * first run as drafts: when the calls ask for "auto" lengths, one draft, the pilot their length
 * is planned from (the size "pilot"); otherwise at DRAFT_FRACTIONS of its sample, all drafts ranked before any full-size
 * point, and each point's answer is replaced in place as a larger one arrives (a smaller one
 * arriving late from another worker is ignored). A point whose full-size answer is cached has
 * no drafts. A draft's error is dropped: its full-size call answers for it; a full-size error
 * after a draft was shown also calls `onDiscard(point)`, so the draft is not left as a result.
 * `minSize` (default 1) is the smallest sample a draft asks for, the call's own minimum, so that
 * no draft is refused for being too small (a draft never exceeds its full size).
 * @param {import("./sim.js").SimClient} client
 * @param {{ progress: (done: number, total: number, drafted?: number, tenth?: number) => void }} ui
 * @param {any[]} calls
 * @param {{ onResult: (result: any, final: boolean, point: number) => void,
 *   onError: (message: string, point: number) => void,
 *   redraw: () => void, size?: string, minSize?: number, onDiscard?: (point: number) => void }} handlers
 */
export function runSweep(
  client,
  ui,
  calls,
  { onResult, onError, redraw, size, minSize, onDiscard },
) {
  // A sweep whose calls ask for "auto" lengths (the core plans each from a pilot on its own
  // seed) drafts with that pilot; any other sweep with a size drafts at DRAFT_FRACTIONS of it.
  const auto = calls.filter((c) => size && c.args[0]?.[size] === "auto").length;
  if (auto > 0 && auto < calls.length)
    throw new RangeError(`a sweep's calls must all or none ask for "auto" ${size}`);
  const planned = auto > 0;
  const drafts = !size ? 0 : planned ? 1 : DRAFT_FRACTIONS.length;
  const tiers = drafts + 1;
  /** Every call to run: `[point, tier]` for each. */
  const plan = [];
  const all = [];
  const ranks = [];
  for (let tier = 0; tier < tiers; tier++) {
    const final = tier === tiers - 1;
    calls.forEach((call, point) => {
      if (!final && client.cached(call)) return;
      const draft = planned
        ? { ...call, args: [{ ...call.args[0], [size]: "pilot" }, ...call.args.slice(1)] }
        : scaled(call, size, DRAFT_FRACTIONS[tier], minSize);
      all.push(final ? call : draft);
      plan.push([point, tier]);
      ranks.push(tier);
    });
  }
  const shown = new Array(calls.length).fill(-1);
  let done = 0;
  let drafted = 0;
  let tenth = 0;
  client.run(all, {
    ranks,
    onPoint: (index, result, error) => {
      const [point, tier] = plan[index];
      const final = tier === tiers - 1;
      if (tier <= shown[point] || (error && !final)) return;
      if (error && shown[point] >= 0) onDiscard?.(point);
      if (shown[point] < 0) drafted++;
      // The last draft is at a tenth (DRAFT_FRACTIONS); without drafts every answer is full size.
      const tenthTier = Math.max(0, tiers - 2);
      if (tier >= tenthTier && shown[point] < tenthTier) tenth++;
      shown[point] = tier;
      if (final) done++;
      if (error) onError(error, point);
      else onResult(result, final, point);
    },
    onProgress: () => {
      ui.progress(done, calls.length, drafted, tenth);
      redraw();
    },
  });
}
