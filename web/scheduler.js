// One frame loop for every live panel on a page. Each frame's simulation budget is split across
// the panels that are on screen and have work; panels scrolled out of view pause
// (IntersectionObserver), a hidden tab pauses everything, and when no panel has anything to do
// the loop stops asking for frames at all.

/** Main-thread time per frame spent simulating, shared by all panels (ms). */
export const FRAME_BUDGET_MS = 12;

const tasks = new Set();
let frameRequested = false;
let wakeTimer = null;

const observer = new IntersectionObserver((entries) => {
  for (const e of entries) {
    for (const t of tasks) if (t.element === e.target) t.visible = e.isIntersecting;
  }
  wake();
});

function frame(now) {
  frameRequested = false;
  if (document.hidden) return;
  const due = [...tasks].filter((t) => t.visible && t.want(now) === true);
  const budget = FRAME_BUDGET_MS / Math.max(1, due.filter((t) => t.hasWork()).length);
  for (const t of due) t.frame(now, budget);
  wake();
}

/** Asks for a frame if any visible panel wants one now, or sets a timer for the earliest wish. */
export function wake() {
  if (frameRequested || document.hidden) return;
  const now = performance.now();
  let earliest = Infinity;
  for (const t of tasks) {
    if (!t.visible) continue;
    const w = t.want(now);
    if (w === true) {
      frameRequested = true;
      requestAnimationFrame(frame);
      return;
    }
    if (typeof w === "number") earliest = Math.min(earliest, w);
  }
  clearTimeout(wakeTimer);
  if (Number.isFinite(earliest)) wakeTimer = setTimeout(wake, Math.max(0, earliest - now));
}

document.addEventListener("visibilitychange", wake);

/**
 * Registers a panel: `element` is what must be on screen; `want(now)` returns true for a frame
 * now, a time (ms, performance.now) to be woken at, or null for nothing; `hasWork()` says
 * whether it will simulate (and so takes a share of the budget); `frame(now, budgetMs)` does
 * one frame's work and drawing. Returns a function that unregisters it.
 */
export function register({ element, want, hasWork, frame: onFrame }) {
  const task = { element, want, hasWork, frame: onFrame, visible: true };
  tasks.add(task);
  observer.observe(element);
  wake();
  return () => {
    tasks.delete(task);
    observer.unobserve(element);
  };
}

/** Resolves in a new task (a MessageChannel hop: no 4 ms timer clamp), letting input and paint in. */
export function nextTask() {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => resolve();
    port2.postMessage(null);
  });
}
