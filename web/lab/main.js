// The Lab page: mounts each section into its `[data-section]` element. A section gets its root,
// its settings from the page's URL and a simulation client of its own; it builds its controls,
// chart and readouts inside that root and nothing outside it. Every change goes back into the
// URL, so a link reproduces the view.

import { showNotice } from "../notice.js";
import { fromUrl, readParams, writeUrl } from "../params.js";
import { nextTask } from "../scheduler.js";
import { loadCore } from "../wasm.js";
import { SECTIONS } from "./sections.js";
import { SimClient } from "./sim.js";


async function main() {
  // The closed forms are microseconds: the main thread computes them; simulations go to workers.
  const api = await loadCore();
  const url = {};
  const notices = [];
  for (const root of document.querySelectorAll("[data-section]")) {
    if (!Object.hasOwn(SECTIONS, root.dataset.section)) continue;
    const section = SECTIONS[root.dataset.section];
    const { values, notices: n } = readParams(section.params ?? [], fromUrl());
    notices.push(...n);
    section.mount(root, {
      client: new SimClient({ onTrouble: (message) => showNotice(`The Lab's numbers could not be computed: ${message}.`) }), api, values,
      onChange: (changed) => { Object.assign(url, changed); writeUrl(url); },
    });
    // One section per task: start-up stays free of long tasks.
    await nextTask();
  }
  if (notices.length) showNotice(`Some link settings were adjusted: ${notices.join("; ")}.`, { error: false });
  document.body.dataset.ready = "true";
}

main().catch((e) => showNotice(`The Lab could not start: ${e.message}`));
