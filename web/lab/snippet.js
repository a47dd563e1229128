// The Lab's API as seed 000 writes it. The "In code" section shows this file as it stands and
// runs it in the page's worker; a test compares what it returns with the sections' readouts.
import {
  simulateBalance,
  simulateHedge,
  simulateLoaded,
  simulateQueue,
  slowShare,
} from "../pkg/tail_lab.js";

export function snippet() {
  return {
    share: slowShare(0.01, 100), //                         1 − 0.99^100
    hedge: simulateHedge({ delayQ: 0.95 }), //               p99.9 and extra work
    queue: simulateQueue({ servers: 4, load: 0.8 }), //       one queue, four servers
    loaded: simulateLoaded({ load: 0.6, delay: 0 }), //       duplicate every request
    balance: simulateBalance({ lambda: 0.9, policy: "two" }), // best of two queues
  };
}
