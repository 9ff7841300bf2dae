import { expect, test } from './fixtures';
import { TAGLINE } from '../../src/shared/config';

async function waitForControllingWorker(page: import('@playwright/test').Page) {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}

test.describe('the service worker', () => {
  test('should log its registration to the console and show nothing to the person', async ({ page, consoleMessages }) => {
    await page.goto('/');
    await expect.poll(() => consoleMessages.join('\n')).toContain('Service worker registered with scope');
    await expect(page.getByText(/service worker/i)).toHaveCount(0);
  });

  test('should open the home, terms and privacy pages and a visited link with no network', async ({ page, context, server }) => {
    await page.goto('/r/some-token');
    await waitForControllingWorker(page);
    await page.goto('/');
    await waitForControllingWorker(page);

    await context.setOffline(true);
    await page.reload();
    await expect(page.getByText(TAGLINE)).toBeVisible();
    await page.goto('/terms');
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Terms');
    await expect(page.getByText(/Last updated/)).toBeVisible();
    await page.goto('/privacy');
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Privacy');
    await page.goto('/r/some-token');
    await expect(page.getByText('Loading...', { exact: true })).toBeHidden();
    await expect(page.getByRole('alert').filter({ hasText: "couldn't load" })).toHaveCount(0);
    await context.setOffline(false);
    expect(server.url).toBeTruthy();
  });

  test('should show the not-found page for an unknown path with no network', async ({ page, context }) => {
    await page.goto('/');
    await waitForControllingWorker(page);
    await context.setOffline(true);
    await page.goto('/no-such-page');
    await expect(page.getByRole('link', { name: /home/i }).first()).toBeVisible();
    await context.setOffline(false);
  });
});
