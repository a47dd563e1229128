// web/params.js in node: how settings from a URL or from attributes are read (clamped, snapped,
// dropped for the default, each change with a notice naming the parameter), what a notice
// quotes, and how the page's URL is written back. Hostile input only ever yields a value taken
// from the specs, or a number, and a notice quoting at most 40 characters of it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { LabSeed, SEED_PARAM } from "../../web/lab/seed.js";
import { fromUrl, parseSeed, quoted, readParams, writeUrl } from "../../web/params.js";

const SPECS = [
  { name: "fanout", type: "int", min: 1, max: 256, default: 100 },
  { name: "p", type: "float", min: 0.001, max: 0.2, step: 0.001, default: 0.01 },
  { name: "profile", type: "enum", values: ["default", "gc-pause", "tight"], default: "default" },
  { name: "n", type: "enum", values: [1, 2, 5], default: 2 },
  { name: "seed", type: "seed", default: 1 },
];

/** readParams over a plain object of raw values (missing names read as null, as a URL's do). */
const read = (raw, specs = SPECS) =>
  readParams(specs, (name) => (Object.hasOwn(raw, name) ? raw[name] : null));
const DEFAULTS = { fanout: 100, p: 0.01, profile: "default", n: 2, seed: 1 };

test("nothing given: every default, no notice", () => {
  assert.deepEqual(read({}), { values: DEFAULTS, notices: [] });
});

test("values in range are read as they are", () => {
  const { values, notices } = read({
    fanout: " 64 ",
    p: "0.05",
    profile: "gc-pause",
    n: "5",
    seed: "7",
  });
  assert.deepEqual(values, { fanout: 64, p: 0.05, profile: "gc-pause", n: 5, seed: 7 });
  assert.deepEqual(notices, []);
});

test("numbers: rounded, snapped to the step and clamped, each with a notice", () => {
  assert.deepEqual(read({ fanout: "999" }), {
    values: { ...DEFAULTS, fanout: 256 },
    notices: ["fanout=999 is above the largest value, 256; using 256"],
  });
  assert.deepEqual(read({ fanout: "0" }).notices, [
    "fanout=0 is below the smallest value, 1; using 1",
  ]);
  assert.deepEqual(read({ fanout: "2.5" }), {
    values: { ...DEFAULTS, fanout: 3 },
    notices: ["fanout=2.5 is not a whole number; using 3"],
  });
  assert.deepEqual(
    read({ fanout: "1e2" }),
    { values: DEFAULTS, notices: [] },
    "exponent notation is a number",
  );
  // Off the step: snapped to six decimals, with a notice (it was silent until a review found
  // ?loaded-load=0.33 shown as 0.35 with no word, against this file's promise).
  assert.deepEqual(read({ p: "0.0123" }), {
    values: { ...DEFAULTS, p: 0.012 },
    notices: ["p=0.0123 is between the steps of 0.001; using 0.012"],
  });
  assert.deepEqual(read({ p: "0.2004" }).values.p, 0.2);
  // On a step, however it is written: no notice.
  assert.deepEqual(read({ p: "0.012" }).notices, []);
  assert.deepEqual(read({ p: "1.2e-2" }).notices, []);
  assert.deepEqual(read({ p: "0.0120000000001" }).notices, []);
  assert.deepEqual(read({ p: "5" }).notices, ["p=5 is above the largest value, 0.2; using 0.2"]);
  assert.deepEqual(read({ p: "-1" }).notices, [
    "p=-1 is below the smallest value, 0.001; using 0.001",
  ]);
});

test("unreadable values fall back to the default, with a notice", () => {
  for (const bad of ["", "  ", "abc", "NaN", "Infinity", "-Infinity", "1/2", "0x"]) {
    const { values, notices } = read({ fanout: bad });
    assert.equal(values.fanout, 100, bad);
    assert.deepEqual(notices, [`fanout: “${bad.trim()}” is not a number; using 100`]);
  }
  assert.deepEqual(read({ profile: "fast" }).notices, [
    "profile: “fast” is not one of default, gc-pause, tight; using default",
  ]);
  assert.deepEqual(read({ n: "3" }).notices, ["n: “3” is not one of 1, 2, 5; using 2"]);
});

test("seeds: whole numbers up to 2^64 − 1, as a BigInt above 2^53", () => {
  assert.equal(read({ seed: "0" }).values.seed, 0);
  assert.equal(read({ seed: "9007199254740991" }).values.seed, 9007199254740991);
  assert.equal(read({ seed: "9007199254740992" }).values.seed, 9007199254740992n);
  assert.equal(read({ seed: "18446744073709551615" }).values.seed, 18446744073709551615n);
  assert.deepEqual(read({ seed: "18446744073709551616" }), {
    values: DEFAULTS,
    notices: ["seed: 18446744073709551616 is above 18446744073709551615; using 1"],
  });
  for (const bad of ["-3", "1.5", "1e3", "+1", "0x10", "seven"]) {
    assert.deepEqual(
      read({ seed: bad }).notices,
      [`seed: “${bad}” is not a whole number from 0 to 18446744073709551615; using 1`],
      bad,
    );
  }
});

test("the Lab's seed spec: the URL's and an embed's `seed`, read as the Tail's seed", () => {
  const lab = (seed) => readParams([SEED_PARAM], (name) => (name === "seed" ? seed : null));
  assert.equal(SEED_PARAM.name, "seed", "the Tail's name too: the pages are separate");
  assert.deepEqual(lab(null), { values: { seed: 1 }, notices: [] }, "default 1");
  assert.deepEqual(lab("7"), { values: { seed: 7 }, notices: [] });
  assert.deepEqual(lab(" 007 "), { values: { seed: 7 }, notices: [] });
  assert.deepEqual(lab("0"), { values: { seed: 0 }, notices: [] });
  // Up to 2^53 − 1 a number; past it a BigInt, exactly (a number would round 2^53 + 1 away).
  assert.equal(lab("9007199254740991").values.seed, 9007199254740991);
  assert.equal(lab("9007199254740993").values.seed, 9007199254740993n);
  assert.equal(lab("18446744073709551615").values.seed, 18446744073709551615n);
  // The three bad links of the brief, each with its notice and seed 1.
  for (const [bad, why] of [
    ["-1", "“-1” is not a whole number from 0 to 18446744073709551615"],
    ["abc", "“abc” is not a whole number from 0 to 18446744073709551615"],
    ["99999999999999999999", "99999999999999999999 is above 18446744073709551615"],
  ]) {
    assert.deepEqual(lab(bad), { values: { seed: 1 }, notices: [`seed: ${why}; using 1`] }, bad);
    // The field's check is the same one, without the fallback.
    assert.deepEqual(parseSeed(bad), [null, why], bad);
  }
  assert.deepEqual(parseSeed("18446744073709551616"), [
    null,
    "18446744073709551616 is above 18446744073709551615",
  ]);
  assert.deepEqual(parseSeed("42"), [42, null]);
  assert.deepEqual(parseSeed(""), [
    null,
    "“” is not a whole number from 0 to 18446744073709551615",
  ]);
  // What a notice quotes of a long value: 40 characters.
  assert.equal(parseSeed("9".repeat(60))[1], `${"9".repeat(40)}… is above 18446744073709551615`);
});

test("LabSeed: the sections' one seed tells its watchers of a change, until they are removed", () => {
  assert.equal(new LabSeed().value, 1);
  const seed = new LabSeed(7);
  const heard = [];
  const removed = new AbortController();
  seed.watch((v) => heard.push(["a", v]));
  seed.watch((v) => heard.push(["b", v]), removed.signal);
  seed.set(7); // no change: nobody hears
  seed.set(18446744073709551615n);
  removed.abort();
  seed.set(3);
  const gone = new AbortController();
  gone.abort();
  seed.watch((v) => heard.push(["c", v]), gone.signal); // already removed: never hears
  seed.set(4);
  assert.deepEqual(heard, [
    ["a", 18446744073709551615n],
    ["b", 18446744073709551615n],
    ["a", 3],
    ["a", 4],
  ]);
  assert.equal(seed.value, 4);
});

test("quoted: at most 40 characters of what was given", () => {
  assert.equal(quoted(""), "");
  assert.equal(quoted("x".repeat(40)), "x".repeat(40));
  assert.equal(quoted("x".repeat(41)), `${"x".repeat(40)}…`);
});

/** True when `text` holds a lone surrogate (half of a character outside the BMP). */
const broken = (text) =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

test("quoted counts characters, not UTF-16 units: an emoji is never cut in half (issue 32, item 12)", () => {
  // "a" then emoji (two UTF-16 units each): the 40th unit is the first half of an emoji, where
  // a cut by units left a lone surrogate.
  const text = `a${"😀".repeat(50)}`;
  const q = quoted(text);
  assert.ok(!broken(q), JSON.stringify(q));
  assert.equal(q, `a${"😀".repeat(39)}…`, "40 characters, then the ellipsis");
  assert.equal([...q].length, 41);
  // At most 40 characters kept, whatever mix of one- and two-unit characters.
  for (let k = 0; k < 45; k++) {
    const mixed = `${"b".repeat(k)}${"𝄞".repeat(50)}`;
    const out = quoted(mixed);
    assert.ok(!broken(out), `k=${k}: ${JSON.stringify(out)}`);
    assert.equal([...out].length, 41, `k=${k}`);
    assert.ok(mixed.startsWith(out.slice(0, -1)), `k=${k}`);
  }
  // Up to 40 characters (as many as 80 units) are kept whole, with no ellipsis.
  assert.equal(quoted("😀".repeat(40)), "😀".repeat(40));
  assert.equal(quoted("😀".repeat(41)), `${"😀".repeat(40)}…`);
  // A long text is walked only as far as its 41st character.
  const long = `${"🙂".repeat(5_000_000)}`;
  assert.equal(quoted(long), `${"🙂".repeat(40)}…`);
});

test("hostile input: values come only from the specs, notices quote at most 40 characters", () => {
  const hostile = [
    "<img src=x onerror=alert(1)>",
    '"><script>alert(1)</script>',
    "javascript:alert(1)",
    "__proto__",
    "constructor",
    "toString",
    "1<script>",
    `${"9".repeat(500)}<b>`,
    "\u0000\u202e\ufffe",
    "=cmd|' /C calc'!A0",
  ];
  for (const text of hostile) {
    const { values, notices } = read({ fanout: text, p: text, profile: text, n: text, seed: text });
    assert.ok(Number.isInteger(values.fanout) && values.fanout >= 1 && values.fanout <= 256, text);
    assert.ok(Number.isFinite(values.p) && values.p >= 0.001 && values.p <= 0.2, text);
    assert.ok(SPECS[2].values.includes(values.profile), text);
    assert.ok(SPECS[3].values.includes(values.n), text);
    assert.ok(typeof values.seed === "number" || typeof values.seed === "bigint", text);
    assert.equal(notices.length, 5, text);
    for (const notice of notices) {
      // The notice's only outside text is the quote: at most 40 characters (and an ellipsis).
      const quote = text.trim().length > 40 ? `${text.trim().slice(0, 40)}…` : text.trim();
      assert.ok(notice.includes(quote), notice);
      assert.ok(!notice.includes(text.trim().slice(0, 41)) || text.trim().length <= 40, notice);
    }
  }
  // An enum named like a prototype member is still only one of its values.
  const proto = read({ profile: "__proto__" }, [
    { name: "profile", type: "enum", values: ["a"], default: "a" },
  ]);
  assert.deepEqual(Object.keys(proto.values), ["profile"]);
  assert.equal(proto.values.profile, "a");
});

test("settings are asked for by name, only the specs' names, once each", () => {
  const asked = [];
  readParams(SPECS, (name) => {
    asked.push(name);
    return null;
  });
  assert.deepEqual(
    asked,
    SPECS.map((s) => s.name),
  );
});

test("fromUrl reads the page's query; writeUrl writes it back with replaceState, coalesced", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const replaced = [];
  globalThis.location = new URL("http://x/tail.html?fanout=3&profile=%3Cb%3E&other=1");
  globalThis.history = {
    state: { kept: true },
    replaceState: (state, title, url) => replaced.push({ state, title, url: String(url) }),
  };
  try {
    const get = fromUrl();
    assert.equal(get("fanout"), "3");
    assert.equal(get("profile"), "<b>");
    assert.equal(get("seed"), null);
    // A dragged slider: three writes inside 150 ms become one, the last values winning.
    writeUrl({ fanout: 4 });
    writeUrl({ fanout: 5 });
    writeUrl({ fanout: 6, profile: "a b&c", seed: 18446744073709551615n });
    assert.deepEqual(replaced, []);
    t.mock.timers.tick(150);
    assert.equal(replaced.length, 1);
    assert.deepEqual(replaced[0].state, { kept: true });
    const url = new URL(replaced[0].url);
    assert.equal(url.searchParams.get("fanout"), "6");
    assert.equal(url.searchParams.get("profile"), "a b&c", "values are encoded, not spliced in");
    assert.equal(url.searchParams.get("seed"), "18446744073709551615");
    assert.equal(url.searchParams.get("other"), "1", "other parameters are kept");
    // The next write starts a new window.
    writeUrl({ fanout: 7 });
    t.mock.timers.tick(150);
    assert.equal(replaced.length, 2);
  } finally {
    delete globalThis.location;
    delete globalThis.history;
  }
});
