// Yielding to the event loop, with no DOM: shared by the frame scheduler and by work prepared
// over several tasks (web/tail/run.js), which must also run in node.

/**
 * Resolves in a new task (a MessageChannel hop: no 4 ms timer clamp), letting input and paint in.
 * The port is closed once heard, so nothing is left open (node would stay alive for it).
 */
export function nextTask() {
  return new Promise((/** @type {(value?: void) => void} */ resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}
