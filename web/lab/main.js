// The Lab page: builds one `<section data-section>` for each section of lab/sections.js, in its
// order and numbered by it, with the section's prose (its folder's prose.html), then mounts the
// section into it. A section gets its root, its settings from the page's URL, the core's closed
// forms (lab/api.js) and a simulation client of its own; it builds its controls, chart and
// readouts inside that root and nothing outside it. Every change goes back into the URL, so a
// link reproduces the view.
//
// One seed runs every section: the field at the top of the page (`#seed`, the URL's `seed`,
// default 1), checked as the Tail's seed is. A new seed re-runs every section.

import { el } from "../dom.js";
import { sectionLink } from "../export.js";
import { showNotice } from "../notice.js";
import { fromUrl, parseSeed, quoted, readParams, writeUrl } from "../params.js";
import { nextTask } from "../scheduler.js";
import { mountTail, tailParams } from "../tail/piece.js";
import { loadCore } from "../wasm.js";
import { followClaims } from "../claims.js";
import { closedForms } from "./api.js";
import { LabSeed, LabService, SEED_PARAM, settingsOf } from "./section.js";
import { loadSections } from "./sections.js";
import { SimClient, releaseUnusedWorkers, warmWorkers } from "./sim.js";

/** A section's nodes from its prose.html, our own file (never text from a URL or a reader). */
async function prose(section) {
  try {
    const response = await fetch(section.prose);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const nodes = [...doc.body.childNodes].filter(
      (n) => n.nodeType === Node.ELEMENT_NODE || n.nodeType === Node.TEXT_NODE,
    );
    if (nodes.some((n) => n.nodeName === "H2")) return nodes;
  } catch {
    // The section still works without its text.
  }
  return [el("h2", { text: section.name })];
}

/** The section's element: its numbered heading and its text, as on the page before it mounts. */
async function sectionElement(section) {
  const id = `${section.name}-title`;
  const root = el("section", {
    id: section.name,
    "data-section": section.name,
    "aria-labelledby": id,
  });
  root.append(...(await prose(section)));
  const heading = root.querySelector("h2");
  heading.id = id;
  heading.prepend(el("span", { class: "num", text: String(section.number) }), " ");
  return root;
}

/**
 * Wires the page's seed field (`#seed`, in index.html's header) to `seed`: a whole number from 0
 * to 2^64 − 1 is applied when the reader commits it (Enter or leaving the field); anything else
 * is refused in plain words beside the field, with `aria-invalid`, and the seed stays as it was.
 * The footer's `[data-lab-seed]` shows the seed in use.
 * @param {LabSeed} seed
 */
function seedField(seed) {
  const input = /** @type {HTMLInputElement | null} */ (document.getElementById("seed"));
  const error = document.getElementById("seed-error");
  const shown = () => {
    for (const e of document.querySelectorAll("[data-lab-seed]"))
      e.textContent = String(seed.value);
  };
  shown();
  seed.watch(shown);
  if (!input || !error) return;
  input.value = String(seed.value);
  input.disabled = false;
  input.addEventListener("change", () => {
    const text = input.value.trim();
    const [value, why] = parseSeed(text);
    input.setAttribute("aria-invalid", String(why !== null));
    if (why !== null) {
      error.textContent = `seed must be a whole number from 0 to 18446744073709551615; you typed “${quoted(text)}”`;
      return;
    }
    error.textContent = "";
    input.value = String(value);
    seed.set(value);
  });
}

/**
 * The section's prose numbers that follow its controls (web/claims.js's `followClaims`, from the
 * `live` its claims.js exports), as `follow(values)`; a section without one, or whose claims
 * cannot load, keeps its text as it is.
 */
async function proseFollower(section, root, api, specs) {
  try {
    const { live } = await import(
      new URL(`./sections/${section.name}/claims.js`, import.meta.url).href
    );
    if (typeof live !== "function") return () => {};
    const defaults = readParams(specs, () => null).values;
    return followClaims(root, section.name, live, api, defaults);
  } catch {
    return () => {};
  }
}

/**
 * The picture in the page's header (`#hero`): one live request of the Tail piece, its arena and
 * its counter, at the piece's defaults. It accumulates only a few requests (the arena needs
 * none), on the main thread: the workers are the sections'. Without it the page still works.
 * @param {typeof import("../pkg/tail_lab.js")} core
 */
function mountHero(core) {
  const root = document.getElementById("hero");
  if (!root) return;
  const { values } = readParams(tailParams(core), () => null);
  mountTail(root, {
    api: core,
    values: { ...values, requests: HERO_REQUESTS },
    parts: ["arena", "counter"],
    prefix: "hero-",
    workers: 0,
  }).catch(() => {
    root.hidden = true;
  });
}
/** The header's run stops accumulating here (the Tail parameter's minimum). */
const HERO_REQUESTS = 1000;

/**
 * The settings of `specs` that the page's URL gives and that were read with a notice (clamped,
 * or refused for the default), as the URL should now carry them: `undefined` (no parameter)
 * for an empty text. `values` are what readParams gave for `specs`.
 */
function adjustedSettings(specs, values) {
  const get = fromUrl();
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const spec of specs) {
    if (get(spec.name) === null || readParams([spec], get).notices.length === 0) continue;
    const value = values[spec.name];
    out[spec.name] = value === "" ? undefined : value;
  }
  return out;
}

async function main() {
  // The workers load their core while this page loads its own (they answer the first points
  // sooner).
  warmWorkers();
  // The closed forms are microseconds: the main thread computes them; simulations go to workers.
  // The sections' text goes on the page first, so it reads even if the core cannot start.
  const core = loadCore();
  const sections = await loadSections();
  const roots = await Promise.all(sections.map(sectionElement));
  document.querySelector("main").append(...roots);
  mountHero(await core);
  // A link to a section (`#hedge`, as "copy link" writes it): the sections came after the load.
  if (location.hash)
    document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  const api = closedForms(await core);
  const read = readParams([SEED_PARAM], fromUrl());
  const seed = new LabSeed(read.values.seed);
  const service = new LabService();
  const url = { seed: seed.value };
  const notices = [...read.notices];
  // A refused seed leaves the URL for the one in use, as any section's refused setting does.
  if (notices.length) writeUrl(url);
  seedField(seed);
  seed.watch((value) => {
    url.seed = value;
    writeUrl(url);
  });
  for (const [i, section] of sections.entries()) {
    const specs = settingsOf(section.params, api);
    const { values, notices: n } = readParams(specs, fromUrl());
    notices.push(...n);
    // A setting the link gave and this page adjusted or refused is written back as it is used
    // (an empty text, such as a refused `data`, leaves the URL), so the link copied from the
    // page never carries it again, whether or not the section writes its settings on mount.
    const adjusted = adjustedSettings(specs, values);
    if (Object.keys(adjusted).length) {
      Object.assign(url, adjusted);
      writeUrl(url);
    }
    const follow = await proseFollower(section, roots[i], api, specs);
    const current = { ...values };
    follow(current);
    section.mount(roots[i], {
      client: new SimClient({
        onTrouble: (message) => showNotice(`The Lab's numbers could not be computed: ${message}.`),
        root: roots[i],
      }),
      api,
      values,
      link: () => sectionLink(section.name),
      onChange: (changed) => {
        Object.assign(url, changed);
        writeUrl(url);
        Object.assign(current, changed);
        follow(current);
      },
      seed,
      service,
    });
    // One section per task: start-up stays free of long tasks.
    await nextTask();
  }
  if (notices.length)
    showNotice(`Some link settings were adjusted: ${notices.join("; ")}.`, { error: false });
  document.body.dataset.ready = "true";
}

main().catch((e) => {
  releaseUnusedWorkers();
  showNotice(`The Lab could not start: ${e.message}`);
});
