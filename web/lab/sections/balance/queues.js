// An animated view of the queues themselves: a trace of the core's own chain (traceSupermarket,
// run in the Lab's workers) played back time-scaled through the page's frame loop, one bar per
// server growing and shrinking, an arrival's sampled servers outlined and the one it joined
// marked. Paused off screen (the frame loop's visibility) and under prefers-reduced-motion,
// where "play" and "step" move it. The player (`queuePlayer`) is shared with the loaded
// section's view of its replicas (loaded/queues.js). No model logic: every length is the trace's.

import { el } from "../../../dom.js";
import { Labels } from "../../../labels.js";
import { register, soon, wake } from "../../../scheduler.js";
import { palette, onThemeChange } from "../../../theme.js";
import { SimClient } from "../../sim.js";

const reducedMotion = () =>
  globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;

/** Events shown per second of playback (the trace's time is scaled to it). */
const EVENTS_PER_SECOND = 4;
/** The canvas's CSS height (px). */
const HEIGHT = 170;

/**
 * A trace's player: a figure (caption, role=img canvas, "play"/"pause" and "step" buttons)
 * appended to `root`. `request(call)` asks the workers for a trace (a fresh client for the one
 * call, closed when it answers, so the section's own sweep is not superseded); `describe(i)`
 * is the text alternative at event `i`; `paint(ctx, labels, i, box)` draws event `i`.
 * @template T
 * @param {HTMLElement} root
 * @param {{
 *   name: string,
 *   caption: string,
 *   times: (trace: T) => Float64Array,
 *   describe: (trace: T, i: number) => string,
 *   paint: (ctx: CanvasRenderingContext2D, labels: Labels, trace: T, i: number,
 *     size: { width: number, height: number }, colors: Record<string, string>) => void,
 *   signal?: AbortSignal,
 * }} spec
 */
export function queuePlayer(root, { name, caption, times, describe, paint, signal }) {
  const canvas = /** @type {HTMLCanvasElement} */ (
    el("canvas", { role: "img", "aria-label": "queues: loading", "data-queues": name })
  );
  canvas.style.height = `${HEIGHT}px`;
  const play = el("button", { type: "button", "data-queues-play": "" });
  const step = el("button", { type: "button", "data-queues-step": "", text: "step" });
  const status = el("span", { class: "queues-status" });
  const figure = el(
    "figure",
    { class: "queues", "data-queues-figure": name },
    el("figcaption", { text: caption }),
    canvas,
    el("div", { class: "queues-controls" }, play, step, status),
  );
  root.append(figure);
  /** @type {T | null} */
  let trace = null;
  let index = 0;
  let clock = 0;
  let last = null;
  let playing = !reducedMotion();
  let client = null;
  let generation = 0;

  const setPlaying = (on) => {
    playing = on;
    play.textContent = on ? "pause" : "play";
    play.setAttribute("aria-pressed", String(on));
    canvas.dataset.playing = String(on);
    last = null;
    if (on) wake();
  };
  setPlaying(playing);

  function draw() {
    // The drawn box (inside the canvas's border) times the pixel ratio: sharp text.
    const width = canvas.clientWidth || 300;
    const height = canvas.clientHeight || HEIGHT;
    const dpr = globalThis.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * dpr)) canvas.width = Math.round(width * dpr);
    if (canvas.height !== Math.round(height * dpr)) canvas.height = Math.round(height * dpr);
    const ctx = canvas.getContext("2d");
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const colors = palette(canvas);
    ctx.fillStyle = colors.bg;
    ctx.fillRect(0, 0, width, height);
    const labels = new Labels(ctx, width, height);
    if (trace && times(trace).length > 0) {
      paint(ctx, labels, trace, index, { width, height }, colors);
      const label = describe(trace, index);
      if (canvas.getAttribute("aria-label") !== label) canvas.setAttribute("aria-label", label);
      canvas.dataset.event = String(index);
    } else {
      labels.place("loading the trace…", [{ x: 8, y: 16 }], { color: colors.muted });
    }
    labels.publish(canvas);
  }

  /** Moves to event `i` (wrapping to the start after the last). */
  function show(i) {
    if (!trace) return;
    const t = times(trace);
    index = i >= t.length ? 0 : i;
    clock = t[index];
    draw();
  }

  const unregister = register({
    element: canvas,
    want: () => (playing && trace !== null ? true : null),
    hasWork: () => false,
    frame(now) {
      if (!trace) return;
      const t = times(trace);
      const span = t[t.length - 1] - t[0];
      // Trace time per ms of playback: EVENTS_PER_SECOND events a second on average.
      const rate = span > 0 ? (span / Math.max(1, t.length - 1)) * (EVENTS_PER_SECOND / 1000) : 0;
      // Off screen or in a hidden tab no frame comes; the first one back moves at most 100 ms.
      const dt = last === null ? 0 : Math.min(100, now - last);
      last = now;
      clock += dt * rate;
      let i = index;
      while (i + 1 < t.length && t[i + 1] <= clock) i++;
      if (i + 1 >= t.length && clock > t[t.length - 1] + rate * 1000) i = t.length;
      if (i !== index) show(i);
    },
  });
  play.addEventListener("click", () => setPlaying(!playing));
  step.addEventListener("click", () => {
    setPlaying(false);
    show(index + 1);
  });
  onThemeChange(() => soon(draw), signal);
  const resized = new ResizeObserver(() => soon(draw));
  resized.observe(canvas);
  signal?.addEventListener("abort", () => {
    unregister();
    resized.disconnect();
    client?.close();
  });

  return {
    canvas,
    /**
     * Asks the workers for the trace of `call`, replacing the one shown when it arrives (a
     * newer request wins). The view restarts at the trace's first event.
     * @param {import("../../sim.js").Call} call
     */
    request(call) {
      const mine = ++generation;
      client?.close();
      const c = new SimClient({ root });
      client = c;
      status.textContent = "loading the trace…";
      c.run([call], {
        onPoint: (_, result, error) => {
          c.close();
          if (client === c) client = null;
          if (mine !== generation) return;
          if (error || !result) {
            status.textContent = `the trace could not be computed: ${error ?? "no answer"}`;
            return;
          }
          status.textContent = "";
          trace = /** @type {T} */ (result);
          // The arguments, for tests and readers of the page (a BigInt seed as its digits).
          canvas.dataset.trace = JSON.stringify(call.args[0], (_, v) =>
            typeof v === "bigint" ? String(v) : v,
          );
          show(0);
          if (playing) setPlaying(true);
        },
      });
    },
  };
}

/**
 * @typedef {import("../../api.js").Core extends { traceSupermarket: (...a: never[]) => infer R }
 *   ? R : never} SupermarketTrace
 */

/** The arrivals before event `i` of `t` (so event `i`, an arrival, is arrival number that + 1). */
function arrivalsBefore(t, i) {
  let n = 0;
  for (let k = 0; k < i; k++) n += t.arrival[k];
  return n;
}

/** The servers event `i` (an arrival) sampled, in draw order (none for a departure). */
function sampledAt(t, i) {
  if (t.arrival[i] !== 1) return [];
  const j = arrivalsBefore(t, i);
  return [...t.sampled.subarray(j * t.d, (j + 1) * t.d)];
}

/**
 * The balance section's view: ten servers at the section's λ and d.
 * @param {HTMLElement} root
 * @param {AbortSignal} [signal]
 */
export function mountBalanceQueues(root, signal) {
  /** @type {ReturnType<typeof queuePlayer<SupermarketTrace>>} */
  const player = queuePlayer(root, {
    name: "balance",
    caption:
      "Ten servers, played from the core's own chain (200 arrivals after 1,000 of warm-up): each bar is a queue; an arrival's sampled servers are outlined and the one it joined is marked ▼.",
    times: (t) => t.times,
    describe(t, i) {
      const n = t.servers;
      const lengths = [...t.lengths.subarray(i * n, (i + 1) * n)].join(",");
      const at = `t = ${t.times[i].toFixed(1)}`;
      const what =
        t.arrival[i] === 1
          ? `arrival ${arrivalsBefore(t, i) + 1} sampled server${t.d === 1 ? "" : "s"} ${sampledAt(
              t,
              i,
            )
              .map((s) => s + 1)
              .join(" and ")}, joined ${t.server[i] + 1}`
          : `a job left server ${t.server[i] + 1}`;
      return `${n} servers (numbered 1 to ${n}); queue lengths ${lengths}; event ${i + 1} of ${t.times.length} (${at}): ${what}`;
    },
    paint(ctx, labels, t, i, size, colors) {
      const n = t.servers;
      const row = t.lengths.subarray(i * n, (i + 1) * n);
      const picks = sampledAt(t, i);
      const joined = t.arrival[i] === 1 ? t.server[i] : -1;
      bars(ctx, labels, size, colors, {
        counts: [...row].map((l) => [l, 0]),
        top: maxOf(t.lengths),
        outlined: picks,
        marked: joined,
        left: t.arrival[i] === 0 ? t.server[i] : -1,
        title: `t = ${t.times[i].toFixed(1)} service times`,
      });
    },
    signal,
  });
  return {
    canvas: player.canvas,
    /** Follows the section's settings: a new trace at this λ and d. */
    follow(lambda, d, seed) {
      player.request({
        fn: "traceSupermarket",
        args: [{ servers: 10, lambda, d, arrivals: 200, warmup: 1000, seed }],
      });
    },
  };
}

/** The largest value of `xs` (at least 4, so a quiet trace does not fill the height). */
export function maxOf(xs) {
  let m = 4;
  for (const x of xs) if (x > m) m = x;
  return m;
}

/**
 * Draws one bar per queue: `counts[s]` = [solid, hatched] stacked (primaries and backups; the
 * balance view has no second part), `outlined` servers framed, the `marked` one with ▼ above
 * it, the one a job `left` with ▲ below it, and each bar's total above it where it fits.
 * @param {CanvasRenderingContext2D} ctx
 * @param {Labels} labels
 * @param {{ width: number, height: number }} size
 * @param {Record<string, string>} colors
 * @param {{ counts: [number, number][], top: number, outlined: number[], marked: number,
 *   left: number, title: string }} what
 */
export function bars(ctx, labels, { width, height }, colors, what) {
  const { counts, top, outlined, marked, left, title } = what;
  const n = counts.length;
  const pad = { l: 8, r: 8, t: 34, b: 24 };
  const slot = (width - pad.l - pad.r) / n;
  const barW = Math.max(4, slot * 0.6);
  const unit = (height - pad.t - pad.b) / top;
  const base = height - pad.b;
  labels.place(title, [{ x: pad.l, y: 12 }], { color: colors.muted });
  ctx.strokeStyle = colors.axis;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(pad.l, base + 0.5);
  ctx.lineTo(width - pad.r, base + 0.5);
  ctx.stroke();
  labels.block(pad.l, base - 1, width - pad.l - pad.r, 2);
  for (let s = 0; s < n; s++) {
    const [solid, hatched] = counts[s];
    const x = pad.l + s * slot + (slot - barW) / 2;
    const h1 = Math.min(solid, top) * unit;
    const h2 = Math.min(hatched, Math.max(0, top - solid)) * unit;
    ctx.fillStyle = colors.none;
    ctx.fillRect(x, base - h1, barW, h1);
    if (h2 > 0) {
      // Backups: outlined and striped, so they differ from primaries by more than hue.
      ctx.save();
      ctx.beginPath();
      ctx.rect(x, base - h1 - h2, barW, h2);
      ctx.clip();
      ctx.strokeStyle = colors.hedge;
      ctx.lineWidth = 2;
      for (let k = -barW; k < h2 + barW; k += 6) {
        ctx.beginPath();
        ctx.moveTo(x, base - h1 - k);
        ctx.lineTo(x + barW, base - h1 - k - barW);
        ctx.stroke();
      }
      ctx.restore();
      ctx.strokeStyle = colors.hedge;
      ctx.lineWidth = 1.5;
      ctx.strokeRect(x + 0.75, base - h1 - h2 + 0.75, barW - 1.5, h2 - 1.5);
    }
    const h = h1 + h2;
    labels.block(x, base - h, barW, h);
    if (outlined.includes(s)) {
      ctx.strokeStyle = colors.hedge;
      ctx.lineWidth = 2;
      ctx.setLineDash([4, 2]);
      ctx.strokeRect(x - 3, pad.t - 4, barW + 6, base - pad.t + 4);
      ctx.setLineDash([]);
    }
    const cx = x + barW / 2;
    if (s === marked) triangle(ctx, cx, pad.t - 8, 6, colors.ink, "down");
    if (s === left) triangle(ctx, cx, base + 10, 6, colors.muted, "up");
    labels.place(String(solid + hatched), [{ x: cx, y: base - h - 6, align: "center" }], {
      color: colors.ink,
    });
  }
}

function triangle(ctx, x, y, r, color, dir) {
  ctx.fillStyle = color;
  ctx.beginPath();
  const s = dir === "down" ? 1 : -1;
  ctx.moveTo(x - r, y - s * r);
  ctx.lineTo(x + r, y - s * r);
  ctx.lineTo(x, y + s * r * 0.6);
  ctx.closePath();
  ctx.fill();
}
