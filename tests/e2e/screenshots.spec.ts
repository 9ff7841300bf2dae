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
        await page.waitForFunction(() => [...document.images].filter((img) => img.loading !== 'lazy').every((img) => img.complete && img.naturalWidth > 0));
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

// The recorder with a long runner's name, in every language: the picker's prompt names the runner
// (French: "Choisissez où Camille Martin l'entendra"), and a select is as wide as its longest line
// unless its column says otherwise. A layout once put it 3 px past a phone's edge.
const LANGUAGE_MENU_NAMES = { en: 'English', fr: 'Français', de: 'Deutsch', es: 'Español' } as const;
for (const viewport of VIEWPORTS) {
  test.describe(`the recorder at ${viewport.width}x${viewport.height}`, () => {
    test.use({ viewport });
    test('should fit the recorder with a long runner’s name to the screen width in every language, and save its screenshots', async ({ page, server }) => {
      await page.goto(`/r/${await server.createLink('Camille Martin-Delacroix')}`);
      await expect(page.getByRole('button', { name: 'Record', exact: true })).toBeVisible();
      for (const [lang, menuName] of Object.entries(LANGUAGE_MENU_NAMES)) {
        await page.getByTestId('language-menu').selectOption({ label: menuName });
        await expect(page.locator('html')).toHaveAttribute('lang', lang);
        await expect(page.getByTestId('language-menu')).toBeEnabled();
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
        expect(scrollWidth, lang).toBeLessThanOrEqual(innerWidth);
        await page.screenshot({ path: path.join(OUT, `recorder-long-name-${lang}-${viewport.width}x${viewport.height}.png`), fullPage: true });
      }
    });
  });
}
