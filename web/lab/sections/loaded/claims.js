// The numbers the loaded section's prose states (and the sources' aside on the Lab page), each
// computed through the API from the section's own default sweep (see web/claims.js).

import { SEED_PARAM } from "../../seed.js";
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

const sweeps = new WeakMap();
/**
 * The section's default sweep, as the page runs it: every load × policy under the default
 * cancellation rule and delay basis, `requests` and seed. `at(load, policy)` is one result.
 */
function sweep(core) {
  if (!sweeps.has(core)) {
    const lab = core.labDefaults();
    const results = new Map();
    for (const load of LOADS)
      for (const policy of lab.loaded.policies)
        results.set(
          `${load} ${policy}`,
          core.simulateLoaded({
            load,
            policy,
            cancellation: lab.loaded.cancellations[0],
            delayBasis: lab.loaded.delayBases[0],
            requests: REQUESTS,
            seed: SEED,
          }),
        );
    sweeps.set(core, (load, policy) => {
      const r = results.get(`${load} ${policy}`);
      if (!r) throw new RangeError(`the sweep has no run at load ${load} for ${policy}`);
      return r;
    });
  }
  return sweeps.get(core);
}

/** The hedge's extra work at every load of the sweep where it ran stable. */
const hedgeWork = (core) =>
  LOADS.map((l) => sweep(core)(l, "hedge"))
    .filter((r) => r.stable)
    .map((r) => r.extraWork);

/** Mean service time a backup of the default hedge did (ms): its share of the work, per backup. */
function backupWorkMs(core, result) {
  return (result.extraWork * core.serviceMoments().meanMs) / result.extraRequests;
}

/**
 * True when duplicating's p50 and p99 intervals lie wholly below every other policy's at `load`
 * (a policy past its boundary loses by default): the lowest median and p99, bars and all.
 */
function duplicateBest(core, load) {
  const at = sweep(core);
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
  "hedge-work-min": {
    doc: "The hedge's smallest extra work (fraction) over the sweep's stable loads.",
    value: (core) => Math.min(...hedgeWork(core)),
  },
  "hedge-work-max": {
    doc: "The hedge's largest extra work (fraction) over the sweep's stable loads.",
    value: (core) => Math.max(...hedgeWork(core)),
  },
  "default-load": { doc: "The section's default load (fraction).", value: () => DEFAULT_LOAD },
  "backup-work-ms": {
    doc: "Service time (ms) a backup of the hedge did on average at the default load: extra work × mean service time ÷ share of requests hedged.",
    value: (core) => backupWorkMs(core, sweep(core)(DEFAULT_LOAD, "hedge")),
  },
  "backups-completed": {
    doc: "The share of the hedge's backups that ran to the end of their service at the default load.",
    value: (core) => sweep(core)(DEFAULT_LOAD, "hedge").backupsCompleted,
  },
  "none-mean-ms": {
    doc: "The simulated mean latency (ms) without backups at the default load.",
    value: (core) => sweep(core)(DEFAULT_LOAD, "none").mean,
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
  "hedge-work-default": {
    doc: "The hedge's extra work (fraction) at the default load.",
    value: (core) => sweep(core)(DEFAULT_LOAD, "hedge").extraWork,
  },
  "hedge-capacity-cost": {
    doc: "The hedge's cost in capacity (fraction of the replicas' time) at the default load.",
    value: (core) => sweep(core)(DEFAULT_LOAD, "hedge").capacityCost,
  },
  "light-load-low": {
    doc: "The lighter of the light loads (fraction) the prose quotes duplicating's cost at.",
    value: () => Math.min(...LIGHT_LOADS),
  },
  "light-load-high": {
    doc: "The heavier of the light loads (fraction) the prose quotes duplicating's cost at.",
    value: () => Math.max(...LIGHT_LOADS),
  },
  "duplicate-work-light": {
    doc: "Duplicating's extra work (fraction) at the light loads.",
    value: (core) => LIGHT_LOADS.map((l) => sweep(core)(l, "duplicate").extraWork),
  },
  "middle-load": { doc: "The middle load the prose quotes (fraction).", value: () => MIDDLE_LOAD },
  "duplicate-work-middle": {
    doc: "Duplicating's extra work (fraction) at the middle load.",
    value: (core) => sweep(core)(MIDDLE_LOAD, "duplicate").extraWork,
  },
  "duplicate-best-up-to": {
    doc: "The highest load (fraction) up to which duplicating's p50 and p99 intervals lie wholly below the other policies' at every load of the sweep.",
    value: (core) => {
      let best = null;
      for (const l of LOADS) {
        if (!duplicateBest(core, l)) break;
        best = l;
      }
      if (best === null) throw new RangeError("duplicating is not best even at the lightest load");
      return best;
    },
  },
  "boundary-load": {
    doc: "The load (fraction) where duplicating meets the stability boundary.",
    value: () => BOUNDARY_LOAD,
  },
  "duplicate-work-boundary": {
    doc: "Duplicating's extra work (fraction) at the boundary load.",
    value: (core) => sweep(core)(BOUNDARY_LOAD, "duplicate").extraWork,
  },
  "duplicate-utilisation-boundary": {
    doc: "The replicas' busy share (fraction) when duplicating at the boundary load.",
    value: (core) => sweep(core)(BOUNDARY_LOAD, "duplicate").utilisation,
  },
  "duplicate-median-ratio": {
    doc: "Duplicating's median over no backups' at the boundary load, over the section's run.",
    value: (core) =>
      sweep(core)(BOUNDARY_LOAD, "duplicate").p50 / sweep(core)(BOUNDARY_LOAD, "none").p50,
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
    doc: "More than half of the hedge's backups run to the end of their service at the default load.",
    holds: (c) => c("backups-completed") > 0.5,
  },
};
