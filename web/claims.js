// Claims: the numbers the pages' prose states, each bound to the core.
//
// A number in a page's text is written as
//   <span data-claim="fanout.slow-share" data-format="percent" data-digits="1">63.4%</span>
// and the claim `fanout.slow-share` is defined in the claims.js of the folder it belongs to (a
// Lab section's folder, or tail/ for the Tail page): a sentence saying what it is, and a function
// that computes it through the wasm API from the same settings the page runs. The claims test
// (tests/e2e/claims.test.mjs) recomputes every claim, formats it as its span says, and fails when
// the text differs, when a span names a claim nobody defines, when a claim is defined and stated
// nowhere, and when a digit in the prose stands outside a claim, a formula (`.math`), a citation
// (`cite`) or a quotation of a source (`q`).
//
// This module imports nothing that needs a page: node loads it, and the Lab page uses
// `followClaims` to make the prose follow the controls: a section's claims.js may export
// `live(values, api)`, the claims that are closed forms of its settings.

import { SEED_PARAM } from "./lab/seed.js";
import { SECTIONS } from "./lab/sections.js";
import { ordinalSuffix } from "./tail/rank.js";

/**
 * A claim: what it states, and its value computed through the API (`core` is the wasm package).
 * A list value states that every element reads the same at the text's precision ("at every
 * load").
 * @typedef {{ doc: string, value: (core: any) => number | number[] }} Claim
 */

/**
 * How a claim's value is written, by `data-format`; `digits` is `data-digits` (decimals).
 * percent: a fraction 0..1 as "63.4%"; number: "2.6"; ms: "7.7 ms"; rank: a quantile level 0..1
 * as a percentile rank, "99.31st"; count: a whole number with thousands separators, "1,566";
 * times: a ratio, "1.5×".
 */
export const FORMATS = Object.freeze({
  percent: (v, d) => `${(v * 100).toFixed(d)}%`,
  number: (v, d) => v.toFixed(d),
  ms: (v, d) => `${v.toFixed(d)} ms`,
  rank: (v, d) => {
    const text = (v * 100).toFixed(d);
    return `${text}${ordinalSuffix(text)}`;
  },
  count: (v) => Math.round(v).toLocaleString("en-US"),
  times: (v, d) => `${v.toFixed(d)}×`,
});

/**
 * The text a claim's value reads as in `format` with `digits` decimals. A list reads as its
 * elements' common text, and throws when they differ at that precision (the sentence would be
 * false for some of them).
 */
export function formatClaim(value, format, digits = 0) {
  if (!Object.hasOwn(FORMATS, format)) throw new RangeError(`no claim format "${format}"`);
  if (!Number.isInteger(digits) || digits < 0 || digits > 6)
    throw new RangeError(`claim digits must be an integer in 0..=6, got ${digits}`);
  const one = (v) => {
    if (typeof v !== "number" || !Number.isFinite(v))
      throw new RangeError(`a claim's value must be a finite number, got ${v}`);
    return FORMATS[format](v, digits);
  };
  if (!Array.isArray(value)) return one(value);
  if (value.length === 0) throw new RangeError("a claim's list of values is empty");
  const texts = [...new Set(value.map(one))];
  if (texts.length > 1)
    throw new RangeError(`the values read differently at this precision: ${texts.join(", ")}`);
  return texts[0];
}

/**
 * The seeds a range over seeds runs over ("over five seeds 6–10×"): the Lab's default seed, the
 * one every default number is at, and the next four.
 */
export const SEEDS = Object.freeze(Array.from({ length: 5 }, (_, i) => SEED_PARAM.default + i));

/** JSON's replacer for a key: a number that is not finite, or a BigInt, as its own text. */
const plain = (/** @type {string} */ _k, /** @type {any} */ v) =>
  (typeof v === "number" && !Number.isFinite(v)) || typeof v === "bigint" ? `${v}` : v;

/**
 * A cached runner over seeds. `overSeeds(seeds, run)` returns `runs(core, ...args)`, the results
 * of `run(core, seed, ...args)` under each of `seeds` in order, and `runs.at(core, seed, ...args)`,
 * one of them: each run is made once per core, seed and arguments (keyed by their JSON, so the
 * arguments are plain values: numbers, strings, objects of them), so a claim of the page's seed and a range over seeds share a run.
 * @template R
 * @param {readonly (number | bigint)[]} seeds
 * @param {(core: any, seed: number | bigint, ...args: any[]) => R} run
 */
export function overSeeds(seeds, run) {
  /** @type {WeakMap<object, Map<string, R>>} */
  const cache = new WeakMap();
  /** @type {(core: any, seed: number | bigint, args: any[]) => R} */
  const one = (core, seed, args) => {
    if (!cache.has(core)) cache.set(core, new Map());
    const runs = /** @type {Map<string, R>} */ (cache.get(core));
    const key = `${seed} ${JSON.stringify(args, plain)}`;
    if (!runs.has(key)) runs.set(key, run(core, seed, ...args));
    return /** @type {R} */ (runs.get(key));
  };
  /** @type {((core: any, ...args: any[]) => R[]) & { at: (core: any, seed: number | bigint, ...args: any[]) => R }} */
  const runs = Object.assign((core, ...args) => seeds.map((seed) => one(core, seed, args)), {
    at: (core, seed, ...args) => one(core, seed, args),
  });
  return runs;
}

/**
 * Two claims stating a range: `<name>-low` and `<name>-high`, the least and the greatest of
 * `values(core)` (one value per seed, say), `doc` saying what the values are.
 * @param {string} name
 * @param {string} doc
 * @param {(core: any) => number[]} values
 * @returns {Record<string, Claim>}
 */
export const claimRange = (name, doc, values) => ({
  [`${name}-low`]: { doc: `The least of ${doc}`, value: (core) => Math.min(...values(core)) },
  [`${name}-high`]: { doc: `The greatest of ${doc}`, value: (core) => Math.max(...values(core)) },
});

/** Every claims.js: one in each Lab section's folder (lab/sections.js's list), and the Tail page's. */
const claimFiles = () => [
  ...SECTIONS.map((name) => [name, `./lab/sections/${name}/claims.js`]),
  ["tail", "./tail/claims.js"],
];

/**
 * Every claim, keyed `<scope>.<name>` (the scope is the section's name, or "tail"): a
 * `Map<key, Claim>`. Each claims.js exports `claims`, an object of name → Claim.
 */
export async function loadClaims() {
  const all = new Map();
  for (const [scope, file] of claimFiles()) {
    const { claims } = await import(new URL(file, import.meta.url).href);
    for (const [name, claim] of Object.entries(claims)) {
      if (typeof claim?.value !== "function" || typeof claim.doc !== "string")
        throw new TypeError(`claim ${scope}.${name} needs a doc sentence and a value function`);
      all.set(`${scope}.${name}`, claim);
    }
  }
  return all;
}

/**
 * A statement the prose makes about its claims ("Erlang C lies inside the simulation's
 * interval", "the stagger leaves the p99 where it was"): `holds(claim, core)` is true when it
 * does, where `claim(name)` is the value of the claim `name` of the same file (computed once) and
 * `core` the wasm package, for figures the prose does not state (an interval's ends). The claims
 * test fails every statement that does not hold, so a number that moves (another seed, a model
 * change) cannot leave the sentence it supports behind.
 * @typedef {{ doc: string, holds: (claim: (name: string) => any, core: any) => boolean }} Statement
 */

/**
 * Every statement, keyed `<scope>.<name>`: a `Map<key, { statement, claim }>`, `claim(name, core)`
 * reading the file's own claims. A claims.js may export `statements`, an object of name →
 * Statement.
 */
export async function loadStatements() {
  const all = new Map();
  for (const [scope, file] of claimFiles()) {
    const { claims, statements } = await import(new URL(file, import.meta.url).href);
    for (const [name, statement] of Object.entries(statements ?? {})) {
      if (typeof statement?.holds !== "function" || typeof statement.doc !== "string")
        throw new TypeError(`statement ${scope}.${name} needs a doc sentence and a holds function`);
      all.set(`${scope}.${name}`, {
        statement,
        claim: (/** @type {string} */ key, /** @type {any} */ core) => {
          if (!Object.hasOwn(claims, key)) throw new RangeError(`${scope} has no claim ${key}`);
          return claims[key].value(core);
        },
      });
    }
  }
  return all;
}

/**
 * The decimals a claim shows once it has moved away from its default (`followClaims`): the
 * span's own, or more for a small percentage, so that it keeps two significant digits ("3.2%",
 * "0.32%", never "0%"), up to three decimals; a share too small for those reads at the span's.
 */
export function liveDigits(value, format, digits) {
  if (format !== "percent" || !(value > 0)) return digits;
  const pct = value * 100;
  // Near 100%, enough decimals that a share short of all never reads "100.0%" (99.996% at
  // n = 1000), up to three; exactly 1 keeps the text's digits.
  if (value < 1 && pct >= 90) {
    const gap = 100 - pct;
    if (gap >= 0.0005) return Math.min(3, Math.max(digits, Math.floor(-Math.log10(2 * gap)) + 1));
    return digits;
  }
  // Large enough, or too small to show in three decimals (it reads as the text's "0.0%").
  if (pct >= 10 || pct < 0.0005) return digits;
  return Math.min(3, Math.max(digits, Math.ceil(-Math.log10(pct)) + 1));
}

/**
 * Makes the prose's claims in `root` follow a section's controls, Tangle-style. `live(values,
 * api)` (a section's claims.js may export it) gives, for the settings `values`, the value of each
 * claim of `scope` that is a closed form of them (`{ name: number }`, through the page's closed
 * forms `api`; or `{ name: { value, digits } }` where a moved value needs more decimals than the
 * text's, such as a slider's λ = 0.55); the other claims stay the default's. Returns `follow(values)`, to call with the
 * section's settings whenever they change.
 *
 * A span that follows gets `data-live` (styled as a value the controls move); one that has moved
 * away from its default also gets `data-moved`. At the default value a span reads exactly its
 * default text (what the claims test checks), elsewhere its format with `liveDigits`. A value
 * that cannot be written (not finite) reads "—", never NaN.
 * @param {ParentNode} root
 * @param {string} scope
 * @param {(values: Record<string, any>, api: any) =>
 *   Record<string, number | { value: number, digits?: number }>} live
 * @param {any} api
 * @param {Record<string, any>} defaults the section's default settings
 * @returns {(values: Record<string, any>) => void}
 */
export function followClaims(root, scope, live, api, defaults) {
  /** `live` as `{ name: { value, digits? } }`; null when it cannot be computed. */
  const at = (values) => {
    try {
      return Object.fromEntries(
        Object.entries(live(values, api)).map(([k, v]) => [
          k,
          typeof v === "number" ? { value: v } : v,
        ]),
      );
    } catch {
      return null;
    }
  };
  const base = at(defaults);
  if (base === null) return () => {};
  const spans = [];
  for (const span of root.querySelectorAll("[data-claim]")) {
    const el = /** @type {HTMLElement} */ (span);
    const [s, name] = (el.dataset.claim ?? "").split(".");
    if (s !== scope || !Object.hasOwn(base, name)) continue;
    el.dataset.live = "";
    spans.push({
      el,
      name,
      text: el.textContent,
      format: el.dataset.format ?? "number",
      digits: el.dataset.digits === undefined ? 0 : Number(el.dataset.digits),
    });
  }
  return (values) => {
    if (spans.length === 0) return;
    const now = at(values);
    for (const { el, name, text, format, digits } of spans) {
      const v = now?.[name]?.value;
      const moved = v !== base[name].value;
      let shown = text;
      if (moved) {
        try {
          const d = Math.max(digits, now?.[name]?.digits ?? 0);
          shown = formatClaim(v, format, liveDigits(v, format, d));
        } catch {
          shown = "—";
        }
      }
      if (el.textContent !== shown) el.textContent = shown;
      el.toggleAttribute("data-moved", moved);
    }
  };
}
