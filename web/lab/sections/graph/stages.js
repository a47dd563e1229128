// The request graph's stages as the URL carries them: a short text, one token a stage, commas
// between. A token is `s` (a single call) or `p<width>` with `k<k>` when the stage waits for k
// of its width (a quorum); then the service: nothing for the page's service (the Lab's model, or
// the reader's own data), `.l` for the Lab's model, `.e<mean ms>` for an exponential. The search
// preset is `s,p10,s`; a 3-of-5 write `p5k3`; the chain `s.e5,s.e10,s.e20`. Parsed strictly:
// a token that is not of this form drops the whole text for the default, with a notice; a
// number out of range is clamped, with a notice. No DOM here, so node tests import it.

/** Stages a graph may have, children a parallel stage may have, and an exponential's mean range (ms): the core's limits (simulateGraph refuses anything past them). */
export const LIMITS = Object.freeze({ stages: 8, width: 1000, meanMin: 0.2, meanMax: 10_000 });

/**
 * One stage as the section holds it.
 * @typedef {{ kind: "single" | "parallel", width: number, k: number,
 *   service: "page" | "lab" | "exp", mean: number }} GraphStage
 */

const TOKEN = /^(s|p(\d{1,7})(?:k(\d{1,7}))?)(?:\.(l|e(\d{1,7}(?:\.\d{1,6})?)))?$/;

/**
 * The stages in `text`: `[stages, why]`, `why` null when the text was read as given, or a
 * sentence saying what was clamped or dropped. An unreadable text gives `[[], why]` (the
 * preset's stages).
 * @param {string} text
 * @returns {[GraphStage[], string | null]}
 */
export function parseStages(text) {
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  if (text === "") return [[], null];
  let tokens = text.split(",");
  const why = [];
  if (tokens.length > LIMITS.stages) {
    why.push(`at most ${LIMITS.stages} stages; using the first ${LIMITS.stages}`);
    tokens = tokens.slice(0, LIMITS.stages);
  }
  /** @type {GraphStage[]} */
  const stages = [];
  for (const token of tokens) {
    const m = TOKEN.exec(token);
    if (!m)
      return [
        [],
        `“${shown}” is not a list of stages (s, p10, p5k3, s.e20, p10.l, commas between); using the preset`,
      ];
    let width = 1;
    let k = 1;
    if (m[1] !== "s") {
      width = Number(m[2]);
      if (width < 1 || width > LIMITS.width) {
        const to = Math.min(LIMITS.width, Math.max(1, width));
        why.push(`a width of ${width} is outside 1..${LIMITS.width}; using ${to}`);
        width = to;
      }
      k = m[3] === undefined ? width : Number(m[3]);
      if (k < 1 || k > width) {
        const to = Math.min(width, Math.max(1, k));
        why.push(`k = ${k} is outside 1..${width}; using ${to}`);
        k = to;
      }
    }
    let service = /** @type {GraphStage["service"]} */ ("page");
    let mean = 10;
    if (m[4] === "l") service = "lab";
    else if (m[4] !== undefined) {
      service = "exp";
      mean = Number(m[5]);
      if (mean < LIMITS.meanMin || mean > LIMITS.meanMax) {
        const to = Math.min(LIMITS.meanMax, Math.max(LIMITS.meanMin, mean));
        why.push(
          `a mean of ${mean} ms is outside ${LIMITS.meanMin}..${LIMITS.meanMax}; using ${to}`,
        );
        mean = to;
      }
    }
    stages.push({ kind: m[1] === "s" ? "single" : "parallel", width, k, service, mean });
  }
  return [stages, why.length ? why.join("; ") : null];
}

/**
 * The text of `stages` (parseStages reads it back to the same stages).
 * @param {GraphStage[]} stages
 */
export function formatStages(stages) {
  return stages
    .map((s) => {
      const shape = s.kind === "single" ? "s" : `p${s.width}${s.k < s.width ? `k${s.k}` : ""}`;
      const service = s.service === "lab" ? ".l" : s.service === "exp" ? `.e${s.mean}` : "";
      return shape + service;
    })
    .join(",");
}

/**
 * The stages of a preset as `graphPresets()` lists them: a Lab-model stage runs on the page's
 * service (the call's `service`), as the preset does.
 * @param {{ kind: string, width: number, k: number, service: "lab" | { exponentialMs: number } }[]} list
 * @returns {GraphStage[]}
 */
export const fromPreset = (list) =>
  list.map((s) => ({
    kind: s.kind === "parallel" ? "parallel" : "single",
    width: s.width,
    k: s.k,
    service: s.service === "lab" ? "page" : "exp",
    mean: s.service === "lab" ? 10 : s.service.exponentialMs,
  }));

/**
 * The `stages` option of simulateGraph for `stages`; `lab` is the Lab's own service model
 * (`labDefaults().service`), for stages that ask for it whatever the page's service is.
 * @param {GraphStage[]} stages
 * @param {import("../../api.js").ServiceOptions} lab
 * @returns {import("../../api.js").GraphStageOptions[]}
 */
export const stageOptions = (stages, lab) =>
  stages.map((s) => ({
    kind: s.kind,
    ...(s.kind === "parallel" && { width: s.width, k: s.k }),
    ...(s.service === "lab" && { service: lab }),
    ...(s.service === "exp" && { service: { exponentialMs: s.mean } }),
  }));
