import type { Page } from '@playwright/test';

/** Waits until the site's service worker is active and controls the page (needed before going offline). */
export async function waitForControllingWorker(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}
