// The implementation of <tail-lab-panel>, loaded by embed.js (the one script a host page
// includes, a small bootstrap that defines the element and shows a readable message in it when
// this module cannot be loaded). Any Lab or Tail panel in someone else's page, with one element.
// Attributes are the panel's settings, named like the Lab's URL parameters:
//
//   <script src="https://…/embed.js" defer></script>
//   <tail-lab-panel kind="histograms" fanout="100" profile="gc-pause"></tail-lab-panel>
//
// kind: "tail" (the whole Tail piece with its controls), "arena", "histograms", "strip" (one of
// its charts), or a Lab section by its name in lab/sections.js ("fanout", "hedge", …). Every panel on a
// page shares one wasm instance and one frame scheduler; each sits in its own shadow root, so
// the host page's styles and ids never collide with it. `seed` (0 to 2^64 − 1, default 1) is
// either kind's: the Tail piece's seed, or the seed of a Lab section's runs. `theme` ("auto",
// the default, follows the reader's system; "light" or "dark" fixes it, for a host page whose
// own colours differ from the system's).
//
// What a host page can rely on:
// - only the panel's own settings are read (`kind`, `theme` and that kind's parameters), each
//   checked as a URL parameter is (clamped or dropped, with a notice); no outside text becomes
//   markup, an attribute name or code;
// - a setting changed after the panel is on the page (`setAttribute("fanout", "1")`) is applied,
//   and a new `kind` mounts the new panel;
// - a removed panel releases everything: its frame task, observers, workers' jobs and wasm
//   objects (the page's live wasm heap goes back to what it was); added again, it mounts again;
// - panels mount one after another, a task at a time, so thirty panels start without a long task;
// - the panel sizes from its own box and font (container queries, a font set inside its shadow
//   root), on an opaque surface of its own, whatever the host's CSS.
//
// `panel.source = (name) => string | null` (set before the element is added) makes the panel read
// its settings from there instead of its attributes: panel.html passes its URL query this way.

import { exportBar } from "./export.js";
import { quoted, readParams } from "./params.js";
import { closedForms } from "./lab/api.js";
import { SECTIONS, loadSections, sectionNamed } from "./lab/sections.js";
import { LabSeed, LabService, SEED_PARAM, applyValues, settingsOf } from "./lab/section.js";
import { SimClient } from "./lab/sim.js";
import { nextTask } from "./scheduler.js";
import { TAIL_SETTING_NAMES, mountTail, tailParams } from "./tail/piece.js";
import { themeChanged } from "./theme.js";
import { fetchWithin, loadCore } from "./wasm.js";

const TAIL_PARTS = {
  tail: ["controls", "readouts", "arena", "histograms", "strip"],
  arena: ["arena"],
  histograms: ["readouts", "histograms"],
  strip: ["strip"],
};
const TITLES = {
  arena: "One request",
  histograms: "Leaf and parent histograms",
  strip: "Parent percentiles against fan-out",
};
/** The Tail kinds' human titles (a Lab section's is its prose heading: `panelTitle`). */
const TAIL_TITLES = { ...TITLES, tail: "Tail: one request, live" };
/** `theme`: "auto" follows the reader's system, "light" and "dark" fix the panel's colours. */
export const THEME_PARAM = Object.freeze({
  name: "theme",
  type: "enum",
  values: ["auto", "light", "dark"],
  default: "auto",
});
const KINDS = [...Object.keys(TAIL_PARTS), ...SECTIONS];
const STYLE = new URL("./style.css", import.meta.url);
const HOME = new URL("./", import.meta.url);
let count = 0;
const labelsInUse = new Set();

/** A landmark label no other panel on the page has ("…", then "… (2)"); `release` frees it. */
function uniqueLabel(label) {
  let n = 1;
  while (labelsInUse.has(n === 1 ? label : `${label} (${n})`)) n++;
  const unique = n === 1 ? label : `${label} (${n})`;
  labelsInUse.add(unique);
  return { label: unique, release: () => labelsInUse.delete(unique) };
}

/**
 * The attributes a panel watches: `kind` and every setting any kind reads. The Lab sections'
 * names join when their modules have loaded, which a panel awaits before it reads a setting.
 */
const WATCHED = new Set(["kind", THEME_PARAM.name, ...TAIL_SETTING_NAMES, SEED_PARAM.name]);
/** The Lab's sections (their modules), in lab/sections.js's order. */
const labSections = () =>
  loadSections().then((sections) => {
    for (const s of sections) for (const p of s.params ?? []) WATCHED.add(p.name);
    return sections;
  });

/** The iframe URL that shows the same panel with the same settings. */
export function panelUrl(kind, settings) {
  const url = new URL("./panel.html", import.meta.url);
  url.searchParams.set("kind", kind);
  for (const [k, v] of Object.entries(settings))
    if (k !== "requests") url.searchParams.set(k, String(v));
  return url.href;
}

/**
 * A Lab section's heading, the text of its prose.html's <h2> (our own file), or null (also when
 * the file has not answered within `LOAD_TIMEOUT_MS`).
 */
async function sectionHeading(section) {
  try {
    const response = await fetchWithin(new URL(section.prose));
    if (!response.ok) return null;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const text = doc.querySelector("h2")?.textContent.replace(/\s+/g, " ").trim();
    return text || null;
  } catch {
    return null;
  }
}

/**
 * The human title of a panel of `kind` ("One request", "Hedged requests on idle replicas"): a
 * Tail part's from its map, a Lab section's from its prose heading; null for no known kind.
 * Never text from the URL or an attribute.
 * @param {string} kind
 * @returns {Promise<string | null>}
 */
export async function panelTitle(kind) {
  if (Object.hasOwn(TAIL_TITLES, kind)) return TAIL_TITLES[kind];
  const section = sectionNamed(await loadSections(), kind);
  if (!section) return null;
  return (await sectionHeading(section)) ?? `The Lab's section “${section.name}”`;
}

/** Panels mount one at a time, each starting in a task of its own (see `mount`). */
let queue = Promise.resolve();
function inTurn(job) {
  const turn = queue.then(job);
  queue = turn.catch(() => {}).then(nextTask);
  return turn;
}

const aborted = (e) => e?.name === "AbortError";

/** Puts `theme` ("auto", "light" or "dark") on the panel's root, which the stylesheet reads. */
function applyTheme(root, theme) {
  if (root.dataset.theme === theme) return;
  root.dataset.theme = theme;
}

/**
 * Reads `specs` and `theme` through `get` into `notice`, and returns the values with an
 * `update()` that reads them again (an attribute changed) and hands what changed to
 * `apply(changed)`; a new theme goes on `root` and every chart redraws in its colours.
 */
function watchSettings(root, specs, get, notice, apply) {
  const all = [...specs, THEME_PARAM];
  let { values, notices } = readParams(all, get);
  notice.textContent = notices.join("; ");
  applyTheme(root, values.theme);
  const update = () => {
    const next = readParams(all, get);
    notice.textContent = next.notices.join("; ");
    const { theme, ...changed } = Object.fromEntries(
      Object.entries(next.values).filter(([k, v]) => v !== values[k]),
    );
    values = next.values;
    if (theme !== undefined) {
      applyTheme(root, theme);
      themeChanged();
    }
    if (Object.keys(changed).length > 0) apply(changed);
  };
  return { values, theme: () => values.theme, update };
}

/**
 * The panel as the type check sees `source`, a property the page sets (panel.html), not one the
 * element declares.
 * @param {HTMLElement} panel
 * @returns {HTMLElement & { source?: (name: string) => string | null }}
 */
const sourced = (panel) => panel;

/** Each element's controller (embed.js's element hands its callbacks to `connect`/`disconnect`). */
const controllers = new WeakMap();

/** The element `host` is on the page (embed.js calls this once this module has loaded). */
export function connect(host) {
  let c = controllers.get(host);
  if (!c) {
    c = new PanelController(host);
    controllers.set(host, c);
  }
  if (host.isConnected) c.connected();
}

/** The element `host` left the page. */
export function disconnect(host) {
  controllers.get(host)?.disconnected();
}

class PanelController {
  /** @param {HTMLElement} host */
  constructor(host) {
    this.host = host;
    // Attributes are watched with an observer rather than `observedAttributes`, which must be
    // known when the element is defined, before the sections' modules (and their settings'
    // names) have loaded. On a host page that deleted or broke MutationObserver, the panel
    // still mounts: its attributes are then read once, when it mounts, and later changes wait
    // for the element to be added again.
    try {
      new MutationObserver((records) => {
        const before = new Map();
        for (const r of records)
          if (!before.has(r.attributeName)) before.set(r.attributeName, r.oldValue);
        for (const [name, was] of before) this.attributeChanged(name, was, host.getAttribute(name));
      }).observe(host, { attributes: true, attributeOldValue: true });
    } catch {
      // (No observer: read once, as above.)
    }
    /** The mounted panel: `{ controller, pending, release, update }`, or null. Until it is
     * built, `update` only notes that an attribute changed (`pending`). */
    this.live = null;
  }

  /** A setting as the page gave it: from `source` when set, else the attribute. */
  setting(name) {
    const panel = sourced(this.host);
    return typeof panel.source === "function" ? panel.source(name) : this.host.getAttribute(name);
  }

  connected() {
    if (!this.live) this.start();
  }

  disconnected() {
    // A move (removed and added back in one task) keeps the panel as it is.
    queueMicrotask(() => {
      if (!this.host.isConnected) this.stop();
    });
  }

  attributeChanged(name, before, after) {
    if (
      !this.live ||
      before === after ||
      !WATCHED.has(name) ||
      typeof sourced(this.host).source === "function"
    )
      return;
    if (name === "kind") {
      this.stop();
      if (this.host.isConnected) this.start();
    } else {
      this.live.update();
    }
  }

  /** Builds the panel in a fresh shadow root (mounting waits its turn). */
  start() {
    const host = this.host;
    const shadow = host.shadowRoot ?? host.attachShadow({ mode: "open" });
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = STYLE.href;
    const root = document.createElement("div");
    root.className = "embed";
    root.setAttribute("role", "region");
    root.setAttribute("aria-busy", "true");
    // A visible box from the start: a line that the mount replaces.
    const loading = document.createElement("p");
    loading.className = "embed-loading";
    loading.textContent = "Tail Latency Lab: loading…";
    root.append(loading);
    // The theme is read now, so the surface has its colours while the panel waits its turn (set
    // before the root is in the shadow tree: the mount's own work starts in its turn).
    applyTheme(root, readParams([THEME_PARAM], (n) => this.setting(n)).values.theme);
    shadow.replaceChildren(link, root);
    const controller = new AbortController();
    const live = {
      controller,
      pending: false,
      release: () => {},
      update: () => {
        live.pending = true;
      },
    };
    this.live = live;
    delete host.dataset.ready;
    inTurn(() => this.mount(root, live)).catch((e) => {
      if (aborted(e) || controller.signal.aborted) return;
      const message = document.createElement("p");
      message.className = "embed-failed";
      message.setAttribute("role", "alert");
      message.textContent = `Tail Latency Lab could not start: ${e.message}`;
      root.removeAttribute("aria-busy");
      root.replaceChildren(message);
    });
  }

  /** Unmounts: everything the panel holds is released. */
  stop() {
    const live = this.live;
    if (!live) return;
    this.live = null;
    live.controller.abort();
    live.release();
    this.host.shadowRoot?.replaceChildren();
    delete this.host.dataset.ready;
  }

  async mount(root, live) {
    const { signal } = live.controller;
    signal.throwIfAborted();
    const [api, sections] = await Promise.all([loadCore(), labSections()]);
    signal.throwIfAborted();
    const raw = this.setting("kind");
    const kind = raw === null ? "histograms" : String(raw).trim();
    const title = await panelTitle(kind);
    signal.throwIfAborted();
    const prefix = `tlp${++count}-`;
    const get = (name) => this.setting(name);
    const notice = document.createElement("p");
    notice.className = "embed-notice";
    notice.setAttribute("role", "status");
    const credit = document.createElement("p");
    credit.className = "embed-credit";
    const home = document.createElement("a");
    home.href = HOME.href;
    home.target = "_blank";
    home.rel = "noopener";
    home.textContent = "Tail Latency Lab";
    credit.append(home, ": simulated live in this page");
    let settings = {};
    let settled;
    /** The panel's theme, as the link carries it when it is not "auto". */
    let theme = () => THEME_PARAM.default;
    const link = () =>
      panelUrl(kind, theme() === THEME_PARAM.default ? settings : { ...settings, theme: theme() });
    root.querySelector(".embed-loading")?.remove();
    root.removeAttribute("aria-busy");
    // Own keys only: "__proto__" or "toString" is an unknown kind like any other.
    if (Object.hasOwn(TAIL_PARTS, kind)) {
      const label = uniqueLabel(`Tail Latency Lab: ${title}`);
      live.release = label.release;
      root.setAttribute("aria-label", label.label);
      let piece;
      const watched = watchSettings(root, tailParams(api), get, notice, (changed) =>
        piece.set(changed),
      );
      const { values, update } = watched;
      theme = watched.theme;
      root.append(notice);
      piece = await mountTail(root, {
        api,
        values,
        parts: TAIL_PARTS[kind],
        prefix,
        signal,
        onChange: (s) => {
          settings = s;
        },
      });
      signal.throwIfAborted();
      for (const [name, canvas] of Object.entries(piece.canvases)) {
        exportBar(canvas.closest("figure"), {
          name: `tail-${name}`,
          title: TITLES[name],
          canvas,
          link,
          draw: (target) => piece.drawOnto(name, target),
          table: () => piece.table(name),
          meta: () => piece.settings(),
        });
      }
      settled = update;
    } else if (sectionNamed(sections, kind)) {
      const section = sectionNamed(sections, kind);
      const facade = closedForms(api);
      const label = uniqueLabel(`Tail Latency Lab: ${title}`);
      const client = new SimClient({
        // The Lab's simulations run only in Web Workers: with none, the panel says so.
        onTrouble: (message) => {
          notice.textContent = `This panel's simulations run in Web Workers, and none is running here: ${message}.`;
        },
        root: this.host,
      });
      live.release = () => {
        label.release();
        client.close();
      };
      root.setAttribute("aria-label", label.label);
      root.dataset.section = kind;
      const specs = settingsOf(section.params, facade);
      // The panel's own seed (attribute `seed`, as the Lab page's URL parameter): a new one re-runs it.
      let seed;
      const watched = watchSettings(
        root,
        [...specs, SEED_PARAM],
        get,
        notice,
        ({ [SEED_PARAM.name]: newSeed, ...changed }) => {
          applyValues(root, prefix, specs, changed);
          if (newSeed !== undefined) seed.set(newSeed);
        },
      );
      const { values, update } = watched;
      theme = watched.theme;
      seed = new LabSeed(values[SEED_PARAM.name]);
      settings = { [SEED_PARAM.name]: seed.value };
      seed.watch((value) => {
        settings = { ...settings, [SEED_PARAM.name]: value };
      }, signal);
      root.append(notice);
      section.mount(root, {
        client,
        api: facade,
        values,
        prefix,
        link,
        seed,
        service: new LabService(),
        signal,
        onChange: (s) => {
          settings = { ...settings, ...s };
        },
      });
      settled = update;
    } else {
      throw new Error(`kind must be one of ${KINDS.join(", ")} (got “${quoted(kind)}”)`);
    }
    root.append(credit);
    // From now on a changed attribute is read again and applied; one changed while the panel
    // was being built is applied now.
    live.update = settled;
    if (live.pending) settled();
    this.host.dataset.ready = "true";
  }
}
