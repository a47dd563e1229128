// The Tail loop the wasm ÷ native figure compares, timed the same way in the bench page
// (`?leaf=1`) and in node (tests/bench/wasm-leaf.mjs --node), and as the native benchmark
// times it (`cargo bench -p tail-lab-core -- tail-leaf`): `TailRun.run` at fan-out 100 on the
// default profile with no fix, after a reset; ns a request, median of five after a warm-up.

/** ns per request of `requests` fan-out-100 requests in a `TailRun` of `TailRunClass`. */
export function tailLeafNsPerRequest(TailRunClass, requests) {
  const run = new TailRunClass({ fanout: 100, profile: "default", fix: "none", seed: 1 });
  const once = () => {
    run.reset();
    const t0 = performance.now();
    run.run(requests);
    return performance.now() - t0;
  };
  once();
  const times = Array.from({ length: 5 }, once).sort((a, b) => a - b);
  run.free();
  return (times[2] * 1e6) / requests;
}
