// The Tail page: the piece mounted into <main>, its settings read from and written back to the
// URL, and a download bar under each chart.

import { followClaims } from "../claims.js";
import { exportBar } from "../export.js";
import { showNotice } from "../notice.js";
import { fromUrl, readParams, writeUrl } from "../params.js";
import { loadCore } from "../wasm.js";
import { live } from "./claims.js";
import { mountTail, tailParams } from "./piece.js";
import { workersFromUrl } from "../workers.js";

const TITLES = {
  arena: "One request",
  histograms: "Leaf and parent histograms",
  strip: "Parent percentiles against fan-out",
};

async function main() {
  const api = await loadCore();
  const root = document.getElementById("tail");
  const { values, notices } = readParams(tailParams(api), fromUrl());
  if (notices.length)
    showNotice(`Some link settings were adjusted: ${notices.join("; ")}.`, { error: false });
  // `?workers=N` (0–8) overrides how many workers accumulate: a test and benchmark hook (0 runs
  // the accumulation on the main thread, as a page without workers would).
  const workers = workersFromUrl(0);
  // The prose's numbers that are closed forms of the fan-out follow the slider (web/claims.js).
  const follow = followClaims(
    root,
    "tail",
    live,
    api,
    readParams(tailParams(api), () => null).values,
  );
  follow(values);
  const piece = await mountTail(root, {
    api,
    values,
    workers,
    parts: ["controls", "readouts", "arena", "histograms", "strip"],
    onChange: (settings) => {
      writeUrl(settings);
      follow(settings);
    },
  });
  for (const [name, canvas] of Object.entries(piece.canvases)) {
    exportBar(canvas.closest("figure"), {
      name: `tail-${name}`,
      title: TITLES[name],
      canvas,
      draw: (target) => piece.drawOnto(name, target),
      table: () => piece.table(name),
      meta: () => piece.settings(),
    });
  }
  document.body.dataset.ready = "true";
}

main().catch((e) => showNotice(`The simulation could not start: ${e.message}`));
