// `node tests/bench/wasm-leaf.mjs [--quick]`: the wasm core's fan-out-100 Tail loop in node,
// one line in the native benchmark's format (ns per request, median of 5 after a warm-up).
// `cargo xtask bench` runs it in alternation with `cargo bench -p tail-lab-core -- tail-leaf`,
// the same loop natively, and takes wasm ÷ native within each round: this machine's speed
// drifts too much between a native run and a browser run minutes apart.

import { loadPackage } from "../support.mjs";

const requests = process.argv.includes("--quick") ? 100 : 100_000;
const pkg = await loadPackage();
const run = new pkg.TailRun({ fanout: 100, profile: "default", fix: "none", seed: 1 });
const once = () => {
  run.reset();
  const t0 = performance.now();
  run.run(requests);
  return performance.now() - t0;
};
once();
const times = Array.from({ length: 5 }, once).sort((a, b) => a - b);
const nsPerRequest = (times[2] * 1e6) / requests;
console.log(`fan-out-100 request into histograms, fix none (wasm in node) ${nsPerRequest.toFixed(2)} ns/request`);
