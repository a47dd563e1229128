// The "In code" section's readouts: what each section's snippet call returned (its folder's
// snippet.js), each the same number as a readout of that section. The section builds its
// readouts from this list, and a browser test compares every pair on the page, so a section
// added to the Lab brings its own line (a node test checks that every section above "In code"
// has one). This module touches no DOM, so node loads it too.

import { loadSnippets } from "../../snippet.js";

/**
 * One readout of the program's output.
 * @typedef {object} SnippetReadout
 * @property {string} name its `data-readout` in the code section
 * @property {string} label what it shows, naming the call and its settings
 * @property {(out: Record<string, any>) => string} show the text, from the program's output
 * @property {{ section: string, readout: string, attr?: string, prefix?: string }} of the
 *   section's readout it equals: `[data-section=section] [data-<attr>=readout]` (attr
 *   "readout" unless given), its text with `prefix` removed
 */

/** @type {readonly SnippetReadout[]} */
export const SNIPPET_READOUTS = Object.freeze(
  (await loadSnippets()).flatMap(({ section, key, readouts }) =>
    readouts.map(({ name, label, show, readout, attr, prefix }) =>
      Object.freeze({
        name,
        label,
        show: (/** @type {Record<string, any>} */ out) => show(out[key]),
        of: Object.freeze({ section, readout, attr, prefix }),
      }),
    ),
  ),
);
