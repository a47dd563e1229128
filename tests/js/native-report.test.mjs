// The native report's cache (tests/support.mjs `nativeReport`): a report read back from
// target/report-cache is the one the binary prints for the same arguments, byte for byte, so
// the tests that compare the API with the report compare it with the binary's own output.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, nativeReport } from "../support.mjs";

test("a kept report is the binary's output for the same arguments, and is what nativeReport returns", () => {
  const first = nativeReport(1, 1000);
  const bin = join(ROOT, "target", "release", "tail-lab");
  const { size, mtimeMs } = statSync(bin);
  const kept = join(ROOT, "target", "report-cache", `seed1-requests1000-${size}-${mtimeMs}.json`);
  const fresh = execFileSync(bin, ["report", "--json", "--seed", "1", "--requests", "1000"]);
  assert.equal(
    readFileSync(kept, "utf8"),
    fresh.toString(),
    "the kept file is the binary's output",
  );
  assert.deepEqual(nativeReport(1, 1000), first);
  assert.deepEqual(first, JSON.parse(fresh.toString()));
});
