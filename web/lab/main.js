// The Lab page: mounts each section into its `[data-section]` element. A section gets its root
// and a simulation client of its own; it builds its controls, chart and readouts inside that
// root and nothing outside it.

import init, * as api from "../pkg/tail_lab.js";
import { SimClient } from "./sim.js";
import * as balance from "./sections/balance.js";
import * as code from "./sections/code.js";
import * as fanout from "./sections/fanout.js";
import * as hedge from "./sections/hedge.js";
import * as loaded from "./sections/loaded.js";

const SECTIONS = { fanout, hedge, loaded, balance, code };

function showNotice(message) {
  const el = document.getElementById("notice");
  el.textContent = message;
  el.hidden = false;
}

globalThis.tailLabOnPanic = (message) => showNotice(message);
window.addEventListener("error", (e) => showNotice(`Error: ${e.message}`));
window.addEventListener("unhandledrejection", (e) => showNotice(`Error: ${e.reason?.message ?? e.reason}`));

async function main() {
  // The closed forms are microseconds: the main thread computes them; simulations go to workers.
  await init();
  for (const root of document.querySelectorAll("[data-section]")) {
    const section = SECTIONS[root.dataset.section];
    if (section) section.mount(root, { client: new SimClient(), api });
  }
  document.body.dataset.ready = "true";
}

main().catch((e) => showNotice(`The Lab could not start: ${e.message}`));
