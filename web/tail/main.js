// The Tail page: the piece mounted into <main>, its settings read from and written back to the
// URL, and a download bar under each chart.

import { followClaims } from "../claims.js";
import { exportBar } from "../export.js";
import { showNotice } from "../notice.js";
import { fromUrl, readParams, writeUrl } from "../params.js";
import { loadCore } from "../wasm.js";
import { live } from "./claims.js";
import { exampleInWorker, parseInWorker } from "./parse.js";
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
  const { values, notices } = readParams(tailParams(api, { yours: true }), fromUrl());
  // `profile=yours&data=…`: the reader's latencies as the link's percentile summary, read (in a
  // worker) and fitted again; a link whose summary does not read keeps the default profile.
  let leaves;
  if (values.profile === "yours") {
    const answer = values.data
      ? await parseInWorker(values.data, { format: "percentiles" })
      : { error: "the link has no data (a percentile summary)" };
    if (answer.error === undefined) leaves = answer.result.service;
    else {
      notices.push(
        `profile=yours was not used: ${answer.error.replace(/^(Range|Type)Error: /, "")}`,
      );
      values.profile = "default";
      values.data = "";
    }
  }
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
      // A link carries the data's summary only while the run is on it, and "yours" only with a
      // summary: data no summary can carry (the core gives none) leaves the link on the default
      // profile rather than writing one the page would refuse.
      const carried = settings.profile === "yours" && settings.data ? settings.data : undefined;
      writeUrl({
        ...settings,
        profile: settings.profile === "yours" && !carried ? undefined : settings.profile,
        data: carried,
      });
      follow(settings);
    },
    yours: { parse: parseInWorker, example: exampleInWorker, leaves },
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
