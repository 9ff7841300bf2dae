/** Holds a page's requests until the test lets them go: a file on its way for as long as a test needs. */
import type { Page, Route } from '@playwright/test';

/** Holds matching requests of the page (not its worker's) until release() is called; later ones then pass. */
export async function hold(page: Page, url: RegExp | string | ((url: URL) => boolean)) {
  const held: Route[] = [];
  let released = false;
  await page.route(url, (route) => (released ? route.continue() : void held.push(route)));
  return {
    held,
    release: async () => {
      released = true;
      await Promise.all(held.map((route) => route.continue()));
    },
  };
}
