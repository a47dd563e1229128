// In code: the real API, one call for each section at its default settings. Shows the program
// lab/snippet.js makes of the sections' snippet calls (their own source), runs it in the worker, and prints what each line returned, each readout labelled
// with the settings its call uses.

import { countWord } from "../../../format.js";
import { el, readout, sectionContext } from "../../section.js";
import { SECTIONS } from "../../sections.js";
import { loadSnippets, snippetSource } from "../../snippet.js";
import { SNIPPET_READOUTS } from "./readouts.js";

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
  const shown = SNIPPET_READOUTS.map((spec) => ({
    spec,
    out: readout(outputs, { name: spec.name, label: spec.label }),
  }));
  const seedOut = readout(outputs, { name: "snippet-seed", label: "seed" });
  const seedNote = el("p", { class: "lab-note", "data-seed-note": "" });
  outputs.after(seedNote);
  /** Which seed these numbers are at, and, when the sections above use another, that too. */
  const showSeed = () => {
    seedOut.set(String(SNIPPET_SEED));
    seedNote.textContent = `The calls name no seed, so they run at the API's default, seed ${SNIPPET_SEED}${
      String(seed.value) === String(SNIPPET_SEED)
        ? "."
        : `; the sections above run at seed ${seed.value}, so their numbers differ from these.`
    }`;
  };
  showSeed();
  seed.watch(showSeed, signal);
  loadSnippets().then(
    (snippets) => {
      code.firstChild.textContent = snippetSource(snippets);
    },
    () => {
      code.firstChild.textContent = "(the program's source could not be loaded)";
    },
  );
  status.textContent = "running the snippet…";
  Object.assign(status.dataset, { done: "0", total: "1" });
  client.run([{ fn: "snippet", args: [] }], {
    onPoint: (_, out, error) => {
      status.textContent = error ? `the snippet failed: ${error}` : "";
      status.dataset.done = "1";
      if (error) return;
      for (const { spec, out: shownOut } of shown) shownOut.set(spec.show(out));
      root.dataset.snippetDone = "true";
    },
  });
}
