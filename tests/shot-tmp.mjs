import { launchChromium, serveWeb } from "./support.mjs";
const server = await serveWeb();
const browser = await launchChromium();
for (const [w, scheme] of [
  [1280, "light"],
  [390, "dark"],
  [390, "light"],
  [1280, "dark"],
]) {
  const page = await browser.newPage({ viewport: { width: w, height: 1000 } });
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(`${server.url}index.html#retries`);
  await page.waitForSelector("[data-section=retries] canvas");
  await page.$eval("[data-section=retries]", (e) => e.scrollIntoView());
  await page.waitForFunction(
    () => {
      const p = document.querySelector("[data-section=retries] [data-progress]");
      return p?.dataset.total && p.dataset.done === p.dataset.total;
    },
    null,
    { timeout: 120000 },
  );
  await page.waitForTimeout(500);
  const el = await page.$("[data-section=retries] .lab-panel");
  await el.screenshot({ path: `/tmp/retries-${w}-${scheme}.png` });
  const prose = await page.$("[data-section=retries]");
  await prose.screenshot({ path: `/tmp/retries-full-${w}-${scheme}.png` });
  await page.close();
}
await browser.close();
await server.close();
