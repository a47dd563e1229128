// <tail-lab-panel>: any Lab or Tail panel in someone else's page, with one script tag and one
// element (embed-panel.js says what a panel is and what a host page can rely on):
//
//   <script src="https://…/embed.js" defer></script>
//   <tail-lab-panel kind="histograms" fanout="100" profile="gc-pause"></tail-lab-panel>
//
// This file is the bootstrap: it defines the element, gives each panel a visible box at once,
// and loads the panel's code (embed-panel.js and what it imports) with a dynamic import. When
// that cannot load (the lab's host sends no CORS headers to this page's origin, a file is
// missing, the network is down), each panel says so in plain words instead of staying 0 px
// tall. It has no `import`, `export` or `import.meta`, so it runs as a classic script (which a
// browser loads from another origin without CORS, so the message can show) or as a module
// (`type="module"`, as panel.html imports it).

{
  const NAME = "tail-lab-panel";
  /** This script's address, when it runs as a classic script (for the message's link). */
  const script =
    document.currentScript instanceof HTMLScriptElement ? document.currentScript : null;
  const base = script?.src ? new URL("./", script.src) : null;

  /** The panel's code, imported once per page: `{ connect, disconnect }`. */
  let loading = null;
  /** The module once it has loaded, else null. */
  let loaded = null;
  // As a classic script from another origin, a relative import() would resolve against
  // about:blank (Chromium: "import() is called from a CORS-cross-origin script"), so the module
  // is named by its absolute address; as a module, relative to this file.
  const load = () => {
    loading ??= (
      base ? import(new URL("embed-panel.js", base).href) : import("./embed-panel.js")
    ).then((m) => {
      loaded = m;
      return m;
    });
    return loading;
  };

  // The bootstrap's own look: no file to load, sizes in px and colours set here, so the box and
  // its message read on any host page (the host's CSS does not reach into a shadow root).
  const BOOT_CSS = `
:host { display: block; }
.boot { margin: 0; padding: 12px 14px; border: 1px solid #9aa3ab; border-radius: 8px;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; background: #fff; color: #1d232a; }
.boot a { color: #0d6e66; }
@media (prefers-color-scheme: dark) {
  :host(:not([theme=light])) .boot { background: #1b2026; color: #e6e9ec; border-color: #5c6670; }
  :host(:not([theme=light])) .boot a { color: #5fd4c6; }
}
:host([theme=dark]) .boot { background: #1b2026; color: #e6e9ec; border-color: #5c6670; }
:host([theme=dark]) .boot a { color: #5fd4c6; }`;

  /** Shows `text` (and a link to the lab, when its address is known) as the panel's only content. */
  const show = (host, text, role) => {
    const shadow = host.shadowRoot ?? host.attachShadow({ mode: "open" });
    const style = document.createElement("style");
    style.textContent = BOOT_CSS;
    const p = document.createElement("p");
    p.className = "boot";
    p.setAttribute("role", role);
    p.textContent = text;
    if (role === "alert" && base) {
      const a = document.createElement("a");
      a.href = base.href;
      a.target = "_blank";
      a.rel = "noopener";
      a.textContent = "Open Tail Latency Lab on its own site.";
      p.append(" ", a);
    }
    shadow.replaceChildren(style, p);
  };

  const failed = (host, error) => {
    show(
      host,
      `Tail Latency Lab could not load its files (${error?.message ?? error}). If this page is on another site than the lab, the lab's host must allow it: it has to send Access-Control-Allow-Origin with the lab's files.`,
      "alert",
    );
    host.dataset.failed = "true";
  };

  /** Hands `host` to the panel's code; should that throw (a host page broke a built-in it
   * needs), the panel says so rather than staying on "loading…" with an uncaught error. */
  const connect = (host, m) => {
    try {
      m.connect(host);
    } catch (e) {
      show(host, `Tail Latency Lab could not start: ${e?.message ?? e}`, "alert");
      host.dataset.failed = "true";
    }
  };

  class TailLabPanel extends HTMLElement {
    connectedCallback() {
      if (loaded) {
        connect(this, loaded);
        return;
      }
      if (!this.shadowRoot) show(this, "Tail Latency Lab: loading…", "status");
      load().then(
        (m) => connect(this, m),
        (e) => failed(this, e),
      );
    }

    disconnectedCallback() {
      loaded?.disconnect(this);
    }
  }

  if (!customElements.get(NAME)) customElements.define(NAME, TailLabPanel);
}
