// An animated view of the loaded replicas' queues: a trace of the core's own run (traceLoaded,
// run in the Lab's workers) at the section's load, policy and cancellation rule, played back
// through balance/queues.js's player: one bar per replica, primaries solid and backups striped
// on top. No model logic: every count is the trace's.

import { bars, maxOf, queuePlayer } from "../balance/queues.js";

/**
 * @typedef {import("../../api.js").Core extends { traceLoaded: (...a: never[]) => infer R }
 *   ? R : never} LoadedTrace
 */

const KIND = ["an arrival", "a hedge timer", "a completion"];

/**
 * The loaded section's view: the Lab's replicas at the section's settings.
 * @param {HTMLElement} root
 * @param {AbortSignal} [signal]
 */
export function mountLoadedQueues(root, signal) {
  /** @type {ReturnType<typeof queuePlayer<LoadedTrace>>} */
  const player = queuePlayer(root, {
    name: "loaded",
    caption:
      "The replicas, played from the core's own run (300 requests after 2,000 of warm-up): each bar is a replica's queue, its primaries solid and its backups striped on top.",
    times: (t) => t.times,
    describe(t, i) {
      const n = t.replicas;
      const p = t.primaries.subarray(i * n, (i + 1) * n);
      const b = t.backups.subarray(i * n, (i + 1) * n);
      const total = [...p].map((x, r) => x + b[r]).join(",");
      return `${n} replicas (numbered 1 to ${n}); copies at each ${total}; of them backups ${[...b].join(",")}; event ${i + 1} of ${t.times.length} (t = ${Math.round(t.times[i])} ms): ${KIND[t.kind[i]] ?? "an event"}`;
    },
    paint(ctx, labels, t, i, size, colors) {
      const n = t.replicas;
      const p = t.primaries.subarray(i * n, (i + 1) * n);
      const b = t.backups.subarray(i * n, (i + 1) * n);
      let top = 4;
      for (let k = 0; k < t.primaries.length; k++)
        top = Math.max(top, t.primaries[k] + t.backups[k]);
      bars(ctx, labels, size, colors, {
        counts: [...p].map((x, r) => [x, b[r]]),
        top: Math.max(top, maxOf([])),
        outlined: [],
        marked: -1,
        left: -1,
        title: `t = ${(t.times[i] / 1000).toFixed(2)} s, ${KIND[t.kind[i]] ?? "an event"}`,
      });
    },
    signal,
  });
  return {
    canvas: player.canvas,
    /** Follows the section's settings: a new trace at this load, policy and rule. */
    follow({ load, policy, cancellation, delayBasis, seed, service = undefined }) {
      player.request({
        fn: "traceLoaded",
        args: [
          {
            load,
            policy,
            cancellation,
            delayBasis,
            requests: 300,
            warmup: 2000,
            seed,
            ...(service && { service }),
          },
        ],
      });
    },
  };
}
