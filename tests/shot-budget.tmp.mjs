import { launchChromium, serveWeb } from "./support.mjs";
const server = await serveWeb();
const browser = await launchChromium();
for (const [w, h] of [
  [1280, 1000],
  [390, 844],
]) {
  for (const scheme of ["light", "dark"]) {
    const page = await browser.newPage({ viewport: { width: w, height: h } });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${server.url}index.html#budget`);
    await page.waitForFunction(
      () => {
        const v = document.querySelector("[data-section=budget] [data-readout=hedge-delay]");
        return v && v.textContent !== "—";
      },
      null,
      { timeout: 120000 },
    );
    await page.waitForTimeout(500);
    const el = await page.$("[data-section=budget] .lab-panel");
    await el.screenshot({ path: `/tmp/budget-${w}-${scheme}.png` });
    await page.close();
  }
}
await browser.close();
await server.close();
