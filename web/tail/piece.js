// The Tail piece as a mountable panel: controls → the panel's run (run.js: the wasm TailRun and
// its workers), the shared frame scheduler → drawing. `mountTail(root, …)` fills the root's
// `[data-part]` placeholders (the Tail page) or creates the parts it is asked for (an embed),
// and looks nothing up outside the root. Everything shown is computed by the core; this file
// decides only what to draw and when.

import { el } from "../dom.js";
import { formatCount, formatMs, formatPct } from "../format.js";
import { parseSeed, quoted } from "../params.js";
import { onThemeChange } from "../theme.js";
import { register, wake } from "../scheduler.js";
import { drawArena, drawHistograms, drawStrip, touchTail } from "./draw.js";
import { defaultWorkers } from "./pool.js";
import { formatPercentileRank } from "./rank.js";
import { openRun } from "./run.js";
import { NO_LINK_NOTE, SUMMARY_PARAM, latencyInput, plain } from "../latency-input.js";

/**
 * Stop accumulating after this many parent requests by default (the histograms have long
 * settled); `requests` (URL or attribute) stops sooner, at an exact count anyone can reproduce.
 */
export const MAX_REQUESTS = 2_000_000;
/** How long the arena shows each request in "live" mode, and the sweep lengths (ms). */
const SPEEDS = {
  live: { holdMs: 900 },
  slow: { sweepMs: 3000, holdMs: 1200 },
  slower: { sweepMs: 9000, holdMs: 1500 },
  paused: {},
};
const STRIP_MAX_FANOUT = 256;
const reducedMotion = () =>
  globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;

/** The piece's settings, as URL parameters and embed attributes. */
/** The names of the Tail settings, in `tailParams`'s order: known before the core loads (an
 * embed observes these attributes from its first moment). */
export const TAIL_SETTING_NAMES = [
  "fanout",
  "profile",
  "fix",
  "speed",
  "seed",
  "requests",
  "request",
];

/**
 * The settings' specs. `{ yours: true }` (the Tail page) adds the reader's own latencies: the
 * profile "yours" and `data`, the percentile summary `parseLatencies` gives (what a link
 * carries instead of the data: a short text the core reads again, never markup).
 */
export function tailParams(api, { yours = false } = {}) {
  return [
    { name: "fanout", type: "int", min: 1, max: STRIP_MAX_FANOUT, default: 100 },
    {
      name: "profile",
      type: "enum",
      values: [...api.profiles().map((p) => p.name), ...(yours ? ["yours"] : [])],
      default: "default",
    },
    { name: "fix", type: "enum", values: api.mitigations().map((m) => m.name), default: "none" },
    {
      name: "speed",
      type: "enum",
      values: Object.keys(SPEEDS),
      default: reducedMotion() ? "paused" : "live",
    },
    { name: "seed", type: "seed", default: 1 },
    { name: "requests", type: "int", min: 1000, max: MAX_REQUESTS, default: MAX_REQUESTS },
    // The request on screen in the arena (#31): a link shows the same one, paused or not.
    { name: "request", type: "int", min: 0, max: MAX_REQUESTS - 1, default: 0 },
    ...(yours ? [SUMMARY_PARAM] : []),
  ];
}

/** The profile picker's label for the reader's own latencies. */
const YOURS_LABEL = "your data";

const PART_HEIGHTS = { arena: 170, histograms: 230, strip: 200 };
const PART_LABELS = {
  arena: "One request: every leaf where its answer arrived",
  histograms: "Leaf and parent latency histograms",
  strip: "Parent percentiles against fan-out",
};

/** The first-screen counter counts this many requests a frame, up to COUNT_MAX (countMore). */
const COUNT_BATCH = 100;
const COUNT_MAX = 10_000;

/** How often the histograms redraw while requests accumulate (ms). */
const HISTOGRAM_REDRAW_MS = 100;

/**
 * Mounts the piece into `root`. `parts`: which of "controls", "readouts", "arena",
 * "histograms", "strip" to show; `values`: the settings (see tailParams); `prefix` makes the
 * control ids unique on a page with several panels; `onChange(values)` hears every change
 * (the page writes it to its URL); `workers`: how many workers accumulate requests (the
 * page's shared pool; 0 accumulates on the main thread instead, within the frame budget);
 * `signal`: aborting it unmounts the piece (an embed removed from its page): its frame task,
 * observers, worker channel and wasm objects are all released, and a mount still preparing
 * stops with an AbortError. `yours` (the Tail page) offers the reader's own latencies as a
 * profile: `parse(source, options)` and `example()` read them in a worker, `leaves` are the
 * ones a link's `data` gave (with `values.profile` "yours"); the paste box goes into the
 * root's `[data-part=your-data]`.
 * Returns `{ table, drawOnto, canvases, settings, set }` for the export buttons and for
 * settings changed from outside (`set(values)`, e.g. an embed's attribute).
 * @param {HTMLElement} root
 * @param {{
 *   api: typeof import("../pkg/tail_lab.js"),
 *   values: Record<string, any>,
 *   parts: string[],
 *   prefix?: string,
 *   onChange?: (settings: Record<string, any>) => void,
 *   workers?: number,
 *   signal?: AbortSignal,
 *   yours?: {
 *     parse: (source: string | Blob, options?: any, signal?: AbortSignal) => Promise<{ result?: any, error?: string }>,
 *     example: (signal?: AbortSignal) => Promise<{ result?: any, error?: string }>,
 *     leaves?: import("../pkg/tail_lab.js").EmpiricalServiceOptions,
 *     summary?: string,
 *   },
 * }} options
 */
export async function mountTail(
  root,
  {
    api,
    values,
    parts,
    prefix = "",
    onChange = () => {},
    workers = defaultWorkers(),
    signal,
    yours,
  },
) {
  const id = (name) => `${prefix}${name}`;
  const part = (name, make) =>
    root.querySelector(`[data-part="${name}"]`) ??
    (parts.includes(name) ? root.appendChild(make()) : null);
  const settings = { ...values };
  /** The reader's latencies the "yours" profile draws from (never in `settings`: not a URL's). */
  let leaves = yours?.leaves;
  if (settings.profile === "yours" && !leaves) settings.profile = "default";
  // The run's lifecycle (run.js). Its `run` is read afresh each time: a new profile or seed swaps
  // in a run prepared over several tasks (see reconfigure).
  const life = await openRun(api, { ...settings, leaves }, { workers, signal });
  const edges = api.binEdges();
  const state = {
    curves: null,
    /** What depends on the run's settings only: ranks, what the fix drops, the hedge delay. */
    facts: null,
    shown: 0,
    request: null,
    since: 0,
    dirty: true,
    announced: 0,
    histAt: -Infinity,
    histRequests: -1,
  };
  // Which charts need drawing: the strip changes only with the settings, the arena only with
  // the request shown or the sweep; only the histograms change as requests accumulate.
  const stale = { arena: true, histograms: true, strip: true };
  const invalidate = () => {
    state.dirty = true;
    stale.arena = true;
    stale.histograms = true;
    stale.strip = true;
  };
  // A chart scrolled out of view is not drawn; it is drawn again as it comes into view.
  const onScreen = { arena: true, histograms: true, strip: true };

  // ---- the parts
  const controls = part("controls", () =>
    el("div", { class: "controls", role: "group", "aria-label": "Controls" }),
  );
  const readouts = part("readouts", () => el("div", { class: "readouts" }));
  const canvases = {};
  for (const name of ["arena", "histograms", "strip"]) {
    const holder = part(name, () => el("figure", { class: "panel-figure", "data-part": name }));
    if (!holder) continue;
    const canvas =
      holder.querySelector("canvas") ??
      holder.appendChild(el("canvas", { height: PART_HEIGHTS[name] }));
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", PART_LABELS[name]);
    canvas.style.height = `${canvas.getAttribute("height")}px`;
    canvases[name] = canvas;
  }
  const caption = canvases.arena
    ? (root.querySelector('[data-part="arena-caption"]') ??
      canvases.arena.parentElement.appendChild(el("p", { class: "caption" })))
    : null;
  // Under the strip: the leaf percentiles the parent's median and p99 sit at, at this fan-out.
  const stripCaption = canvases.strip
    ? (root.querySelector('[data-part="strip-caption"]') ??
      canvases.strip.parentElement.appendChild(
        el("figcaption", { class: "caption", "data-part": "strip-caption" }),
      ))
    : null;
  const live = el("p", { class: "visually-hidden", "aria-live": "polite" });
  root.append(live);
  // The first screen's counter (`counter`, asked for by the Tail page and the Lab's header).
  const counter = part("counter", () => el("p", { class: "tail-counter", "data-part": "counter" }));

  // ---- controls (each with a real label)
  const inputs = {};
  /**
   * Shows settings changed from outside in the controls.
   * @type {(values: Record<string, any>) => void}
   */
  let showInControls = () => {};
  if (controls) {
    const field = (name, label, input, extra = []) => {
      input.id = id(name);
      inputs[name] = input;
      controls.append(
        el(
          "div",
          { class: "control" },
          el("label", { for: input.id, text: label }),
          input,
          ...extra,
        ),
      );
    };
    const fanoutOut = el("output", {
      for: id("fanout"),
      "aria-live": "off",
      text: String(settings.fanout),
    });
    field(
      "fanout",
      "fan-out",
      el("input", {
        type: "range",
        min: 1,
        max: STRIP_MAX_FANOUT,
        step: 1,
        value: settings.fanout,
      }),
      [fanoutOut],
    );
    const select = (items, value) => {
      const s = el("select");
      for (const { name, label } of items)
        s.append(el("option", { value: name, text: label, selected: name === value }));
      return s;
    };
    field(
      "profile",
      "profile",
      select(
        [...api.profiles(), ...(yours ? [{ name: "yours", label: YOURS_LABEL }] : [])],
        settings.profile,
      ),
    );
    field("fix", "fix", select(api.mitigations(), settings.fix));
    const speeds = [
      ["live", "live"],
      ["slow", "slow sweep"],
      ["slower", "slower sweep"],
      ["paused", "paused"],
    ].filter(([v]) => !reducedMotion() || v === "paused" || v === "live");
    field(
      "speed",
      "speed",
      select(
        speeds.map(([name, label]) => ({ name, label })),
        settings.speed,
      ),
    );
    const seedError = el("span", { id: id("seed-error"), class: "field-error", role: "status" });
    field(
      "seed",
      "seed",
      el("input", {
        type: "text",
        inputmode: "numeric",
        value: String(settings.seed),
        "aria-describedby": seedError.id,
        autocomplete: "off",
        spellcheck: "false",
      }),
    );
    controls.append(
      el("button", { id: id("next-request"), type: "button", text: "next request" }),
      el("button", { id: id("reset"), type: "button", text: "reset" }),
      seedError,
    );
    showInControls = (v) => {
      if ("fanout" in v) {
        inputs.fanout.value = String(v.fanout);
        fanoutOut.textContent = inputs.fanout.value;
      }
      for (const name of ["profile", "fix", "speed"]) if (name in v) inputs[name].value = v[name];
      if ("seed" in v) {
        inputs.seed.value = String(v.seed);
        inputs.seed.setAttribute("aria-invalid", "false");
        seedError.textContent = "";
      }
    };
    inputs.fanout.addEventListener("input", () => {
      fanoutOut.textContent = inputs.fanout.value;
      reconfigure({ fanout: Number(inputs.fanout.value) });
    });
    inputs.profile.addEventListener("change", () => {
      const profile = inputs.profile.value;
      showYours(profile === "yours");
      if (profile !== "yours") {
        reconfigure({ profile, data: yours ? "" : undefined });
      } else if (leaves) {
        reconfigure({ profile, leaves, data: settings.data || summary });
      } else {
        yoursBox?.say(
          "Paste your latencies, drop a file, or press “use the example”: until then the run stays on the profile it had.",
        );
      }
    });
    inputs.fix.addEventListener("change", () => reconfigure({ fix: inputs.fix.value }));
    inputs.speed.addEventListener("change", () => {
      settings.speed = inputs.speed.value;
      state.since = performance.now();
      changed();
    });
    inputs.seed.addEventListener("change", () => {
      const text = inputs.seed.value.trim();
      // The same rule as a link's seed (params.js): a number, or a BigInt past 2^53 − 1.
      const [seed] = parseSeed(text);
      inputs.seed.setAttribute("aria-invalid", String(seed === null));
      if (seed === null) {
        seedError.textContent = `seed must be a whole number from 0 to 18446744073709551615; you typed “${quoted(text)}”`;
        return;
      }
      seedError.textContent = "";
      reconfigure({ seed });
    });
    root.querySelector(`#${CSS.escape(id("next-request"))}`).addEventListener("click", () => {
      show(state.shown + 1, performance.now());
      changed();
    });
    root.querySelector(`#${CSS.escape(id("reset"))}`).addEventListener("click", () => {
      life.reset();
      unsettle();
      restartCount();
      show(0, performance.now());
      changed();
    });
  }

  // ---- your own latencies (the Tail page): the paste box under the controls, shown while the
  // picker is on "your data". Text is read in a worker; a bad one is refused with the line named
  // and the run keeps what it had.
  /** The summary of the leaves in use (what a link carries). */
  let summary = yours?.summary ?? (leaves ? settings.data : "");
  let yoursHolder = yours ? root.querySelector('[data-part="your-data"]') : null;
  if (yours && !yoursHolder && controls) {
    yoursHolder = el("div", { "data-part": "your-data" });
    controls.after(yoursHolder);
  }
  /** @type {ReturnType<typeof latencyInput> | null} */
  let yoursBox = null;
  if (yours && yoursHolder) {
    /** A newer read supersedes one still in its worker: its answer is ignored. */
    let reading = 0;
    /** Stops the read under way (its worker), for a newer read or the piece's unmount. */
    let reader = new AbortController();
    signal?.addEventListener("abort", () => reader.abort(), { once: true });
    /** A new read: the one under way is stopped; its `signal` stops this one in its turn. */
    const nextRead = () => {
      reader.abort();
      reader = new AbortController();
      return { token: ++reading, signal: reader.signal };
    };
    const readSource = async (source, what, options = {}, read = nextRead()) => {
      yoursBox?.say(`Reading ${what}…`);
      const answer = await yours.parse(source, options, read.signal);
      if (read.token !== reading || signal?.aborted) return;
      if (answer.error !== undefined) {
        yoursBox?.say(
          `Not used: ${plain(answer.error)}. ${settings.profile === "yours" ? "The run keeps the latencies it had." : "The run keeps its profile."}`,
          true,
        );
        return;
      }
      const res = answer.result;
      leaves = res.service;
      summary = res.percentiles;
      const what2 =
        res.kind === "samples"
          ? `${formatCount(res.count)} latencies`
          : `${formatCount(res.count)} points of a distribution`;
      yoursBox?.say(
        `${what2} read (p50 ${formatMs(res.summary.p50Ms)}, p99 ${formatMs(res.summary.p99Ms)}, p99.9 ${formatMs(res.summary.p999Ms)}). Every leaf now draws from them.${summary ? "" : NO_LINK_NOTE}`,
      );
      if (inputs.profile) inputs.profile.value = "yours";
      reconfigure({ profile: "yours", leaves, data: summary });
    };
    yoursBox = latencyInput({
      prefix,
      onSource: (source, what) => readSource(source, what),
      onExample: async () => {
        // The example's text is the first step of its read: a newer read supersedes it too.
        const read = nextRead();
        const answer = await yours.example(read.signal);
        if (read.token !== reading || signal?.aborted) return;
        if (answer.error !== undefined) {
          yoursBox?.say(`The example could not be read: ${plain(answer.error)}.`, true);
          return;
        }
        yoursBox.area.value = answer.result;
        readSource(answer.result, "the example", {}, read);
      },
    });
    yoursHolder.classList.add("tail-your-data");
    yoursHolder.append(yoursBox.element, yoursBox.status);
    if (leaves) {
      yoursBox.area.value = String(settings.data ?? "")
        .split(",")
        .join("\n");
      yoursBox.say(
        `From the link: a summary of someone's latencies (${settings.data}). Every leaf draws from a fit through it.`,
      );
    }
  }
  /** Shows the paste box while the picker is on "your data". */
  function showYours(on) {
    if (yoursHolder) /** @type {HTMLElement} */ (yoursHolder).hidden = !on;
  }
  showYours(settings.profile === "yours");

  // ---- readouts
  const readout = {};
  /** The small line under a readout that says what its number means (`data-note`). */
  const note = {};
  if (readouts) {
    // [name, label, class, has a note]
    for (const [name, label, cls, noted] of [
      ["leaf-p50", "leaf p50", "leaf", false],
      ["leaf-p99", "leaf p99", "leaf", false],
      ["parent-p50", "parent p50", "parent", false],
      ["parent-p99", "parent p99", "parent", false],
      ["ratio", "parent p99 ÷ leaf p99", "", false],
      ["requests", "requests simulated", "", false],
      ["parent-p50-leaf-rank", "parent p50 is the leaf's", "parent", true],
      ["parent-p99-leaf-rank", "parent p99 is the leaf's", "parent", true],
      ["dropped-share", "leaves dropped", "", true],
      ["hedge-extra-requests", "hedge: extra requests", "", true],
      ["hedge-extra-work", "hedge: extra work", "", true],
    ]) {
      const v = el("span", { "data-readout": name, text: "—" });
      const cell = el("div", {}, el("span", { class: `k ${cls}`, text: label }), v);
      if (noted) {
        note[name] = el("span", { class: "t", "data-note": name });
        cell.append(note[name]);
      }
      readouts.append(cell);
      readout[name] = v;
    }
  }
  const setText = (name, text) => {
    const r = readout[name];
    if (r && r.textContent !== text) r.textContent = text;
  };
  const setNote = (name, text) => {
    const r = note[name];
    if (r && r.textContent !== text) r.textContent = text;
  };

  function refreshCurves() {
    state.curves = {
      p50: Array.from(life.run.fanoutCurve(0.5, STRIP_MAX_FANOUT)),
      p99: Array.from(life.run.fanoutCurve(0.99, STRIP_MAX_FANOUT)),
      leafP50: life.run.leafQuantile(0.5),
      leafP99: life.run.leafQuantile(0.99),
      crossoverN: api.crossover(0.5, 0.99),
    };
    // The run's own settings (not the controls', which may be ahead of a run being prepared).
    const { fanout, fix } = life.run.config;
    state.facts = {
      fanout,
      fixLabel: api.mitigations().find((m) => m.name === fix)?.label ?? fix,
      p50Rank: formatPercentileRank(api.parentLevel(0.5, fanout)),
      p99Rank: formatPercentileRank(api.parentLevel(0.99, fanout)),
      dropped: api.droppedLeaves(fix, fanout),
      hedgeDelayMs: life.run.hedgeDelayMs,
    };
    showFacts();
  }

  /** The readouts and the caption that change only with the settings. */
  function showFacts() {
    const f = state.facts;
    setText("parent-p50-leaf-rank", f.p50Rank);
    setText("parent-p99-leaf-rank", f.p99Rank);
    setNote("parent-p50-leaf-rank", `percentile, at n = ${f.fanout}`);
    setNote("parent-p99-leaf-rank", `percentile, at n = ${f.fanout}`);
    const d = f.dropped;
    if (d.firstFanout === null) {
      setText("dropped-share", "—");
      setNote("dropped-share", "this fix waits for every leaf");
    } else {
      setText("dropped-share", formatPct(d.share, 1));
      setNote(
        "dropped-share",
        d.leaves === 0
          ? `0 of ${f.fanout} leaves: “${f.fixLabel}” drops nothing below n = ${d.firstFanout}`
          : `${d.leaves} of ${f.fanout} leaves, slow or not`,
      );
    }
    if (stripCaption) {
      stripCaption.textContent = `At n = ${f.fanout} the parent's median is the leaf's ${f.p50Rank} percentile and its p99 the leaf's ${f.p99Rank}.`;
    }
  }

  /** What the hedge has cost so far, from the run's tallies; "—" without a hedge or requests. */
  function showHedgeCost() {
    const delay = state.facts.hedgeDelayMs;
    if (delay === null) {
      for (const name of ["hedge-extra-requests", "hedge-extra-work"]) {
        setText(name, "—");
        setNote(name, "no hedge");
      }
      return;
    }
    const ran = life.run.requests > 0;
    const cost = ran ? life.run.hedgeCost() : null;
    setText("hedge-extra-requests", ran ? formatPct(cost.extraRequests, 2) : "—");
    setNote("hedge-extra-requests", `of leaf calls sent a backup, after ${formatMs(delay)}`);
    setText("hedge-extra-work", ran ? formatPct(cost.extraWork, 2) : "—");
    setNote("hedge-extra-work", "backup work ÷ primary work");
  }

  function show(k, now) {
    // Live play goes on past the last request a link can name, so it wraps to #0 there.
    k = ((k % MAX_REQUESTS) + MAX_REQUESTS) % MAX_REQUESTS;
    state.shown = k;
    // The request on screen goes into the link (`request`), so a reload shows the same one.
    if (settings.request !== k) {
      settings.request = k;
      onChange({ ...settings });
    }
    state.request = life.run.requestAt(k);
    state.since = now;
    state.dirty = true;
    stale.arena = true;
    stale.histograms = true;
    const r = state.request;
    if (canvases.arena) {
      Object.assign(canvases.arena.dataset, {
        request: String(k),
        parentMs: r.parentMs.toFixed(6),
        waitedOn: String(r.waitedOn),
        firstLeaves: Array.from(r.leaves.originalMs.slice(0, 8), (v) => v.toFixed(6)).join(","),
      });
    }
    const hedged = r.leaves.hedged.reduce((a, b) => a + b, 0);
    const dropped = r.leaves.dropped.reduce((a, b) => a + b, 0);
    const extras = [hedged ? `${hedged} hedged` : "", dropped ? `${dropped} dropped` : ""]
      .filter(Boolean)
      .join(", ");
    const text =
      `Request #${k}: ${r.leaves.resolvedMs.length} leaves; the parent answered at ${formatMs(r.parentMs)}, ` +
      `waiting on leaf ${r.waitedOn}${extras ? ` (${extras})` : ""}.`;
    if (caption) caption.textContent = text;
    canvases.arena?.setAttribute("aria-label", `One request on a log-millisecond axis. ${text}`);
  }

  // ---- the counter: of the run's requests 0, 1, 2, … (the ones the arena shows, one at a time,
  // and the ones after), how many met a leaf slower than the leaf's p99 (the core's measured
  // quantile), beside the closed form 1 − 0.99ⁿ at the same n. It counts COUNT_BATCH requests a
  // frame up to COUNT_MAX, and starts again when the run does (new settings, or reset).
  const tally = { counted: 0, slow: 0 };
  const counting = () => counter !== null && state.curves !== null && tally.counted < COUNT_MAX;
  function restartCount() {
    Object.assign(tally, { counted: 0, slow: 0 });
  }
  function countMore() {
    if (!counting()) return;
    const p99 = state.curves.leafP99;
    const end = Math.min(COUNT_MAX, tally.counted + COUNT_BATCH);
    for (let k = tally.counted; k < end; k++) {
      if (life.run.requestAt(k).leaves.originalMs.some((ms) => ms > p99)) tally.slow += 1;
    }
    tally.counted = end;
    showCount();
  }
  function showCount() {
    if (!counter) return;
    const n = state.facts.fanout;
    const theory = api.slowShare(0.01, n);
    const share = tally.counted > 0 ? tally.slow / tally.counted : null;
    Object.assign(counter.dataset, {
      counted: String(tally.counted),
      slow: String(tally.slow),
      theory: String(theory),
    });
    counter.replaceChildren(
      el("strong", { "data-count": "", text: share === null ? "—" : formatPct(share, 1) }),
      ` of the first ${formatCount(tally.counted)} requests met a leaf slower than the leaf's p99 (${formatMs(state.curves.leafP99)}); at n = ${n} the formula 1 − 0.99`,
      el("sup", { text: "n" }),
      " gives ",
      el("strong", { text: formatPct(theory, 1) }),
      ".",
    );
  }

  function changed() {
    invalidate();
    onChange({ ...settings });
    wake();
  }

  /**
   * Applies new settings (see the run's reconfigure): a new profile or seed is prepared over
   * several tasks while the old run stays on screen (`data-preparing`), then drawn.
   */
  async function reconfigure(options) {
    const { leaves: _leaves, data, ...rest } = options;
    Object.assign(settings, rest);
    if (data !== undefined) settings.data = data;
    const applied = life.reconfigure(
      "leaves" in options ? { ...rest, leaves: options.leaves } : rest,
    );
    unsettle();
    const recalibrating = life.preparing;
    if (recalibrating) root.dataset.preparing = "true";
    if (!(await applied)) return;
    if (recalibrating) root.dataset.preparing = "false";
    state.announced = 0;
    restartCount();
    refreshCurves();
    show(state.shown, performance.now());
    unsettle();
    changed();
  }

  function marks() {
    return {
      leafP50: life.run.leafPercentile(0.5),
      leafP99: life.run.leafPercentile(0.99),
      parentP50: life.run.parentPercentile(0.5),
      parentP99: life.run.parentPercentile(0.99),
    };
  }

  function updateReadouts(m) {
    // The exact numbers behind the four percentile readouts, for tests and tools (`data-ms`).
    for (const [name, v] of [
      ["leaf-p50", m.leafP50],
      ["leaf-p99", m.leafP99],
      ["parent-p50", m.parentP50],
      ["parent-p99", m.parentP99],
    ]) {
      const r = readout[name];
      const text = v === null || v === undefined ? "" : String(v);
      if (r && r.dataset.ms !== text) r.dataset.ms = text;
    }
    setText("leaf-p50", formatMs(m.leafP50));
    setText("leaf-p99", formatMs(m.leafP99));
    setText("parent-p50", formatMs(m.parentP50));
    setText("parent-p99", formatMs(m.parentP99));
    const ratio = m.parentP99 / m.leafP99;
    setText("ratio", Number.isFinite(ratio) ? `${ratio.toFixed(1)}×` : "—");
    setText("requests", formatCount(life.run.requests));
    showHedgeCost();
    canvases.histograms?.setAttribute(
      "aria-label",
      `Leaf and parent latency histograms over ${formatCount(life.run.requests)} requests: leaf p50 ${formatMs(m.leafP50)}, leaf p99 ${formatMs(m.leafP99)}, parent p50 ${formatMs(m.parentP50)}, parent p99 ${formatMs(m.parentP99)}.`,
    );
    // Announce politely, and rarely: once a change has 100,000 requests behind it, and when settled.
    const milestone =
      life.run.requests >= settings.requests ? 2 : life.run.requests >= 100_000 ? 1 : 0;
    // (Only where the numbers it reads are shown: a lone arena, such as the Lab's header, is quiet.)
    if (milestone > state.announced && (readouts || canvases.histograms)) {
      state.announced = milestone;
      live.textContent = `After ${formatCount(life.run.requests)} requests: leaf p99 ${formatMs(m.leafP99)}, parent p99 ${formatMs(m.parentP99)}.`;
    }
  }

  function unsettle() {
    root.dataset.settled = "false";
    if (canvases.histograms) delete canvases.histograms.dataset.digest;
  }

  function settleIfDone() {
    // Settled means nothing more to compute, the first screen's counter included.
    if (counting()) return;
    const digest = life.settle();
    if (digest === null) return;
    root.dataset.settled = "true";
    // A digest of both histograms' bits, for tests that compare runs (e.g. 1, 2 or 4 workers).
    if (canvases.histograms) canvases.histograms.dataset.digest = digest;
  }

  /** The sweep position (ms) in slow motion, or null to show the whole request. */
  function sweepAt(now) {
    const speed = SPEEDS[settings.speed];
    const elapsed = now - state.since;
    if (speed.sweepMs === undefined) {
      if (speed.holdMs !== undefined && elapsed > speed.holdMs) show(state.shown + 1, now);
      return null;
    }
    const end = state.request.parentMs * 1.4;
    const f = elapsed / speed.sweepMs;
    if (f >= 1) {
      if (elapsed > speed.sweepMs + speed.holdMs) show(state.shown + 1, now);
      return null;
    }
    return Math.exp(f * Math.log(end));
  }

  function draw(sweep) {
    const m = marks();
    updateReadouts(m);
    if (canvases.arena && onScreen.arena && (stale.arena || sweep !== null)) {
      drawArena(canvases.arena, state.request, sweep);
      // A sweep's last frame leaves its line drawn: the frame after it redraws the request.
      stale.arena = sweep !== null;
    }
    // While requests accumulate, the histograms redraw ten times a second, not every frame:
    // the piles grow smoothly either way, and every redraw is raster work that competes with
    // the workers for the cores. The last count is always drawn.
    const now = performance.now();
    const grown =
      life.run.requests !== state.histRequests &&
      (now - state.histAt >= HISTOGRAM_REDRAW_MS || life.run.requests >= settings.requests);
    if (
      canvases.histograms &&
      onScreen.histograms &&
      root.dataset.ready &&
      (stale.histograms || grown)
    ) {
      stale.histograms = false;
      state.histAt = now;
      state.histRequests = life.run.requests;
      drawHistograms(canvases.histograms, {
        edges,
        // Views over wasm memory: fetched fresh for every draw, never kept across calls.
        leafBins: life.run.leafBins(),
        parentBins: life.run.parentBins(),
        marks: m,
        // The red line is the arena's request: left out when the arena is not shown.
        waitMs:
          canvases.arena && (sweep === null || sweep >= state.request.parentMs)
            ? state.request.parentMs
            : NaN,
      });
    }
    if (canvases.strip && onScreen.strip && stale.strip) {
      stale.strip = false;
      drawStrip(canvases.strip, { ...state.curves, fanout: settings.fanout });
    }
    if (canvases.strip && state.curves) {
      canvases.strip.setAttribute(
        "aria-label",
        `Parent percentiles against fan-out 1 to ${STRIP_MAX_FANOUT}: at n = ${settings.fanout} the parent median is ${formatMs(state.curves.p50[settings.fanout - 1])} and p99 ${formatMs(state.curves.p99[settings.fanout - 1])}; the parent median reaches the leaf p99 (${formatMs(state.curves.leafP99)}) at n = ${state.curves.crossoverN}.`,
      );
    }
  }

  const moving = () => settings.speed !== "paused";
  const unregister = register({
    element: root,
    hasWork: () => life.hasWork,
    want(now) {
      if (state.dirty || life.hasWork || counting()) return true;
      if (!moving()) return null;
      const speed = SPEEDS[settings.speed];
      const sweepEnd = state.since + (speed.sweepMs ?? 0);
      // While sweeping, and for a moment after (one frame without the sweep line), draw.
      if (speed.sweepMs !== undefined && now < sweepEnd + 50) return true;
      // Then nothing moves until the next request is due.
      const due = sweepEnd + speed.holdMs;
      return now >= due ? true : due;
    },
    frame(now, budget) {
      // The first frame only shows the first request: accumulating and the histograms wait a
      // frame, so start-up spreads the first canvas and text work over two tasks.
      const first = !root.dataset.ready;
      // The budget starts now, not at the frame's timestamp: panels that share a frame each get
      // their own slice (measured from the timestamp, the first would use everyone's).
      if (!first) {
        life.accumulate(performance.now(), budget);
        countMore();
        settleIfDone();
      }
      const sweep = moving() ? sweepAt(now) : null;
      draw(sweep);
      state.dirty = false;
      if (!root.dataset.ready) {
        performance.mark("first-live-frame");
        root.dataset.ready = "true";
      }
    },
  });
  const charts = new IntersectionObserver((entries) => {
    for (const e of entries) {
      const name = /** @type {HTMLElement} */ (e.target).dataset.chart;
      onScreen[name] = e.isIntersecting;
      if (e.isIntersecting) {
        stale[name] = true;
        state.dirty = true;
      }
    }
    wake();
  });
  for (const [name, canvas] of Object.entries(canvases)) {
    canvas.dataset.chart = name;
    charts.observe(canvas);
  }
  onThemeChange(() => {
    invalidate();
    wake();
  }, signal);
  const resized = new ResizeObserver(() => {
    invalidate();
    wake();
  });
  resized.observe(root);
  // Unmounted: nothing of the piece is left running or allocated (its wasm run is freed; the
  // workers drop its blocks as they come back; a calibration under way stops at its next step).
  signal?.addEventListener(
    "abort",
    () => {
      unregister();
      charts.disconnect();
      resized.disconnect();
      life.close();
    },
    { once: true },
  );

  // The charts answer the pointer and the keyboard (draw.js's touchTail, web/touch.js).
  touchTail(canvases, {
    request: () => state.request,
    bins: () => ({ edges, leaf: life.run.leafBins(), parent: life.run.parentBins() }),
    curves: () => state.curves,
    fanout: inputs.fanout,
    redraw: () => {
      invalidate();
      wake();
    },
  });

  refreshCurves();
  show(settings.request ?? 0, performance.now());
  showCount();
  onChange({ ...settings });

  return {
    /**
     * Applies settings changed from outside (already checked, see tailParams), as if the reader
     * had moved the controls; settings that did not change are left alone.
     */
    set(values) {
      /** @type {Record<string, any>} */
      const options = {};
      for (const name of ["fanout", "profile", "fix", "seed"]) {
        if (name in values && values[name] !== settings[name]) options[name] = values[name];
      }
      const shown = { ...options };
      if ("speed" in values && values.speed !== settings.speed) {
        settings.speed = shown.speed = values.speed;
        state.since = performance.now();
      }
      const recount = "requests" in values && values.requests !== settings.requests;
      if (recount) settings.requests = values.requests;
      if ("request" in values && values.request !== state.shown) {
        show(values.request, performance.now());
      }
      showInControls(shown);
      if (Object.keys(options).length > 0) {
        // Starts the run again from request 0, with the new cap.
        reconfigure(recount ? { ...options, requests: settings.requests } : options);
      } else if (recount) {
        // A new cap: the run starts again, so it stops at exactly that many requests.
        life.reset(settings.requests);
        state.announced = 0;
        unsettle();
        show(state.shown, performance.now());
        changed();
      } else {
        changed();
      }
    },
    /** The numbers a part draws, for CSV export: `{ header, rows }`. */
    table(name) {
      if (name === "strip") {
        return {
          header: ["fanout", "parent_p50_ms", "parent_p99_ms", "leaf_p50_ms", "leaf_p99_ms"],
          rows: state.curves.p50.map((v, i) => [
            i + 1,
            v,
            state.curves.p99[i],
            state.curves.leafP50,
            state.curves.leafP99,
          ]),
        };
      }
      if (name === "arena") {
        const l = state.request.leaves;
        return {
          header: [
            "leaf",
            "original_ms",
            "resolved_ms",
            "retry_ms",
            "hedged",
            "dropped",
            "waited_on",
          ],
          rows: Array.from(l.resolvedMs, (v, i) => [
            i,
            l.originalMs[i],
            v,
            l.hedged[i] ? l.retryMs[i] : "",
            l.hedged[i],
            l.dropped[i],
            i === state.request.waitedOn ? 1 : 0,
          ]),
        };
      }
      const leaf = life.run.leafBins(),
        parent = life.run.parentBins();
      return {
        header: ["bin_lower_ms", "bin_upper_ms", "leaf_count", "parent_count"],
        rows: Array.from(leaf, (c, b) => [edges[b], edges[b + 1], c, parent[b]]).filter(
          (r) => r[2] || r[3],
        ),
      };
    },
    /** Draws part `name` onto `canvas` (a real one or svg.js's stand-in). */
    drawOnto(name, canvas) {
      if (name === "arena") drawArena(canvas, state.request, null);
      if (name === "histograms")
        drawHistograms(canvas, {
          edges,
          leafBins: life.run.leafBins(),
          parentBins: life.run.parentBins(),
          marks: marks(),
          waitMs: canvases.arena ? state.request.parentMs : NaN,
        });
      if (name === "strip") drawStrip(canvas, { ...state.curves, fanout: settings.fanout });
    },
    canvases,
    settings: () => ({ ...settings, requests: life.run.requests }),
  };
}
