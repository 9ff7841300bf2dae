import type { Page } from '@playwright/test';
import { RECORDER_LEAD } from '../../src/shell';
import { expect, test } from './fixtures';
import { hold } from './support/hold';

const RECORDER_CHUNK = /\/assets\/recorder(App)?-[^/]+\.(js|css)$/;

// These tests steer the chunk's requests with page.route, which cannot see requests the
// service worker makes; so the worker is kept out of them.
test.use({ serviceWorkers: 'block' });

/** Holds the recorder chunk's requests until release() is called. */
const holdRecorderChunk = (page: Page) => hold(page, RECORDER_CHUNK);

test.describe('the /r/:token screen while its chunk loads', () => {
  // A live link's page comes with its first screen drawn (tests/e2e/first-tap.spec.ts); the worker's
  // shell, which answers a link offline and on later visits, carries none and shows the spinner.
  test("should show a spinner with Loading... and what the screen is for until the chunk arrives, then the recorder (the worker's shell)", async ({
    page,
    server,
  }) => {
    const token = await server.createLink('Alex', 'chicago-2025');
    await page.route(
      (url) => url.pathname === `/r/${token}`,
      async (route) => route.fulfill({ response: await route.fetch({ url: `${server.url}/r.html` }) }),
    );
    const chunk = await holdRecorderChunk(page);
    await page.goto(`/r/${token}`, { waitUntil: 'domcontentloaded' });
    const spinner = page.getByRole('status').filter({ hasText: 'Loading...' });
    await expect(spinner).toBeVisible();
    await expect.poll(() => chunk.held.length).toBeGreaterThan(0);
    await expect(spinner).toBeVisible();
    await expect(page.getByText(RECORDER_LEAD)).toBeVisible();
    await chunk.release();
    await expect(page.getByRole('button', { name: 'Record' })).toBeVisible();
    await expect(page.getByText('Loading...', { exact: true })).toBeHidden();
    await expect(page.getByText(RECORDER_LEAD)).toBeHidden();
  });

  test('should tell the person plainly and offer Try again when the chunk fails to download', async ({ page, consoleMessages }) => {
    await page.route(RECORDER_CHUNK, (route) => route.abort('internetdisconnected'));
    await page.goto('/r/some-token', { waitUntil: 'domcontentloaded' });
    const alert = page.getByRole('alert');
    await expect(alert).toContainText("couldn't load");
    await expect.poll(() => consoleMessages.join('\n')).toMatch(/Loading chunk recorder failed\.\n\(error: \S*\/assets\/recorder\S*\)/);

    await page.unroute(RECORDER_CHUNK);
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect(page.getByText('Loading...', { exact: true })).toBeHidden();
    await expect(page.getByRole('alert').filter({ hasText: "couldn't load" })).toHaveCount(0);
  });

  test('should call a chunk the server no longer has missing', async ({ page, consoleMessages }) => {
    await page.route(RECORDER_CHUNK, (route) => route.fulfill({ status: 404, body: 'gone' }));
    await page.goto('/r/some-token', { waitUntil: 'domcontentloaded' });
    await expect(page.getByRole('alert')).toContainText("couldn't load");
    await expect.poll(() => consoleMessages.join('\n')).toMatch(/Loading chunk recorder failed\.\n\(missing: \S*\/assets\/recorder\S*\)/);
  });

  test('should give up after 120 seconds with a timeout error, not spin forever', async ({ page, consoleMessages }) => {
    await page.clock.install();
    const chunk = await holdRecorderChunk(page);
    await page.goto('/r/some-token', { waitUntil: 'domcontentloaded' });
    await expect.poll(() => chunk.held.length).toBeGreaterThan(0);
    await page.clock.runFor(119_000);
    await expect(page.getByText('Loading...', { exact: true })).toBeVisible();
    await page.clock.runFor(1_500);
    await expect(page.getByRole('alert')).toContainText("couldn't load");
    expect(consoleMessages.join('\n')).toContain('Loading chunk recorder failed.\n(timeout: recorder)');
  });

  test('should not reload by itself after a failure', async ({ page }) => {
    await page.route(RECORDER_CHUNK, (route) => route.abort('failed'));
    await page.goto('/r/some-token', { waitUntil: 'domcontentloaded' });
    await expect(page.getByRole('alert')).toBeVisible();
    await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));
    // Give a runaway reload every chance to show itself: the page must still be the same one.
    await page.waitForLoadState('networkidle');
    await expect(page.getByRole('alert')).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
  });
});
