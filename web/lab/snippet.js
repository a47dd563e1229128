// The "In code" section's program: one call for each section above it, each at that section's
// default settings (what a call leaves out is the API's default, which is the section's). A
// section's call is its folder's `snippet.js`:
//   call      `(core) => core.simulateX({ … })`, the call itself, on the core module;
//   note      the comment shown after it;
//   readouts  what the "In code" section prints of its result, each equal to one of this
//             section's readouts at the default seed (`readout`: its `data-readout`, or another
//             attribute `attr` with `prefix` removed).
// The program shown is made from the calls' own source text (`Function.prototype.toString`), so
// it is the code that runs, not a copy. This module touches no DOM, so node and the workers load
// it too.

import { SECTIONS } from "./sections.js";

/** @typedef {typeof import("../pkg/tail_lab.js")} Core */

/**
 * One readout of a section's snippet call.
 * @typedef {object} SnippetReadoutSpec
 * @property {string} name its `data-readout` in the code section
 * @property {string} label what it shows, naming the call and its settings
 * @property {(result: any) => string} show the text, from the call's result
 * @property {string} readout the section's readout it equals: `[data-<attr>=readout]`
 * @property {string} [attr] the attribute naming it, "readout" unless given
 * @property {string} [prefix] removed from the section's text before comparing
 */

/**
 * A section's snippet: its folder's snippet.js with the section's name and the key of its
 * result in the program's output (the name in camelCase).
 * @typedef {object} Snippet
 * @property {string} section
 * @property {string} key
 * @property {(core: Core) => unknown} call
 * @property {string} note
 * @property {readonly SnippetReadoutSpec[]} readouts
 */

/** The sections the program has a call for: every section above "In code", in page order. */
export const SNIPPET_SECTIONS = SECTIONS.slice(0, SECTIONS.indexOf("code"));

/** A section's name as a JS identifier: "your-data" → "yourData". */
export const snippetKey = (/** @type {string} */ name) =>
  name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

let loaded = /** @type {Promise<readonly Snippet[]> | null} */ (null);

/**
 * Every section's snippet, in page order. A section above "In code" without a snippet.js, or
 * with one that lacks a part, is an error naming it.
 * @returns {Promise<readonly Snippet[]>}
 */
export function loadSnippets() {
  loaded ??= Promise.all(
    SNIPPET_SECTIONS.map(async (section) => {
      const url = new URL(`./sections/${section}/snippet.js`, import.meta.url).href;
      const { call, note, readouts } = await import(url);
      if (typeof call !== "function" || typeof note !== "string" || !Array.isArray(readouts))
        throw new TypeError(`sections/${section}/snippet.js must export call, note and readouts`);
      return Object.freeze({ section, key: snippetKey(section), call, note, readouts });
    }),
  ).then((all) => Object.freeze(all));
  return loaded;
}

/**
 * Runs every section's call on `core`: `{ [key]: result }`, in page order.
 * @param {readonly Snippet[]} snippets
 * @param {Core} core
 * @returns {Record<string, any>}
 */
export function runSnippets(snippets, core) {
  return Object.fromEntries(snippets.map((s) => [s.key, s.call(core)]));
}

/** A call's expression, from its source: `(core) => core.f(…)` gives `core.f(…)`. */
export function callSource(/** @type {Snippet["call"]} */ call) {
  const text = call.toString();
  const arrow = text.match(/^\(?\s*core\s*\)?\s*=>\s*([\s\S]*)$/);
  if (!arrow) throw new TypeError(`a snippet call must be an arrow on core: ${text}`);
  return arrow[1].trim();
}

/**
 * The program the "In code" section shows: an import of the package and one line per section,
 * each its call's own source and its note.
 * @param {readonly Snippet[]} snippets
 */
export function snippetSource(snippets) {
  const lines = snippets.map((s) => `  ${s.key}: ${callSource(s.call)}, // ${s.note}`);
  return [
    'import * as core from "./pkg/tail_lab.js";',
    "",
    "// One call for each section above, at its default settings.",
    "export const snippet = () => ({",
    ...lines,
    "});",
  ].join("\n");
}
