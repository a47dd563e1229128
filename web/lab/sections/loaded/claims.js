// The numbers the loaded section's prose states (and the sources' aside on the Lab page), each
// computed through the API from the section's own default sweep (see web/claims.js).

import { claimRange, overSeeds, SEEDS } from "../../../claims.js";
import { SEED_PARAM } from "../../seed.js";
import { claims as hedgeClaims } from "../hedge/claims.js";
import { LOADS, REQUESTS, params } from "./section.js";

/** The seed the page runs at until a reader changes it. */
const SEED = SEED_PARAM.default;

const spec = (name) => params.find((s) => s.name === name);
const DEFAULT_LOAD = Number(spec("loaded-load").default);
/** The load the prose examines duplicating at (fraction): where it meets the stability boundary. */
const BOUNDARY_LOAD = 0.7;
/** The light loads and the middle load the prose quotes duplicating's cost at (fractions). */
const LIGHT_LOADS = [0.1, 0.2];
const MIDDLE_LOAD = 0.5;

/**
 * One point of the section's sweep, as the page runs it: `policy` at `load` under the default
 * cancellation rule and delay basis and the section's `requests`, under each of SEEDS.
 */
const points = overSeeds(SEEDS, (core, seed, load, policy, cancellation = null) => {
  const lab = core.labDefaults();
  return core.simulateLoaded({
    load,
    policy,
    cancellation: cancellation ?? lab.loaded.cancellations[0],
    delayBasis: lab.loaded.delayBases[0],
    requests: REQUESTS,
    seed,
  });
});
/** The section's default sweep at `seed` (the page's by default): `at(load, policy)` is one result. */
const sweep =
  (core, /** @type {number | bigint} */ seed = SEED) =>
  (/** @type {number} */ load, /** @type {string} */ policy) => {
    if (!LOADS.includes(load)) throw new RangeError(`the sweep has no run at load ${load}`);
    return points.at(core, seed, load, policy);
  };
/** `read(result)` of `policy` at `load` under each of SEEDS. */
const overTheSeeds = (core, load, policy, read) =>
  SEEDS.map((seed) => read(sweep(core, seed)(load, policy)));

/** The loads up to half, where the hedge's cost holds from seed to seed, and those above. */
const HALF = 0.5;
/** The hedge's extra work at every load of `loads` where it ran stable, under each of SEEDS. */
const hedgeWorkOver = (core, /** @type {number[]} */ loads) =>
  SEEDS.flatMap((seed) =>
    loads
      .map((l) => sweep(core, seed)(l, "hedge"))
      .filter((r) => r.stable)
      .map((r) => r.extraWork),
  );

/** Mean service time a backup of the default hedge did (ms): its share of the work, per backup. */
function backupWorkMs(core, result) {
  return (result.extraWork * core.serviceMoments().meanMs) / result.extraRequests;
}

/**
 * True when duplicating's p50 and p99 intervals lie wholly below every other policy's at `load`
 * (a policy past its boundary loses by default): the lowest median and p99, bars and all.
 */
function duplicateBest(
  core,
  load,
  /** @type {number | bigint} */ seed = SEED,
  /** @type {string | null} */ cancellation = null,
) {
  const at =
    cancellation === null
      ? sweep(core, seed)
      : (/** @type {number} */ l, /** @type {string} */ p) =>
          points.at(core, seed, l, p, cancellation);
  const d = at(load, "duplicate");
  if (!d.stable || d.p50High === null || d.p99High === null) return false;
  return core
    .labDefaults()
    .loaded.policies.filter((p) => p !== "duplicate")
    .every((p) => {
      const o = at(load, p);
      return (
        !o.stable ||
        (o.p50Low !== null && o.p99Low !== null && d.p50High < o.p50Low && d.p99High < o.p99Low)
      );
    });
}

/** The highest load up to which `duplicateBest` holds at every load of the sweep at `seed`. */
function bestUpTo(core, /** @type {number | bigint} */ seed) {
  let best = null;
  for (const l of LOADS) {
    if (!duplicateBest(core, l, seed)) break;
    best = l;
  }
  if (best === null) throw new RangeError("duplicating is not best even at the lightest load");
  return best;
}

/** The seeds at which duplicating at the boundary load settles (stable), and those results. */
const boundarySettled = (core) =>
  SEEDS.map((seed) => [
    sweep(core, seed)(BOUNDARY_LOAD, "duplicate"),
    sweep(core, seed)(BOUNDARY_LOAD, "none"),
  ]).filter(([d]) => d.stable);

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {
  replicas: {
    doc: "The loaded model's replicas.",
    value: (core) => core.labDefaults().loaded.replicas,
  },
  "hedge-q": {
    doc: "The quantile level (fraction) of latency at the same load a calibrated hedge waits for.",
    value: (core) => core.labDefaults().loaded.hedgeQuantile,
  },
  ...claimRange(
    "hedge-work-half",
    "the hedge's extra work (fraction) at every stable load of the sweep up to half load, over SEEDS.",
    (core) =>
      hedgeWorkOver(
        core,
        LOADS.filter((l) => l <= HALF),
      ),
  ),
  ...claimRange(
    "hedge-work-above",
    "the hedge's extra work (fraction) at every stable load of the sweep above half load, over SEEDS.",
    (core) =>
      hedgeWorkOver(
        core,
        LOADS.filter((l) => l > HALF),
      ),
  ),

  "default-load": { doc: "The section's default load (fraction).", value: () => DEFAULT_LOAD },
  ...claimRange(
    "backup-work-ms",
    "the service time (ms) a backup of the hedge did on average at the default load, over SEEDS: extra work × mean service time ÷ share of requests hedged.",
    (core) => overTheSeeds(core, DEFAULT_LOAD, "hedge", (r) => backupWorkMs(core, r)),
  ),

  ...claimRange(
    "backups-completed",
    "the share of the hedge's backups that ran to the end of their service at the default load, over SEEDS.",
    (core) => overTheSeeds(core, DEFAULT_LOAD, "hedge", (r) => r.backupsCompleted),
  ),

  "none-mean-ms": {
    doc: "The simulated mean latency (ms) without backups at the default load.",
    value: (core) => sweep(core)(DEFAULT_LOAD, "none").mean,
  },
  "none-mean-low-ms": {
    doc: "The low end (ms) of that mean's 95% interval.",
    value: (core) => sweep(core)(DEFAULT_LOAD, "none").meanLow,
  },
  "none-mean-high-ms": {
    doc: "Its high end (ms).",
    value: (core) => sweep(core)(DEFAULT_LOAD, "none").meanHigh,
  },
  "mg1-mean-ms": {
    doc: "Pollaczek–Khinchine's M/G/1 mean latency (ms) without backups at the default load.",
    value: (core) => core.noBackupMeanMs(DEFAULT_LOAD),
  },
  "body-mean-ms": {
    doc: "One normal service time: the mean (ms) of the service model's usual-case lognormal.",
    value: (core) => core.serviceMoments().bodyMeanMs,
  },
  "service-mean-ms": {
    doc: "The mean service time (ms), hiccups included.",
    value: (core) => core.serviceMoments().meanMs,
  },
  ...claimRange(
    "hedge-work-default",
    "the hedge's extra work (fraction) at the default load, over SEEDS.",
    (core) => overTheSeeds(core, DEFAULT_LOAD, "hedge", (r) => r.extraWork),
  ),

  ...claimRange(
    "hedge-capacity-cost",
    "the hedge's cost in capacity (fraction of the replicas' time) at the default load, over SEEDS.",
    (core) => overTheSeeds(core, DEFAULT_LOAD, "hedge", (r) => r.capacityCost),
  ),

  "light-load-low": {
    doc: "The lighter of the light loads (fraction) the prose quotes duplicating's cost at.",
    value: () => Math.min(...LIGHT_LOADS),
  },
  "light-load-high": {
    doc: "The heavier of the light loads (fraction) the prose quotes duplicating's cost at.",
    value: () => Math.max(...LIGHT_LOADS),
  },
  ...claimRange(
    "duplicate-work-light",
    "duplicating's extra work (fraction) at the light loads, over SEEDS.",
    (core) => LIGHT_LOADS.flatMap((l) => overTheSeeds(core, l, "duplicate", (r) => r.extraWork)),
  ),

  "middle-load": { doc: "The middle load the prose quotes (fraction).", value: () => MIDDLE_LOAD },
  ...claimRange(
    "duplicate-work-middle",
    "duplicating's extra work (fraction) at the middle load, over SEEDS.",
    (core) => overTheSeeds(core, MIDDLE_LOAD, "duplicate", (r) => r.extraWork),
  ),

  ...claimRange(
    "duplicate-best-up-to",
    "the highest loads (fraction), over SEEDS, up to which duplicating's p50 and p99 intervals lie wholly below the other policies' at every load of the sweep.",
    (core) => SEEDS.map((seed) => bestUpTo(core, seed)),
  ),
  "boundary-load": {
    doc: "The load (fraction) where duplicating meets the stability boundary.",
    value: () => BOUNDARY_LOAD,
  },
  ...claimRange(
    "duplicate-work-boundary",
    "duplicating's extra work (fraction) at the boundary load, over SEEDS.",
    (core) => overTheSeeds(core, BOUNDARY_LOAD, "duplicate", (r) => r.extraWork),
  ),

  ...claimRange(
    "duplicate-utilisation-boundary",
    "the work duplicating demands per unit of the replicas' capacity at the boundary load (their busy share while stable; past the boundary above 1), over SEEDS.",
    (core) => overTheSeeds(core, BOUNDARY_LOAD, "duplicate", (r) => r.utilisation),
  ),
  "boundary-unsettled": {
    doc: "Of SEEDS, how many give duplicating at the boundary load no steady state (unstable).",
    value: (core) => SEEDS.length - boundarySettled(core).length,
  },
  seeds: { doc: "How many seeds the prose's ranges run over.", value: () => SEEDS.length },

  ...claimRange(
    "duplicate-median-ratio",
    "duplicating's median over no backups' at the boundary load, over the SEEDS where duplicating settles there.",
    (core) => boundarySettled(core).map(([d, n]) => d.p50 / n.p50),
  ),
  "boundary-settled": {
    doc: "Of SEEDS, how many give duplicating at the boundary load a steady state (stable).",
    value: (core) => boundarySettled(core).length,
  },
};

/** @type {Record<string, import("../../../claims.js").Statement>} */
export const statements = {
  "pollaczek-khinchine-inside-the-bar": {
    doc: "Pollaczek–Khinchine's mean lies inside the no-backup run's 95% interval at the default load.",
    holds: (c, core) => {
      const r = sweep(core)(DEFAULT_LOAD, "none");
      return r.meanLow <= c("mg1-mean-ms") && c("mg1-mean-ms") <= r.meanHigh;
    },
  },
  "most-backups-run-to-completion": {
    doc: "More than half of the hedge's backups run to the end of their service at the default load, at every seed judged.",
    holds: (c) => c("backups-completed-low") > 0.5,
  },
  "busy-replicas-cost-the-hedge-more": {
    doc: "Up to half load the hedge costs more extra work on busy replicas than the most it costs on idle ones, at every seed judged.",
    holds: (c, core) => c("hedge-work-half-low") > hedgeClaims["extra-work-high"].value(core),
  },
  "stopped-duplicates-win-at-every-load": {
    doc: "Under either-any (the losing copy stopped wherever it is, hiccup or not), duplicating's p50 and p99 intervals lie wholly below the other policies' at every load of the sweep, at the page's seed (the small multiple the prose describes).",
    holds: (_c, core) => LOADS.every((l) => duplicateBest(core, l, SEED, "either-any")),
  },
  "some-boundary-runs-never-settle": {
    doc: "At the boundary load duplicating settles at some seeds and not at others: the sentence calls it the boundary, not a load past it.",
    holds: (c) => c("boundary-settled") > 0 && c("boundary-unsettled") > 0,
  },
};
