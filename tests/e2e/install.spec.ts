import { expect, test } from './fixtures';

test.describe('installing the site to the home screen', () => {
  test('should offer a complete web app manifest with regular and maskable icons', async ({ page, request }) => {
    await page.goto('/');
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(href).toBeTruthy();
    const response = await request.get(href!);
    expect(response.ok()).toBe(true);
    const manifest = await response.json();
    // The installed app starts on its own page: the runners this phone records for. Its id
    // stays '/', so a copy installed before is the same app; its scope holds the recorders.
    expect(manifest).toMatchObject({ name: 'MileNotes', id: '/', start_url: '/home-screen', scope: '/', display: 'standalone' });
    expect(manifest.short_name).toBeTruthy();
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
    expect(manifest.background_color).toBeTruthy();
    const icons: Array<{ src: string; sizes: string; purpose?: string }> = manifest.icons;
    expect(icons.some((icon) => icon.sizes === '192x192')).toBe(true);
    expect(icons.some((icon) => icon.sizes === '512x512')).toBe(true);
    expect(icons.some((icon) => (icon.purpose ?? '').includes('maskable'))).toBe(true);
    for (const icon of icons) {
      const image = await request.get(icon.src);
      expect(image.ok(), icon.src).toBe(true);
    }
  });

  test('should carry the iOS home-screen tags and a theme colour', async ({ page, request }) => {
    await page.goto('/');
    const touchIcon = await page.locator('link[rel="apple-touch-icon"]').getAttribute('href');
    expect((await request.get(touchIcon!)).ok()).toBe(true);
    await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', /^#/);
    await expect(page.locator('meta[name="apple-mobile-web-app-capable"]')).toHaveAttribute('content', 'yes');
    await expect(page.locator('meta[name="apple-mobile-web-app-title"]')).toHaveAttribute('content', 'MileNotes');
  });

  test('should be controlled by a service worker after the first visit', async ({ page }) => {
    await page.goto('/');
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller?.scriptURL.endsWith('/sw.js'));
  });
});
