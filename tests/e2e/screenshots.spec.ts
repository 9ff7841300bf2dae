import path from 'node:path';
import { expect, test } from './fixtures';

// Screenshots for people to look at (not compared to a baseline): each page at a phone and a
// laptop size, saved under test-results/screenshots/. What is asserted is what breaks a layout
// on a phone most often: content wider than the screen.
const OUT = path.join(process.cwd(), 'test-results', 'screenshots');
const PAGES = [
  { name: 'home', path: '/' },
  { name: 'terms', path: '/terms' },
  { name: 'privacy', path: '/privacy' },
  { name: 'not-found', path: '/no-such-page' },
];
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.width}x${viewport.height}`, () => {
    test.use({ viewport });
    for (const { name, path: pagePath } of PAGES) {
      test(`should fit the ${name} page to the screen width and save its screenshot`, async ({ page }) => {
        await page.goto(pagePath);
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        // Wait for the images that are meant to show at once, so the picture is the real one.
        await page.waitForFunction(() =>
          [...document.images].filter((img) => img.loading !== 'lazy').every((img) => img.complete && img.naturalWidth > 0),
        );
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
        }));
        expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
        await page.screenshot({ path: path.join(OUT, `${name}-${viewport.width}x${viewport.height}.png`), fullPage: true });
      });
    }
  });
}
