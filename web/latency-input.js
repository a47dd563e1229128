// The paste box for a reader's own latencies, shared by the Lab's "your data" section and the
// Tail page: a labelled textarea, a file input (a file can also be dropped on the box), the
// buttons, and a status line (`role=status`) that says what was read or names the bad line.
// It reads nothing itself: `onSource(source, what)` gets the text (a Blob when it is long, so a
// worker can read it off the main thread) or the chosen file, and the caller parses it in a
// worker and reports back through `say`.

import { el } from "./dom.js";
import { formatCount } from "./format.js";
import { quoted } from "./params.js";

/** Pasted text longer than this (characters) goes to the worker as a Blob, not a string. */
export const BLOB_ABOVE = 256 * 1024;
/** The largest file read, in bytes: the core's own limit (`parseLatencies`). */
export const MAX_BYTES = 200_000_000;

/** The characters a summary may hold: digits, letters (p, min, max, units), `.:,%=+ -`. */
const SUMMARY_CHARS = /^[0-9A-Za-z.:,%=+ -]$/;
/** The longest summary a link may carry. */
const SUMMARY_LENGTH = 300;

/**
 * The setting `data`: a short percentile summary of a reader's model (what a link carries,
 * never the data), checked here for its length and characters and read further by the core.
 * The Lab's your-data section and the Tail page share it.
 */
export const SUMMARY_PARAM = Object.freeze({
  name: "data",
  type: "string",
  default: "",
  examples: ["p50:4,p90:9,p99:40,p99.9:300"],
  /** @param {string} text */
  parse: (text) => {
    if (text.length > SUMMARY_LENGTH)
      return ["", `it is longer than ${SUMMARY_LENGTH} characters; using none`];
    const bad = [...text].find((c) => !SUMMARY_CHARS.test(c));
    if (bad !== undefined) return ["", `“${bad}” is not allowed in it; using none`];
    return [text, null];
  },
});

/**
 * Said after an accepted read whose data no link can carry (`parseLatencies` gave no
 * `percentiles`: no short summary of it reads back): the page uses the data, and a link copied
 * now opens the default model instead of one the page would refuse.
 */
export const NO_LINK_NOTE =
  " A link cannot carry these latencies (no short summary of them reads back): a link copied now opens the default model.";

/** A worker's error text without its class name ("RangeError: line 3: …" → "line 3: …"). */
export const plain = (message) => String(message).replace(/^(Range|Type)Error: /, "");

/**
 * Builds the box. `prefix` makes its ids unique (`${prefix}data-text`, `${prefix}data-file`,
 * `${prefix}data-status`); `onSource(source, what)` hears a paste (button "use these
 * latencies") or a file; `onExample()` hears "use the example"; `buttons` are more buttons for
 * the row (the Lab's "back to the Lab's model").
 * @param {{
 *   prefix?: string,
 *   label?: string,
 *   onSource: (source: string | Blob, what: string) => void,
 *   onExample: () => void,
 *   buttons?: HTMLElement[],
 * }} options
 */
export function latencyInput({
  prefix = "",
  label = "your latencies",
  onSource,
  onExample,
  buttons = [],
}) {
  const statusId = `${prefix}data-status`;
  const area = /** @type {HTMLTextAreaElement} */ (
    el("textarea", {
      id: `${prefix}data-text`,
      rows: 6,
      spellcheck: "false",
      autocomplete: "off",
      placeholder:
        "12.5\n9.1\n… one latency per line (ms), a CSV, an HdrHistogram or Prometheus histogram, or p50 4ms, p99 30ms",
      "aria-describedby": statusId,
    })
  );
  const file = /** @type {HTMLInputElement} */ (
    el("input", {
      type: "file",
      id: `${prefix}data-file`,
      accept: ".txt,.csv,.tsv,.log,.hgrm,.prom,text/plain,text/csv",
    })
  );
  const use = el("button", { type: "button", "data-action": "use", text: "use these latencies" });
  const example = el("button", {
    type: "button",
    "data-action": "example",
    text: "use the example",
  });
  const element = el(
    "div",
    { class: "data-input" },
    el("label", { for: area.id, text: label }),
    area,
    el(
      "div",
      { class: "data-file" },
      el("label", { for: file.id, text: "or a file (it is read here, never sent)" }),
      file,
    ),
    el("div", { class: "data-actions" }, use, example, ...buttons),
  );
  const status = el("p", {
    id: statusId,
    class: "data-status",
    role: "status",
    "data-part": "data-status",
  });

  /** Says `text` on the status line; an error is marked `data-error`. */
  const say = (text, error = false) => {
    status.textContent = text;
    if (error) status.dataset.error = "true";
    else delete status.dataset.error;
  };

  /** The text in the box as the worker gets it: a Blob when it is long. */
  const boxSource = () =>
    area.value.length > BLOB_ABOVE ? new Blob([area.value], { type: "text/plain" }) : area.value;

  use.addEventListener("click", () => {
    if (!area.value.trim()) {
      say(
        "Not used: the box is empty. Paste latencies, drop a file, or press “use the example”.",
        true,
      );
      return;
    }
    onSource(boxSource(), "your text");
  });
  example.addEventListener("click", () => onExample());
  const readFile = (f) => {
    if (!f) return;
    // A file's name is the reader's text too: quoted at most 40 characters, as a link's are.
    const name = quoted(f.name);
    if (f.size > MAX_BYTES) {
      say(
        `Not used: ${name} has ${formatCount(f.size)} bytes; the page reads at most ${formatCount(MAX_BYTES)} (about 10 million latencies). Give a histogram or percentiles of them instead.`,
        true,
      );
      return;
    }
    onSource(f, `the file ${name}`);
  };
  file.addEventListener("change", () => readFile(file.files?.[0]));
  area.addEventListener("dragover", (e) => {
    if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
  });
  area.addEventListener("drop", (e) => {
    const f = e.dataTransfer?.files?.[0];
    if (!f) return;
    e.preventDefault();
    readFile(f);
  });
  return { element, area, file, use, example, status, say, boxSource };
}
