import { expect, test } from './fixtures';
import { TAGLINE } from '../../src/config';
import { waitForControllingWorker } from './support/worker';

test.describe('the service worker', () => {
  test('should log its registration to the console and show nothing to the person', async ({ page, consoleMessages }) => {
    await page.goto('/');
    await expect.poll(() => consoleMessages.join('\n')).toContain('Service worker registered with scope');
    await expect(page.getByText(/service worker/i)).toHaveCount(0);
  });

  test('should open the home, terms and privacy pages and a visited link with no network', async ({ page, context, server }) => {
    const token = await server.createLink('Alex', 'chicago-2025');
    await page.goto(`/r/${token}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Alex' })).toBeVisible();
    await waitForControllingWorker(page);
    await page.goto('/');
    await waitForControllingWorker(page);

    await context.setOffline(true);
    try {
      await page.reload();
      await expect(page.getByText(TAGLINE)).toBeVisible();
      await page.goto('/terms');
      await expect(page.getByRole('heading', { level: 1 })).toContainText('Terms');
      await expect(page.getByText(/Last updated/)).toBeVisible();
      await page.goto('/privacy');
      await expect(page.getByRole('heading', { level: 1 })).toContainText('Privacy');
      // The link opened once is kept on the device: the runner's name, the race and the Record button, offline.
      await page.goto(`/r/${token}`);
      await expect(page.getByRole('heading', { level: 1, name: 'Alex' })).toBeVisible();
      await expect(page.getByText(/^Chicago Marathon · /)).toBeVisible();
      await expect(page.getByRole('button', { name: 'Record' })).toBeVisible();
      await expect(page.getByRole('alert')).toHaveCount(0);
    } finally {
      await context.setOffline(false);
    }
  });

  test('should show the not-found page for an unknown path with no network', async ({ page, context }) => {
    await page.goto('/');
    await waitForControllingWorker(page);
    await context.setOffline(true);
    try {
      await page.goto('/no-such-page');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText("We can't find that page");
      await expect(page.getByRole('link', { name: 'Back to the home page' })).toBeVisible();
    } finally {
      await context.setOffline(false);
    }
  });
});
