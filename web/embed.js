// <tail-lab-panel>: any Lab or Tail panel in someone else's page, with one script tag and one
// element. Attributes are the panel's settings, named like the Lab's URL parameters:
//
//   <script type="module" src="https://…/embed.js"></script>
//   <tail-lab-panel kind="histograms" fanout="100" profile="gc-pause"></tail-lab-panel>
//
// kind: "tail" (the whole Tail piece with its controls), "arena", "histograms", "strip" (one of
// its charts), or a Lab section: "fanout", "hedge", "loaded", "balance", "code". Every panel on a
// page shares one wasm instance and one frame scheduler; each sits in its own shadow root, so
// the host page's styles and ids never collide with it.

import { exportBar } from "./export.js";
import { readParams } from "./params.js";
import { SECTIONS } from "./lab/sections.js";
import { SimClient } from "./lab/sim.js";
import { mountTail, tailParams } from "./tail/piece.js";
import { loadCore } from "./wasm.js";

const TAIL_PARTS = {
  tail: ["controls", "readouts", "arena", "histograms", "strip"],
  arena: ["arena"],
  histograms: ["readouts", "histograms"],
  strip: ["strip"],
};
const TITLES = { arena: "One request", histograms: "Leaf and parent histograms", strip: "Parent percentiles against fan-out" };
const STYLE = new URL("./style.css", import.meta.url);
const HOME = new URL("./", import.meta.url);
let count = 0;
const labels = new Map();

/** A landmark label no other panel on the page has ("…", then "… (2)"). */
function uniqueLabel(label) {
  const n = (labels.get(label) ?? 0) + 1;
  labels.set(label, n);
  return n === 1 ? label : `${label} (${n})`;
}

/** The iframe URL that shows the same panel with the same settings. */
export function panelUrl(kind, settings) {
  const url = new URL("./panel.html", import.meta.url);
  url.searchParams.set("kind", kind);
  for (const [k, v] of Object.entries(settings)) if (k !== "requests") url.searchParams.set(k, String(v));
  return url.href;
}

class TailLabPanel extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const shadow = this.attachShadow({ mode: "open" });
    shadow.innerHTML = `<link rel="stylesheet" href="${STYLE}"><div class="embed" role="region"></div>`;
    this.mount(shadow.querySelector(".embed")).catch((e) => {
      shadow.querySelector(".embed").textContent = `Tail Latency Lab could not start: ${e.message}`;
    });
  }

  async mount(root) {
    const kind = this.getAttribute("kind") ?? "histograms";
    const api = await loadCore();
    const prefix = `tlp${++count}-`;
    const get = (name) => this.getAttribute(name);
    const notice = document.createElement("p");
    notice.className = "embed-notice";
    notice.setAttribute("role", "status");
    const credit = document.createElement("p");
    credit.className = "embed-credit";
    credit.innerHTML = `<a href="${HOME}" target="_blank" rel="noopener">Tail Latency Lab</a>: simulated live in this page`;
    let settings = {};
    const link = () => panelUrl(kind, settings);
    if (TAIL_PARTS[kind]) {
      root.setAttribute("aria-label", uniqueLabel(`Tail Latency Lab: ${TITLES[kind] ?? "the Tail piece"}`));
      const { values, notices } = readParams(tailParams(api), get);
      notice.textContent = notices.join("; ");
      root.append(notice);
      const piece = await mountTail(root, { api, values, parts: TAIL_PARTS[kind], prefix, onChange: (s) => { settings = s; } });
      for (const [name, canvas] of Object.entries(piece.canvases)) {
        exportBar(canvas.closest("figure"), {
          name: `tail-${name}`, title: TITLES[name], canvas, link,
          draw: (target) => piece.drawOnto(name, target), table: () => piece.table(name), meta: () => piece.settings(),
        });
      }
    } else if (SECTIONS[kind]) {
      const section = SECTIONS[kind];
      root.setAttribute("aria-label", uniqueLabel(`Tail Latency Lab: ${kind}`));
      root.dataset.section = kind;
      const { values, notices } = readParams(section.params ?? [], get);
      notice.textContent = notices.join("; ");
      root.append(notice);
      section.mount(root, { client: new SimClient(), api, values, prefix, link, onChange: (s) => { settings = { ...settings, ...s }; } });
    } else {
      throw new Error(`kind must be one of ${[...Object.keys(TAIL_PARTS), ...Object.keys(SECTIONS)].join(", ")} (got “${kind}”)`);
    }
    root.append(credit);
    this.dataset.ready = "true";
  }
}

if (!customElements.get("tail-lab-panel")) customElements.define("tail-lab-panel", TailLabPanel);
