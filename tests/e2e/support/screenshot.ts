/** The recorder's screen as a picture for people to look at, under test-results/screenshots/ (a test's output, not the kit's). */
import type { Page } from '@playwright/test';

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-results/screenshots/recorder-${name}.png`, fullPage: true });
}
