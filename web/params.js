// A panel's settings from outside: the page's URL query (?fanout=64&profile=gc-pause&seed=7) or
// an embed's attributes. Every value is checked against its control's range: out of range is
// clamped to the nearest valid value, unreadable is dropped for the default, and each such
// change comes back as a plain-language notice naming the parameter. Nothing from a URL can
// stop a panel from loading.

const MAX_SEED = 18446744073709551615n;

/**
 * A seed from text: `[seed, null]`, the seed a whole number from 0 to 2^64 − 1 (a BigInt above
 * 2^53 − 1, so it reaches the core exactly), or `[null, why]` when the text is not one.
 * @param {string} text
 * @returns {[number | bigint, null] | [null, string]}
 */
export function parseSeed(text) {
  const shown = quoted(text);
  if (!/^\d+$/.test(text))
    return [null, `“${shown}” is not a whole number from 0 to 18446744073709551615`];
  const big = BigInt(text);
  if (big > MAX_SEED) return [null, `${shown} is above 18446744073709551615`];
  return [big > BigInt(Number.MAX_SAFE_INTEGER) ? big : Number(big), null];
}

function snap(spec, x) {
  if (!spec.step) return x;
  const k = Math.round((x - spec.min) / spec.step);
  return Number((spec.min + k * spec.step).toFixed(6));
}

/** The most characters `quoted` keeps. */
export const QUOTE_LENGTH = 40;

/**
 * What was given, as a notice quotes it: at most 40 characters (code points, so an emoji or any
 * character outside the BMP is never cut in half into a lone surrogate), then "…", so a long
 * value cannot flood the page. It walks at most 41 code points, whatever the text's length.
 * @param {string} text
 */
export function quoted(text) {
  if (text.length <= QUOTE_LENGTH) return text;
  let kept = 0;
  let end = 0;
  for (const c of text) {
    if (kept === QUOTE_LENGTH) return `${text.slice(0, end)}…`;
    kept++;
    end += c.length;
  }
  return text;
}

/** Reads one value; returns [value, notice or null]. */
function readOne(spec, raw) {
  const fallback = (why) => [
    spec.default,
    `${spec.name}: ${why}; using ${spec.default === "" ? "none" : spec.default}`,
  ];
  if (raw === null || raw === undefined) return [spec.default, null];
  const text = String(raw).trim();
  const shown = quoted(text);
  switch (spec.type) {
    case "enum":
      return spec.values.map(String).includes(text)
        ? [spec.values.find((v) => String(v) === text), null]
        : fallback(`“${shown}” is not one of ${spec.values.join(", ")}`);
    case "string": {
      // A compact text the spec parses itself (strictly): `parse(text)` gives the value and,
      // when it clamped or dropped something, why. Never markup: the value is data.
      const [value, why] = spec.parse(text);
      return [value, why === null ? null : `${spec.name}: ${why}`];
    }
    case "seed": {
      const [seed, why] = parseSeed(text);
      return why === null ? [seed, null] : fallback(why);
    }
    default: {
      const x = Number(text);
      if (text === "" || !Number.isFinite(x)) return fallback(`“${shown}” is not a number`);
      let v = spec.type === "int" ? Math.round(x) : snap(spec, x);
      let notice =
        v !== x && spec.type === "int"
          ? `${spec.name}=${shown} is not a whole number; using ${v}`
          : null;
      // A value between two of the slider's steps is moved to the nearest one, and says so.
      if (spec.type !== "int" && spec.step && Math.abs(v - x) > 1e-9 * spec.step)
        notice = `${spec.name}=${shown} is between the steps of ${spec.step}; using ${v}`;
      if (v < spec.min) {
        v = spec.min;
        notice = `${spec.name}=${shown} is below the smallest value, ${spec.min}; using ${v}`;
      }
      if (v > spec.max) {
        v = spec.max;
        notice = `${spec.name}=${shown} is above the largest value, ${spec.max}; using ${v}`;
      }
      return [v, notice];
    }
  }
}

/** Reads every spec through `get(name)`: `{ values, notices }`. */
export function readParams(specs, get) {
  const values = {};
  const notices = [];
  for (const spec of specs) {
    const [v, notice] = readOne(spec, get(spec.name));
    values[spec.name] = v;
    if (notice) notices.push(notice);
  }
  return { values, notices };
}

let pending = null;

/**
 * Writes `values` into the page's query string without adding a history entry (a value that is
 * `undefined` removes its parameter). While a slider is dragged the writes are coalesced: at
 * most one every 150 ms, the last values winning.
 */
export function writeUrl(values) {
  const first = pending === null;
  pending = values;
  if (!first) return;
  setTimeout(() => {
    const url = new URL(location.href);
    for (const [k, v] of Object.entries(pending)) {
      if (v === undefined) url.searchParams.delete(k);
      else url.searchParams.set(k, String(v));
    }
    pending = null;
    history.replaceState(history.state, "", url);
  }, 150);
}

/** The page's query as a `get(name)` for readParams. */
export function fromUrl() {
  const q = new URLSearchParams(location.search);
  return (name) => q.get(name);
}
