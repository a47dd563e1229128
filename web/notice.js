// A page's two notices: `#notice` for errors (a Rust panic is a bug and is shown there too) and
// `#url-notice` for link settings that were adjusted.

/** Shows `message` in the page's error notice, or with `error: false` in its link notice. */
export function showNotice(message, { error = true } = {}) {
  const el = document.getElementById(error ? "notice" : "url-notice");
  el.textContent = message;
  el.hidden = false;
}

globalThis.tailLabOnPanic = (message) => showNotice(message);
window.addEventListener("error", (e) => showNotice(`Error: ${e.message}`));
window.addEventListener("unhandledrejection", (e) =>
  showNotice(`Error: ${e.reason?.message ?? e.reason}`),
);
