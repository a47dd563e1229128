// The numbers the tied section's prose states, each computed through the API from the
// section's default settings (see web/claims.js).

import { overSeeds, SEEDS } from "../../../claims.js";
import { SEED_PARAM } from "../../seed.js";
import { CHECK_MEAN_MS, DELAYS, REQUESTS, delayMs, params, staggerMs } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;
const setting = (name) => params.find((s) => s.name === name).default;
const LOAD = Number(setting("tied-load"));
const REPLICAS = Number(setting("tied-replicas"));
const TIE = Number(setting("tied-tie"));
const DELAY = String(setting("tied-delay"));
/** The heavier load of the prose's example, where a long message delay tips tied requests over. */
const HEAVY = 0.7;

/**
 * Runs at the default replicas under each of SEEDS, at `load`: `policy` ("tied" at message delay
 * `stop`, its siblings sent as `stagger` says: "off" or "2x").
 */
const tiedRuns = overSeeds(SEEDS, (core, seed, policy, stop, load, stagger) => {
  const base = { load, replicas: REPLICAS, requests: REQUESTS, seed };
  const opts =
    policy === "tied"
      ? { ...base, tie: TIE, messageDelayMs: delayMs(stop), staggerMs: staggerMs(stagger, stop) }
      : { ...base, policy };
  return core.simulateTied(opts);
});
/** One of them at the page's seed, by default at the section's load and delay, unstaggered. */
const run = (core, policy, stop = DELAY, load = LOAD, stagger = "off") =>
  tiedRuns.at(core, SEED, policy, stop, load, stagger);
/**
 * `read(result)` for `policy` under each of SEEDS, by default at the section's settings (`stop`,
 * `load` and `stagger` as `run`'s).
 */
const overTheSeeds = (core, read, policy, stop = DELAY, load = LOAD, stagger = "off") =>
  tiedRuns(core, policy, stop, load, stagger).map(read);
/** `policy`'s extra work at the default settings under each of SEEDS. */
const extraWorkOverSeeds = (core, policy) =>
  overTheSeeds(core, (/** @type {any} */ r) => r.extraWork, policy);
/** Tying's p99 saving over the hedge's (fraction of the hedge's), under each of SEEDS. */
const savings = (core) => {
  const hedge = overTheSeeds(core, (/** @type {any} */ r) => r.p99, "hedge");
  return overTheSeeds(core, (/** @type {any} */ r) => r.p99, "tied").map(
    (t, i) => 1 - t / hedge[i],
  );
};
/** `read` of the unstaggered and the staggered tied runs, under each of SEEDS. */
const plainAndStaggered = (core, read) => [
  overTheSeeds(core, read, "tied"),
  overTheSeeds(core, read, "tied", DELAY, LOAD, "2x"),
];
/** The staggered median's rise (ms) over the unstaggered, paired by seed (the same arrivals). */
const medianRises = (core) => {
  const [plain, staggered] = plainAndStaggered(core, (/** @type {any} */ r) => r.p50);
  return staggered.map((s, i) => s - plain[i]);
};
const late = (/** @type {any} */ r) => r.lateCancellations;
const copies = (/** @type {any} */ r) => r.copiesStarted;
const low = (/** @type {number[]} */ xs) => Math.min(...xs);
const high = (/** @type {number[]} */ xs) => Math.max(...xs);

/**
 * The load of the prose's M/M/c check: where queueing is a sixth of the mean, not 1% as at the
 * section's default load. (At 0.9, a third, the batch-means interval covered Erlang C's mean in
 * 18 of 20 seeds, and missed it at the page's seed: issue 33's item 1 is to make intervals that
 * hold there. At 0.8 they held in 39 of 40.)
 */
const CHECK_LOAD = 0.8;
const checks = new WeakMap();
/** The check run: tied to all replicas, no message delay, exponential service, at CHECK_LOAD. */
function check(core) {
  if (!checks.has(core))
    checks.set(
      core,
      core.simulateTied({
        load: CHECK_LOAD,
        replicas: REPLICAS,
        tie: REPLICAS,
        messageDelayMs: 0,
        exponentialMeanMs: CHECK_MEAN_MS,
        requests: REQUESTS,
        seed: SEED,
      }),
    );
  return checks.get(core);
}

/** Stable and not at capacity: a run whose numbers are the answer. */
const settled = (r) => r.stable && !r.atCapacity;

/**
 * The first delay stop, from the default's up, at which tied requests at the heavier load are
 * not settled (unstable, or at capacity), under `seed`.
 * @param {any} core
 * @param {number | bigint} [seed]
 */
function firstUnsettled(core, seed = SEED) {
  const from = DELAYS.indexOf(DELAY);
  const i = DELAYS.slice(from).findIndex(
    (stop) => !settled(tiedRuns.at(core, seed, "tied", stop, HEAVY, "off")),
  );
  if (i < 0) throw new Error("tied stays settled at every delay");
  return from + i;
}

/** Tied requests' extra work at the heavier load and the page's seed's last settled delay, under
 * each of SEEDS. */
const heavyWork = (core) =>
  overTheSeeds(
    core,
    (/** @type {any} */ r) => r.extraWork,
    "tied",
    DELAYS[firstUnsettled(core) - 1],
    HEAVY,
  );

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  replicas: { doc: "The section's default replicas.", value: () => REPLICAS },
  tie: { doc: "The default tie: replicas each request queues at.", value: () => TIE },
  load: { doc: "The default load of the readouts (fraction).", value: () => LOAD },
  "delay-ms": { doc: "The default message delay (ms).", value: () => delayMs(DELAY) },
  "tied-p99-ms": {
    doc: "Tied requests' simulated p99 (ms) at the default settings.",
    value: (core) => run(core, "tied").p99,
  },
  "tied-p99-low-ms": {
    doc: "The low end (ms) of Tied requests' p99 95% interval at the default settings.",
    value: (core) => run(core, "tied").p99Low,
  },
  "tied-p99-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => run(core, "tied").p99High,
  },
  "hedge-p99-ms": {
    doc: "The hedge's simulated p99 (ms) at the default load and replicas.",
    value: (core) => run(core, "hedge").p99,
  },
  "hedge-p99-low-ms": {
    doc: "The low end (ms) of The hedge's p99 95% interval at the default settings.",
    value: (core) => run(core, "hedge").p99Low,
  },
  "hedge-p99-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => run(core, "hedge").p99High,
  },
  "none-p99-ms": {
    doc: "The simulated p99 (ms) without backups at the default load and replicas.",
    value: (core) => run(core, "none").p99,
  },
  "none-p99-low-ms": {
    doc: "The low end (ms) of No backups' p99 95% interval at the default settings.",
    value: (core) => run(core, "none").p99Low,
  },
  "none-p99-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => run(core, "none").p99High,
  },
  "duplicate-p99-ms": {
    doc: "Duplicating's simulated p99 (ms) at the default load and replicas.",
    value: (core) => run(core, "duplicate").p99,
  },
  "duplicate-p99-low-ms": {
    doc: "The low end (ms) of Duplicating's p99 95% interval at the default settings.",
    value: (core) => run(core, "duplicate").p99Low,
  },
  "duplicate-p99-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => run(core, "duplicate").p99High,
  },
  "stopped-p99-ms": {
    doc: "The p99 (ms) of duplicating every request with whichever copy answers second cancelled at once, queued or mid-service (the loaded model's either-any), at the default load and replicas.",
    value: (core) => run(core, "duplicate-either-any").p99,
  },
  "stopped-p99-low-ms": {
    doc: "The low end (ms) of that p99's 95% interval.",
    value: (core) => run(core, "duplicate-either-any").p99Low,
  },
  "stopped-p99-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => run(core, "duplicate-either-any").p99High,
  },
  "stopped-work-saved-low": {
    doc: "The least, over SEEDS, of how much less server time that duplicate uses than the primaries' own service (fraction; its extra work negated: stopping hiccuping primaries gives back more than the backups cost).",
    value: (core) => low(extraWorkOverSeeds(core, "duplicate-either-any").map((w) => -w)),
  },
  "stopped-work-saved-high": {
    doc: "The most of it over SEEDS.",
    value: (core) => high(extraWorkOverSeeds(core, "duplicate-either-any").map((w) => -w)),
  },
  "tied-p50-ms": {
    doc: "Tied requests' simulated median (ms) at the default settings.",
    value: (core) => run(core, "tied").p50,
  },
  "tied-p50-low-ms": {
    doc: "The low end (ms) of that median's 95% interval.",
    value: (core) => run(core, "tied").p50Low,
  },
  "tied-p50-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => run(core, "tied").p50High,
  },
  "stagger-ms": {
    doc: "The stagger of the prose (ms): two message delays at the default delay.",
    value: () => staggerMs("2x", DELAY),
  },
  "staggered-late-low": {
    doc: "The least, over SEEDS, of the share of cancellations that came too late with the siblings sent two message delays after the first copy (default settings otherwise).",
    value: (core) => low(plainAndStaggered(core, late)[1]),
  },
  "staggered-late-high": {
    doc: "The most of it over SEEDS.",
    value: (core) => high(plainAndStaggered(core, late)[1]),
  },
  "tied-copies-low": {
    doc: "The least, over SEEDS, of the copies that started service per tied request at the default settings (1: none duplicated).",
    value: (core) => low(plainAndStaggered(core, copies)[0]),
  },
  "tied-copies-high": {
    doc: "The most of them over SEEDS.",
    value: (core) => high(plainAndStaggered(core, copies)[0]),
  },
  "staggered-copies-low": {
    doc: "The least, over SEEDS, of the copies that started service per staggered tied request.",
    value: (core) => low(plainAndStaggered(core, copies)[1]),
  },
  "staggered-copies-high": {
    doc: "The most of them over SEEDS.",
    value: (core) => high(plainAndStaggered(core, copies)[1]),
  },
  "stagger-p50-rise-low-ms": {
    doc: "The least rise (ms) of the median with the stagger, paired by seed over SEEDS.",
    value: (core) => low(medianRises(core)),
  },
  "stagger-p50-rise-high-ms": {
    doc: "The greatest of those rises (ms).",
    value: (core) => high(medianRises(core)),
  },
  "staggered-p99-ms": {
    doc: "Staggered tied requests' p99 (ms).",
    value: (core) => run(core, "tied", DELAY, LOAD, "2x").p99,
  },
  "wasted-over-answering-100ms-low": {
    doc: "At a 100 ms message delay, the least over SEEDS of tied requests' server time on copies that did not answer over the answering copies' service (the measure the section used before issue 33).",
    value: (core) =>
      low(overTheSeeds(core, (/** @type {any} */ r) => r.wastedOverAnswering, "tied", "100")),
  },
  "wasted-over-answering-100ms-high": {
    doc: "The most of it over SEEDS.",
    value: (core) =>
      high(overTheSeeds(core, (/** @type {any} */ r) => r.wastedOverAnswering, "tied", "100")),
  },
  "saving-vs-hedge-low": {
    doc: "The least, over SEEDS, of how much lower tied requests' p99 is than the hedge's (fraction of the hedge's), each pair from one seed.",
    value: (core) => low(savings(core)),
  },
  "saving-vs-hedge-high": {
    doc: "The most of it over SEEDS.",
    value: (core) => high(savings(core)),
  },
  "tied-late-low": {
    doc: "The least, over SEEDS, of the share of tied requests' cancellations that came too late at the default settings.",
    value: (core) => low(plainAndStaggered(core, late)[0]),
  },
  "tied-late-high": {
    doc: "The most of it over SEEDS.",
    value: (core) => high(plainAndStaggered(core, late)[0]),
  },
  "tied-extra-work-low": {
    doc: "The least of tied requests' extra work over the page's seed and the next four (default settings).",
    value: (core) => Math.min(...extraWorkOverSeeds(core, "tied")),
  },
  "tied-extra-work-high": {
    doc: "The most of it over those seeds.",
    value: (core) => Math.max(...extraWorkOverSeeds(core, "tied")),
  },
  "hedge-extra-work-low": {
    doc: "The least of the hedge's extra work over the same seeds (default load and replicas).",
    value: (core) => Math.min(...extraWorkOverSeeds(core, "hedge")),
  },
  "hedge-extra-work-high": {
    doc: "The most of it over those seeds.",
    value: (core) => Math.max(...extraWorkOverSeeds(core, "hedge")),
  },
  seeds: { doc: "How many seeds the prose's ranges run over.", value: () => SEEDS.length },
  "duplicate-extra-work-low": {
    doc: "The least, over SEEDS, of duplicating's extra work at the default load (capacity cost over load).",
    value: (core) => low(extraWorkOverSeeds(core, "duplicate")),
  },
  "duplicate-extra-work-high": {
    doc: "The most of it over SEEDS.",
    value: (core) => high(extraWorkOverSeeds(core, "duplicate")),
  },
  "delay-10-ms": { doc: "A longer message delay of the prose (ms).", value: () => 10 },
  "extra-work-10ms-low": {
    doc: "The least, over SEEDS, of tied requests' extra work at a 10 ms message delay.",
    value: (core) => low(overTheSeeds(core, (/** @type {any} */ r) => r.extraWork, "tied", "10")),
  },
  "extra-work-10ms-high": {
    doc: "The most of it over SEEDS.",
    value: (core) => high(overTheSeeds(core, (/** @type {any} */ r) => r.extraWork, "tied", "10")),
  },
  "delay-100-ms": { doc: "A still longer message delay of the prose (ms).", value: () => 100 },
  "extra-work-100ms-low": {
    doc: "The least, over SEEDS, of tied requests' extra work at a 100 ms message delay.",
    value: (core) => low(overTheSeeds(core, (/** @type {any} */ r) => r.extraWork, "tied", "100")),
  },
  "extra-work-100ms-high": {
    doc: "The most of it over SEEDS.",
    value: (core) => high(overTheSeeds(core, (/** @type {any} */ r) => r.extraWork, "tied", "100")),
  },
  "heavy-load": { doc: "The heavier load of the prose's example (fraction).", value: () => HEAVY },
  "last-settled-delay-ms": {
    doc: "The longest message delay stop at which tied requests at the heavier load are still stable and under capacity (ms), under each of SEEDS (the prose states one: every seed's).",
    value: (core) => SEEDS.map((seed) => delayMs(DELAYS[firstUnsettled(core, seed) - 1])),
  },
  "first-unsettled-delay-ms": {
    doc: "The first message delay stop at which tied requests at the heavier load are unstable or at capacity (ms), under each of SEEDS.",
    value: (core) => SEEDS.map((seed) => delayMs(DELAYS[firstUnsettled(core, seed)])),
  },
  "heavy-extra-work-low": {
    doc: "The least, over SEEDS, of tied requests' extra work at the heavier load and the page's seed's last settled delay.",
    value: (core) => low(heavyWork(core)),
  },
  "heavy-extra-work-high": {
    doc: "The most of it over SEEDS.",
    value: (core) => high(heavyWork(core)),
  },
  "never-boundary": {
    doc: "The load from which tied requests whose cancellations never land are unstable: 1/tie.",
    value: () => 1 / TIE,
  },
  "check-load": {
    doc: "The load (fraction) the prose's M/M/c check runs at: high enough that queueing is a sixth of the mean.",
    value: () => CHECK_LOAD,
  },
  "check-mean-theory-ms": {
    doc: "Erlang C's M/M/c mean (ms) at the default replicas and the check's load, exponential service of the check's mean.",
    value: (core) => core.tiedTheory(REPLICAS, CHECK_LOAD, CHECK_MEAN_MS).meanMs,
  },
  "check-mean-ms": {
    doc: "The check run's simulated mean (ms): tied to all replicas, no delay, exponential service, at the check's load.",
    value: (core) => check(core).mean,
  },
  "check-mean-low-ms": {
    doc: "The low end of that mean's 95% batch-means interval (ms).",
    value: (core) => check(core).meanLow,
  },
  "check-mean-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => check(core).meanHigh,
  },
  "check-service-ms": {
    doc: "The check's exponential mean service (ms).",
    value: () => CHECK_MEAN_MS,
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "check-holds": {
    doc: "Erlang C's mean lies inside the check run's 95% interval.",
    holds: (c) =>
      c("check-mean-low-ms") <= c("check-mean-theory-ms") &&
      c("check-mean-theory-ms") <= c("check-mean-high-ms"),
  },
  "tied-beats-hedge": {
    doc: "At every seed judged, tying's p99 interval lies wholly below the hedge's at the default settings.",
    holds: (_c, core) => {
      const hedge = overTheSeeds(core, (/** @type {any} */ r) => r.p99Low, "hedge");
      return overTheSeeds(core, (/** @type {any} */ r) => r.p99High, "tied").every(
        (high, i) => high < hedge[i],
      );
    },
  },
  "stopped-beats-tied": {
    doc: "At every seed judged, duplicating with the loser stopped has a p99 interval wholly below tying's.",
    holds: (_c, core) => {
      const tied = overTheSeeds(core, (/** @type {any} */ r) => r.p99Low, "tied");
      return overTheSeeds(core, (/** @type {any} */ r) => r.p99High, "duplicate-either-any").every(
        (high, i) => high < tied[i],
      );
    },
  },
  "stopped-saves-work": {
    doc: "At every seed judged, that duplicate uses less server time than the requests' own service.",
    holds: (c) => c("stopped-work-saved-low") > 0,
  },
  "stagger-cuts-late": {
    doc: "The stagger cuts the late cancellations and the copies per request: its ranges over the seeds lie wholly below the unstaggered ones.",
    holds: (c) =>
      c("staggered-late-high") < c("tied-late-low") &&
      c("staggered-copies-high") < c("tied-copies-low"),
  },
  "stagger-keeps-p99": {
    doc: "The p99 stays where it was: at every seed judged, the staggered p99 lies inside the unstaggered run's p99 interval.",
    holds: (_c, core) => {
      const [plain, staggered] = plainAndStaggered(core, (/** @type {any} */ r) => r);
      return staggered.every((s, i) => plain[i].p99Low <= s.p99 && s.p99 <= plain[i].p99High);
    },
  },
  "stagger-raises-median": {
    doc: "The median rises at every seed judged, paired by seed (one run's intervals cannot show it: at the page's seed the staggered median's interval reaches below the unstaggered one's top).",
    holds: (c) => c("stagger-p50-rise-low-ms") > 0,
  },
};
