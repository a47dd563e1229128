// The loaded section's small multiples: one small chart per cancellation rule, side by side on
// the same axes (wrapping to rows on a narrow screen), so the verdict flip is seen at a glance.
// Each is the section's own chart drawn small (draw.js); the chosen rule's is marked, and
// choosing a small multiple (a click, or Enter or Space on its button) chooses its rule, as the
// select does. The section fills them in (section.js): the chosen rule first, then the others.

import { el } from "../../section.js";

/**
 * How far one rule's points are: `done` at full size, `drafted` with any answer, of `total`.
 * @typedef {{ done: number, drafted: number, total: number }} RuleProgress
 */

/**
 * Builds the small multiples after `anchor` (the main chart's canvas).
 * @param {Element} anchor
 * @param {{ rules: string[], label: (rule: string) => string, height?: number,
 *   onChoose: (rule: string) => void }} options
 */
export function mountMultiples(anchor, { rules, label, height = 150, onChoose }) {
  const box = el("div", {
    class: "loaded-multiples",
    role: "group",
    "aria-label": `The ${rules.length} cancellation rules side by side, on the same axes`,
    "data-multiples": "",
  });
  /** @type {Map<string, { figure: HTMLElement, button: HTMLButtonElement, canvas: HTMLCanvasElement }>} */
  const parts = new Map();
  for (const rule of rules) {
    const button = /** @type {HTMLButtonElement} */ (
      el("button", { type: "button", "aria-pressed": "false", text: label(rule) })
    );
    const canvas = /** @type {HTMLCanvasElement} */ (
      el("canvas", { height, role: "img", "aria-label": `${label(rule)}: computing` })
    );
    canvas.style.height = `${height}px`;
    const figure = el(
      "figure",
      { class: "loaded-multiple", "data-rule": rule },
      el("figcaption", {}, button),
      canvas,
    );
    // The whole small chart answers a click; its button is the keyboard's way (Enter, Space).
    figure.addEventListener("click", () => onChoose(rule));
    parts.set(rule, { figure, button, canvas });
    box.append(figure);
  }
  anchor.after(box);
  const failed = new Map();

  return {
    box,
    /** The canvas of `rule`'s small multiple. */
    canvas: (rule) => parts.get(rule)?.canvas,
    /** A new sweep: no rule has failed yet. */
    reset() {
      failed.clear();
    },
    /** The other rules' sweep's progress (each small multiple shows its own, in `show`). */
    progress() {},
    /** A point of `rule` could not be computed. */
    fail(rule, message) {
      failed.set(rule, message);
    },
    /**
     * Marks the chosen rule and writes each small multiple's progress and description:
     * `progressOf(rule)` its points, `describe(rule)` its key numbers in words.
     * @param {string} chosen
     * @param {(rule: string) => RuleProgress} progressOf
     * @param {(rule: string) => string} describe
     */
    show(chosen, progressOf, describe) {
      let done = 0,
        total = 0;
      for (const [rule, { figure, button, canvas }] of parts) {
        const p = progressOf(rule);
        done += p.done;
        total += p.total;
        figure.dataset.done = String(p.done);
        figure.dataset.drafted = String(p.drafted);
        figure.dataset.total = String(p.total);
        figure.toggleAttribute("data-chosen", rule === chosen);
        button.setAttribute("aria-pressed", String(rule === chosen));
        const state = failed.has(rule)
          ? ` Some points could not be computed: ${failed.get(rule)}.`
          : p.done < p.total
            ? ` ${p.drafted < p.total ? "Computing" : "Draft shown, refining"}: ${p.done} of ${p.total} points at full size.`
            : "";
        const text = `${label(rule)}${rule === chosen ? " (chosen)" : ""}: ${describe(rule)}${state}`;
        if (canvas.getAttribute("aria-label") !== text) canvas.setAttribute("aria-label", text);
      }
      box.dataset.done = String(done);
      box.dataset.total = String(total);
    },
  };
}
