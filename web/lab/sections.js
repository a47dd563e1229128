// The Lab's one list of sections. A section is the folder `sections/<name>/`:
//   section.js  `params` (its URL and attribute specs) and `mount(root, context)`;
//   calls.js    `calls(core)`: the simulations it asks the workers for, name → function;
//   prose.html  its heading (an <h2>) and its text on the Lab page.
// Adding a section is adding its folder and its name here. The page's sections and their
// numbers, the workers' dispatch table, the embed kinds and the tests all come from this list.
//
// This module imports nothing that needs a page, so the workers and node load it too; a
// section's files are imported only where they are used (section.js on a page, calls.js in a
// worker).

/** The sections by name, in page order: a section's number on the page is its place here. */
export const SECTIONS = [
  "fanout",
  "hedge",
  "queue",
  "loaded",
  "tied",
  "budget",
  "retries",
  "cancellation",
  "fairness",
  "balance",
  "balancer",
  "graph",
  "correlated",
  "your-data",
  "omission",
  "code",
];

/** The address of one of a section's files. */
const file = (name, path) => new URL(`./sections/${name}/${path}`, import.meta.url).href;

let loaded = null;

/**
 * Every section's module, in page order: `[{ name, number, prose, params, mount }]`, with
 * `prose` the address of its prose.html.
 */
export function loadSections() {
  loaded ??= Promise.all(
    SECTIONS.map(async (name, i) => {
      const module = await import(file(name, "section.js"));
      return Object.freeze({ ...module, name, number: i + 1, prose: file(name, "prose.html") });
    }),
  );
  return loaded;
}

/** The section named `name` from `sections` (own names only: "__proto__" is no section). */
export const sectionNamed = (sections, name) => sections.find((s) => s.name === name) ?? null;

/**
 * The workers' dispatch table: the union of every section's calls.js for the core module
 * `core`. Two sections may name the same call only with the same function.
 */
export async function loadCalls(core) {
  const table = Object.create(null);
  for (const name of SECTIONS) {
    const { calls } = await import(file(name, "calls.js"));
    for (const [call, fn] of Object.entries(calls(core))) {
      if (typeof fn !== "function")
        throw new TypeError(`section ${name}: call ${call} is not a function`);
      if (call in table && table[call] !== fn)
        throw new Error(`sections name the call ${call} twice, with different functions`);
      table[call] = fn;
    }
  }
  return table;
}
