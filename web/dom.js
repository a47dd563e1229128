// Building DOM for the panels: one helper, used by the Lab's sections and the Tail piece alike.

/**
 * An element with attributes and children. `class` and `text` set the class and the text; a
 * value of `undefined`, `null` or `false` leaves the attribute out, `true` sets it empty; every
 * other value is an attribute (so a range's `value` is its default, set after `min`/`max`).
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  node.append(...children);
  return node;
}
