// The Lab page: builds one `<section data-section>` for each section of lab/sections.js, in its
// order and numbered by it, with the section's prose (its folder's prose.html), then mounts the
// section into it. A section gets its root, its settings from the page's URL, the core's closed
// forms (lab/api.js) and a simulation client of its own; it builds its controls, chart and
// readouts inside that root and nothing outside it. Every change goes back into the URL, so a
// link reproduces the view.

import { el } from "../dom.js";
import { showNotice } from "../notice.js";
import { fromUrl, readParams, writeUrl } from "../params.js";
import { nextTask } from "../scheduler.js";
import { loadCore } from "../wasm.js";
import { closedForms } from "./api.js";
import { settingsOf } from "./section.js";
import { loadSections } from "./sections.js";
import { SimClient } from "./sim.js";

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
  const root = el("section", { "data-section": section.name, "aria-labelledby": id });
  root.append(...(await prose(section)));
  const heading = root.querySelector("h2");
  heading.id = id;
  heading.prepend(el("span", { class: "num", text: String(section.number) }), " ");
  return root;
}

async function main() {
  // The closed forms are microseconds: the main thread computes them; simulations go to workers.
  // The sections' text goes on the page first, so it reads even if the core cannot start.
  const core = loadCore();
  const sections = await loadSections();
  const roots = await Promise.all(sections.map(sectionElement));
  document.querySelector("main").append(...roots);
  const api = closedForms(await core);
  const url = {};
  const notices = [];
  for (const [i, section] of sections.entries()) {
    const { values, notices: n } = readParams(settingsOf(section.params, api), fromUrl());
    notices.push(...n);
    section.mount(roots[i], {
      client: new SimClient({
        onTrouble: (message) => showNotice(`The Lab's numbers could not be computed: ${message}.`),
      }),
      api,
      values,
      onChange: (changed) => {
        Object.assign(url, changed);
        writeUrl(url);
      },
    });
    // One section per task: start-up stays free of long tasks.
    await nextTask();
  }
  if (notices.length)
    showNotice(`Some link settings were adjusted: ${notices.join("; ")}.`, { error: false });
  document.body.dataset.ready = "true";
}

main().catch((e) => showNotice(`The Lab could not start: ${e.message}`));
