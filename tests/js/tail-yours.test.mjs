// The Tail binding on the reader's own latencies: `TailOptions` take `profile: "yours"` with
// `leaves` (what `parseLatencies(...).service` gives), refuse every other combination with a
// TypeError naming the option, report the leaves back in `config`, and keep runs on other data
// apart (a block's fingerprint names the knots). The panel's run (web/tail/run.js) switches to
// them and back like any profile.

import assert from "node:assert/strict";
import { test } from "node:test";
import { digest, openRun, runOptions } from "../../web/tail/run.js";
import { loadPackage } from "../support.mjs";

const pkg = await loadPackage();
const example = pkg.parseLatencies(pkg.exampleLatencies());
const small = pkg.parseLatencies("3\n4\n4.5\n5\n6\n9\n40\n7\n3.5\n5.5");
const leaves = example.service;

test("profile yours with leaves is a run on those knots, reported back by config", () => {
  const run = new pkg.TailRun({ profile: "yours", leaves, fanout: 12, seed: 5 });
  const c = run.config;
  assert.deepEqual(Object.keys(c), ["fanout", "profile", "fix", "seed", "leaves"]);
  assert.equal(c.profile, "yours");
  assert.deepEqual(c.leaves.empirical.levels, leaves.empirical.levels);
  assert.deepEqual(c.leaves.empirical.ms, leaves.empirical.ms);
  // A preset's config has no leaves, as before.
  assert.deepEqual(new pkg.TailRun({ fanout: 12 }).config, {
    fanout: 12,
    profile: "default",
    fix: "none",
    seed: 1,
  });
  // Every leaf is a value of the distribution.
  const ms = leaves.empirical.ms;
  const trace = run.requestAt(7);
  for (const t of trace.leaves.originalMs) assert.ok(t >= ms[0] && t <= ms[ms.length - 1], `${t}`);
  // The free functions take the same options.
  assert.equal(
    pkg.leafQuantile(0.99, { profile: "yours", leaves, fanout: 12, seed: 5 }),
    run.leafQuantile(0.99),
  );
  run.free();
});

test("missing or mismatched leaves are a TypeError naming leaves; an unknown profile a RangeError naming profile", () => {
  /** @type {[any, Function, RegExp][]} */
  const refused = [
    [{ profile: "yours" }, TypeError, /leaves is required with profile "yours"/],
    [{ leaves }, TypeError, /leaves needs profile: "yours"/],
    [{ profile: "tight", leaves }, TypeError, /leaves is only for profile "yours"/],
    [
      { profile: "yours", leaves: { body: { medianMs: 4, sigma: 0.5 } } },
      TypeError,
      /Error: leaves must be your own latencies/,
    ],
    [{ profile: "yours", leaves: { empirical: {} } }, TypeError, /leaves\.empirical/],
    [
      {
        profile: "yours",
        leaves: { empirical: { levels: new Float64Array([0, 1]), ms: new Float64Array([2, 1]) } },
      },
      RangeError,
      /Error: leaves\.empirical\.ms /,
    ],
    [{ profile: "yours", leaves, extra: 1 }, TypeError, /unknown key "extra"/],
    [{ profile: "mine" }, RangeError, /Error: profile .*"yours" \(with leaves\)/],
  ];
  for (const [options, kind, message] of refused) {
    assert.throws(() => new pkg.TailRun(options), kind, JSON.stringify(Object.keys(options)));
    assert.throws(() => new pkg.TailRun(options), message);
  }
});

test("reconfigure keeps, swaps and drops the leaves as asked", () => {
  const run = new pkg.TailRun({ profile: "yours", leaves, fanout: 8 });
  run.reconfigure({ fanout: 20, fix: "hedge-p95" });
  assert.equal(run.config.profile, "yours");
  assert.equal(run.config.leaves.empirical.ms.length, leaves.empirical.ms.length);
  // New leaves on a run already on "yours": no profile needed.
  run.reconfigure({ leaves: small.service });
  assert.deepEqual(run.config.leaves.empirical.ms, small.service.empirical.ms);
  // "yours" again without leaves keeps the ones it has.
  run.reconfigure({ profile: "yours", seed: 3 });
  assert.deepEqual(run.config.leaves.empirical.ms, small.service.empirical.ms);
  run.reconfigure({ profile: "gc-pause" });
  assert.deepEqual(run.config, { fanout: 20, profile: "gc-pause", fix: "hedge-p95", seed: 3 });
  // A refused change changes nothing.
  assert.throws(() => run.reconfigure({ leaves }), TypeError);
  assert.equal(run.config.profile, "gc-pause");
  run.free();
});

test("a block from a run on other data is refused by its fingerprint; one on the same data merges", () => {
  /** @type {import("../../web/pkg/tail_lab.js").TailOptions} */
  const options = { profile: "yours", leaves, fanout: 10, seed: 2 };
  const a = new pkg.TailRun(options);
  const b = new pkg.TailRun({ ...options, leaves: small.service });
  const same = new pkg.TailRun(options);
  b.runRange(0, 100);
  same.runRange(0, 100);
  assert.notEqual(b.block().fingerprint, same.block().fingerprint);
  assert.throws(() => a.absorb(b.block()), /fingerprint/);
  a.absorb(same.block());
  const direct = new pkg.TailRun(options);
  direct.run(100);
  assert.equal(digest(a.parentBins()), digest(direct.parentBins()));
  // A preset's fingerprint is not a run on your data's.
  const preset = new pkg.TailRun({ fanout: 10, seed: 2 });
  preset.runRange(0, 100);
  assert.throws(() => a.absorb(preset.block()), /fingerprint/);
  for (const r of [a, b, same, direct, preset]) r.free();
});

test("the panel's run switches to your leaves and back, bit for bit a direct run's", async () => {
  const settings = { fanout: 16, profile: "tight", fix: "none", seed: 4, requests: 2000 };
  const life = await openRun(pkg, settings);
  assert.deepEqual(runOptions({ ...settings, leaves }), {
    fanout: 16,
    profile: "tight",
    fix: "none",
    seed: 4,
  });
  assert.equal(await life.reconfigure({ profile: "yours", leaves }), true);
  while (life.hasWork) life.accumulate(performance.now(), 50);
  const direct = new pkg.TailRun({ fanout: 16, profile: "yours", leaves, seed: 4 });
  direct.run(2000);
  assert.equal(life.digest(), digest(direct.leafBins(), direct.parentBins()));
  // Other leaves recalibrate (a new run), as a new profile does.
  assert.equal(await life.reconfigure({ leaves: small.service }), true);
  assert.deepEqual(life.run.config.leaves.empirical.ms, small.service.empirical.ms);
  assert.equal(await life.reconfigure({ profile: "default" }), true);
  assert.equal(life.run.config.profile, "default");
  direct.free();
  life.close();
});
