// One frame loop for every live panel on a page. Each frame's simulation budget is split across
// the panels that are on screen and have work; panels scrolled out of view pause
// (IntersectionObserver), a hidden tab pauses everything, and when no panel has anything to do
// the loop stops asking for frames at all.
//
// A frame also has a ceiling on its script time (FRAME_SLICE_MS): with thirty panels on a page,
// the panels (and the Lab's queued redraws, `soon`) that do not fit in this frame go first in
// the next one, so no frame becomes a long task however many panels there are.

/** Main-thread time per frame spent simulating, shared by all panels (ms). */
export const FRAME_BUDGET_MS = 12;
/** Script time after which a frame leaves the remaining panels and redraws to the next (ms). */
const FRAME_SLICE_MS = 8;

const tasks = new Set();
/** One-off jobs (a chart's redraw), each at most once per frame, in the order asked. */
const queued = new Set();
let frameRequested = false;
let jobsFirst = false;
let wakeTimer = null;

/** Made at the first `register`, so that importing this module needs no page (node, tests). */
let observer = null;

function visibility() {
  if (observer) return observer;
  observer = new IntersectionObserver((entries) => {
    for (const e of entries) {
      for (const t of tasks) if (t.element === e.target) t.visible = e.isIntersecting;
    }
    wake();
  });
  document.addEventListener("visibilitychange", wake);
  return observer;
}

function frame(now) {
  frameRequested = false;
  if (document.hidden) return;
  const start = performance.now();
  const full = () => performance.now() - start > FRAME_SLICE_MS;
  const due = [...tasks].filter((t) => t.visible && t.want(now) === true);
  const budget = FRAME_BUDGET_MS / Math.max(1, due.filter((t) => t.hasWork()).length);
  let ran = 0;
  const runTasks = () => {
    for (const t of due) {
      if (ran > 0 && full()) return;
      t.frame(now, budget);
      ran++;
      // Served: to the back of the line, so the ones left over go first next frame.
      if (tasks.delete(t)) tasks.add(t);
    }
  };
  const runJobs = () => {
    for (const job of [...queued]) {
      if (ran > 0 && full()) return;
      queued.delete(job);
      job();
      ran++;
    }
  };
  // Jobs left over go before the panels next frame, and the other way round, so under load
  // neither can starve the other.
  if (jobsFirst) {
    runJobs();
    runTasks();
  } else {
    runTasks();
    runJobs();
  }
  jobsFirst = queued.size > 0 && !jobsFirst;
  wake();
}

/** Asks for a frame if any visible panel wants one now, or sets a timer for the earliest wish. */
export function wake() {
  if (frameRequested || document.hidden) return;
  if (queued.size > 0) {
    frameRequested = true;
    requestAnimationFrame(frame);
    return;
  }
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

/**
 * Registers a panel: `element` is what must be on screen; `want(now)` returns true for a frame
 * now, a time (ms, performance.now) to be woken at, or null for nothing; `hasWork()` says
 * whether it will simulate (and so takes a share of the budget); `frame(now, budgetMs)` does
 * one frame's work and drawing. Returns a function that unregisters it.
 */
export function register({ element, want, hasWork, frame: onFrame }) {
  const task = { element, want, hasWork, frame: onFrame, visible: true };
  tasks.add(task);
  visibility().observe(element);
  wake();
  return () => {
    tasks.delete(task);
    observer?.unobserve(element);
  };
}

/**
 * Runs `job` in a coming frame, once however often it is asked for before then (a dragged
 * slider's input events and a burst of worker answers become one redraw). Jobs share the
 * frame's ceiling with the panels: those that do not fit run in the next frame.
 */
export function soon(job) {
  queued.add(job);
  wake();
}

/** Resolves in a new task, letting input and paint in (task.js; here for the pages' imports). */
export { nextTask } from "./task.js";
