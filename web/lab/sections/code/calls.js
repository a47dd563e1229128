// What this section asks the Lab's workers to run (lab/worker.js dispatches the union of every
// section's calls): the program of lab/snippet.js, every section's snippet call at its default
// settings, on the worker's core.

import { loadSnippets, runSnippets } from "../../snippet.js";

const snippets = await loadSnippets();

/** @param {import("../../snippet.js").Core} core */
export const calls = (core) => ({ snippet: () => runSnippets(snippets, core) });
