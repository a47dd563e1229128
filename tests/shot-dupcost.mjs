import { launchChromium, serveWeb } from "./support.mjs";
const server = await serveWeb();
const browser = await launchChromium();
for (const [w, scheme] of [
  [1280, "light"],
  [390, "dark"],
  [1280, "dark"],
  [390, "light"],
]) {
  const page = await browser.newPage({ viewport: { width: w, height: 1000 } });
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(`${server.url}index.html#cancellation`);
  for (const name of ["cancellation", "fairness"]) {
    const root = `[data-section=${name}]`;
    await page.waitForSelector(`${root} canvas`);
    await page.$eval(root, (e) => e.scrollIntoView());
    await page.waitForFunction(
      (sel) => {
        const p = document.querySelector(`${sel} [data-progress]`);
        return p?.dataset.total && p.dataset.done === p.dataset.total;
      },
      root,
      { timeout: 120_000 },
    );
    await page.waitForTimeout(300);
    await (await page.$(root)).screenshot({ path: `/tmp/dupcost-${name}-${w}-${scheme}.png` });
  }
  await page.close();
}
await browser.close();
await server.close();
