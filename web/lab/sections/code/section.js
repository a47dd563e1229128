// In code: the real API, one call for each section at its default settings. Shows `snippet.js`
// as it stands, runs it in the worker, and prints what each line returned, each readout labelled
// with the settings its call uses.

import { countWord, formatMs, formatNumber, formatPct } from "../../../format.js";
import { el, readout, sectionContext } from "../../section.js";
import { SECTIONS } from "../../sections.js";

/**
 * The seed the snippet's calls run at: they name none, so the API's default, whatever the page's
 * seed is.
 */
const SNIPPET_SEED = 1;

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext} context
 */
export function mount(root, context) {
  const { client, seed, signal } = sectionContext(context);
  // The prose's "The code below makes five of them": one call for each section above this one.
  const above = root.querySelector("[data-count=sections-above]");
  const count = SECTIONS.indexOf("code");
  if (above && count >= 0) above.textContent = countWord(count);
  const code = el(
    "pre",
    { class: "lab-code", tabindex: 0, "aria-label": "The snippet's source" },
    el("code", { text: "loading…" }),
  );
  const outputs = el("div", { class: "lab-readouts" });
  const status = el("p", { class: "lab-progress", "data-progress": "", role: "status" });
  root.append(el("div", { class: "lab-panel" }, code, status, outputs));
  const r = {
    share: readout(outputs, { name: "snippet-slow-share", label: "slowShare(0.01, 100)" }),
    hedge: readout(outputs, {
      name: "snippet-p999-after",
      label: "simulateHedge (backup at the p95): p99.9 with hedge",
    }),
    work: readout(outputs, {
      name: "snippet-extra-work",
      label: "simulateHedge (backup at the p95): extra work",
    }),
    queue: readout(outputs, {
      name: "snippet-queue-p99",
      label: "simulateQueue (4 servers, load 80%): p99",
    }),
    loadedP50: readout(outputs, {
      name: "snippet-loaded-p50",
      label: "simulateLoaded (hedge, load 60%): p50",
    }),
    loadedP99: readout(outputs, {
      name: "snippet-loaded-p99",
      label: "simulateLoaded (hedge, load 60%): p99",
    }),
    balance: readout(outputs, {
      name: "snippet-mean-time",
      label: "simulateBalance (λ = 0.9, best of two): mean time",
    }),
    graph: readout(outputs, {
      name: "snippet-graph-p99",
      label: "simulateGraph (search, deadline 100 ms): p99",
    }),
    correlated: readout(outputs, {
      name: "snippet-corr-slow-drop",
      label: "simulateCorrelated (c = 0.3, drop 5%): slow share",
    }),
    data: readout(outputs, {
      name: "snippet-data-p99",
      label: "simulateEmpirical (the example): p99 of the draws",
    }),
    seed: readout(outputs, { name: "snippet-seed", label: "seed" }),
  };
  const seedNote = el("p", { class: "lab-note", "data-seed-note": "" });
  outputs.after(seedNote);
  /** Which seed these numbers are at, and, when the sections above use another, that too. */
  const showSeed = () => {
    r.seed.set(String(SNIPPET_SEED));
    seedNote.textContent = `The calls name no seed, so they run at the API's default, seed ${SNIPPET_SEED}${
      String(seed.value) === String(SNIPPET_SEED)
        ? "."
        : `; the sections above run at seed ${seed.value}, so their numbers differ from these.`
    }`;
  };
  showSeed();
  seed.watch(showSeed, signal);
  fetch(new URL("../../snippet.js", import.meta.url))
    .then((res) => res.text())
    .then((text) => {
      code.firstChild.textContent = text.trim();
    })
    .catch(() => {
      code.firstChild.textContent = "(the snippet's source could not be loaded)";
    });
  status.textContent = "running the snippet…";
  Object.assign(status.dataset, { done: "0", total: "1" });
  client.run([{ fn: "snippet", args: [] }], {
    onPoint: (_, out, error) => {
      status.textContent = error ? `the snippet failed: ${error}` : "";
      status.dataset.done = "1";
      if (error) return;
      r.share.set(formatPct(out.share));
      r.hedge.set(formatMs(out.hedge.p999After));
      r.work.set(formatPct(out.hedge.extraWork, 2));
      r.queue.set(formatNumber(out.queue.p99));
      r.loadedP50.set(formatMs(out.loaded.p50));
      r.loadedP99.set(formatMs(out.loaded.p99));
      r.balance.set(formatNumber(out.balance.meanTime));
      r.graph.set(formatMs(out.graph.p99));
      const drop = out.correlated.slowDrop;
      r.correlated.set(formatPct(drop, drop > 0 && drop < 0.01 ? 3 : 1));
      r.data.set(formatMs(out.data.p99));
      root.dataset.snippetDone = "true";
    },
  });
}
