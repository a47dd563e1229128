// The npm package as a user gets it: `npm pack` the built web/pkg, install the tarball into a
// scratch folder, and import it by name from node.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { WEB } from "../support.mjs";

test("the packed tarball installs into a scratch folder and imports by name in node", () => {
  const scratch = mkdtempSync(join(tmpdir(), "tail-lab-pkg-"));
  try {
    const manifest = JSON.parse(readFileSync(join(WEB, "pkg", "package.json"), "utf8"));
    for (const key of ["name", "version", "description", "license", "types", "exports"])
      assert.ok(manifest[key], key);
    const tarball = execFileSync(
      "npm",
      ["pack", join(WEB, "pkg"), "--pack-destination", scratch, "--silent"],
      { encoding: "utf8" },
    )
      .trim()
      .split("\n")
      .pop();
    writeFileSync(
      join(scratch, "package.json"),
      JSON.stringify({ name: "scratch", private: true, type: "module" }),
    );
    execFileSync(
      "npm",
      ["install", join(scratch, tarball), "--no-audit", "--no-fund", "--offline", "--silent"],
      { cwd: scratch },
    );
    writeFileSync(
      join(scratch, "use.mjs"),
      `
      import { readFileSync } from "node:fs";
      import { fileURLToPath } from "node:url";
      import { initSync, slowShare, simulateBalance } from "tail-latency-lab";
      initSync({ module: readFileSync(fileURLToPath(import.meta.resolve("tail-latency-lab/tail_lab_bg.wasm"))) });
      console.log(JSON.stringify({ share: slowShare(0.01, 100), balance: simulateBalance({ lambda: 0.5, policy: "two", arrivals: 10000 }).theory }));
    `,
    );
    const out = JSON.parse(execFileSync("node", ["use.mjs"], { cwd: scratch, encoding: "utf8" }));
    assert.ok(Math.abs(out.share - 0.6339676587267709) < 1e-12);
    assert.ok(Math.abs(out.balance - 1.2656860360875726) < 1e-9);
    const files = execFileSync("npm", ["ls", "--parseable", "--all"], {
      cwd: scratch,
      encoding: "utf8",
    });
    assert.match(files, /tail-latency-lab/);
    assert.match(
      readFileSync(join(scratch, "node_modules", "tail-latency-lab", "README.md"), "utf8"),
      /simulateLoaded/,
    );
    assert.match(
      readFileSync(join(scratch, "node_modules", "tail-latency-lab", "tail_lab.d.ts"), "utf8"),
      /export interface LoadedResult/,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test("the shipped glue resets a failed instance before any argument reaches wasm memory", () => {
  const glue = readFileSync(join(WEB, "pkg", "tail_lab.js"), "utf8");
  // The reset machinery is there (the binding schedules it from its panic hook and allocator)…
  assert.match(glue, /__wbg_reinit_scheduled = true/);
  assert.match(glue, /function __wbg_call_guard\(\)/);
  // …and no test-only export ships.
  assert.doesNotMatch(glue, /injectPanic|injectOutOfMemory/);
  // wasm-bindgen 0.2.130 copies string and slice arguments into memory before its reset check;
  // after a reset those pointers would name the old instance's memory. Every export must
  // therefore reach the guard before copying anything in.
  const bodies = glue.split(/\n(?=export function | {4}(?:static )?[A-Za-z_]\w*\(.*\) \{\n)/);
  let guarded = 0;
  for (const body of bodies) {
    const guard = body.indexOf("__wbg_call_guard();");
    if (guard < 0) continue;
    guarded++;
    const copy = body.search(/pass\w*ToWasm0\(|addToExternrefTable0\(/);
    assert.ok(
      copy < 0 || copy > guard,
      `an export copies an argument in before its guard:\n${body.slice(0, 300)}`,
    );
  }
  assert.ok(guarded >= 30, `every export is guarded (found ${guarded})`);
});
