// The browser suite's runner: starts one headless Chromium (the executable and flags of
// `launchChromium` in tests/support.mjs), runs `node --test <args…>` with its endpoint in
// TAIL_LAB_BROWSER_WS so every test file connects to it instead of launching its own, and
// closes it when the run ends, with the run's exit code:
//
//   node tests/e2e/run.mjs --test-concurrency=1 --test-reporter=tap tests/e2e/
//
// Each file still opens its own contexts (a page is a fresh context), so no state passes from
// one file to the next; a single file run with `node --test` launches its own browser as before.
// Not a test file itself (its name matches no test pattern); under a test runner it does nothing.

import { spawn } from "node:child_process";
import { BROWSER_ENDPOINT, CHROMIUM_ARGS, chromiumPath } from "../support.mjs";

if (process.env.NODE_TEST_CONTEXT) process.exit(0);

const { chromium } = await import("playwright-core");
const server = await chromium.launchServer({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
const child = spawn(process.execPath, ["--test", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, [BROWSER_ENDPOINT]: server.wsEndpoint() },
});
const code = await new Promise((done) => {
  child.on("exit", (status, signal) => done(status ?? (signal ? 1 : 0)));
  child.on("error", () => done(1));
});
await server.close();
process.exit(code);
