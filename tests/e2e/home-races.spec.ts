/**
 * The home page's Upcoming Events come from the race catalogue: a race added with the
 * CLI shows within the page's cache time, with no rebuild and no restart, in the HTML itself (a
 * browser without JavaScript sees it) and through the service worker; the spec's nine while no race
 * is ahead. One race shows one card; the carousel loops only with enough races to fill the view
 * (five), and shows fewer once each, still. One server for the file, its cache time cut to 2 s so
 * the bound is short to wait for.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, startServer, test, type RunningServer } from './fixtures';
import { RACES } from '../../contract/races';
import { waitForControllingWorker } from './support/worker';

const CACHE_SECONDS = 2;
/** What a page may lag behind the catalogue: the cache time, plus a reload's round trip on a busy machine. */
const BOUND_MS = CACHE_SECONDS * 1000 + 3_000;
const HOSTILE_NAME = 'Rock <b>n</b> Roll & "Friends" Marathon';
const SCREENSHOTS = path.join(process.cwd(), 'test-results', 'screenshots');

let server: RunningServer;
let dir: string;

test.beforeAll(async () => {
  server = await startServer({ HOME_PAGE_CACHE_SECONDS: String(CACHE_SECONDS) });
  dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-home-races-'));
});
test.afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

const addRace = (id: string, name: string, date: string, ...more: string[]) =>
  server.admin('add-race', '--id', id, '--name', name, '--date', date, '--timezone', 'America/Chicago', '--start', '07:30', ...more);

/** The names on the visible copy of the cards. */
const cardNames = (page: Page) => page.locator('.race-list').first().locator('.race-card__name').allTextContents();

/** Reloads until the first card is `name`; returns how long after `since` it showed. */
async function reloadUntilFirst(page: Page, name: string, since: number): Promise<number> {
  await expect
    .poll(
      async () => {
        await page.reload();
        return (await cardNames(page))[0];
      },
      { timeout: BOUND_MS + 5_000, intervals: [250] },
    )
    .toBe(name);
  return Date.now() - since;
}

test("should show the spec's nine, then races added with add-race in their place within the cache time, to a browser without JavaScript, with no restart", async ({
  browser,
}) => {
  const context = await browser.newContext({ javaScriptEnabled: false, baseURL: server.url });
  const page = await context.newPage();
  const pid = server.pid();
  try {
    await page.goto(`${server.url}/`);
    await expect(page.locator('.race-list').first().locator('.race-card__name')).toHaveText(RACES.map((r) => r.name));

    await promisify(execFile)('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=960x540',
      '-frames:v',
      '1',
      '-q:v',
      '4',
      path.join(dir, 'harbour.jpg'),
    ]);
    await addRace('harbour-2099', 'Harbour Marathon', '2099-03-20', '--image', path.join(dir, 'harbour.jpg'));
    const added = Date.now();
    expect(await reloadUntilFirst(page, 'Harbour Marathon', added)).toBeLessThanOrEqual(BOUND_MS);
    // One race ahead: its card once, still (too few to fill the view and loop).
    await expect(page.locator('.race-card')).toHaveCount(1);
    await expect(page.locator('.carousel')).toHaveClass('carousel carousel--still');

    await addRace('lakefront-2099', HOSTILE_NAME, '2099-04-10');
    await expect
      .poll(
        async () => {
          await page.reload();
          return cardNames(page);
        },
        { timeout: BOUND_MS + 5_000, intervals: [250] },
      )
      .toEqual(['Harbour Marathon', HOSTILE_NAME]);

    // The HTML itself: names as text, dates as the spec writes them, each picture loaded; each race once.
    const first = page.locator('.race-list').first();
    await expect(first.locator('.race-card__date')).toHaveText(['Mar 20, 2099', 'Apr 10, 2099']);
    await expect(page.locator('.race-list')).toHaveCount(1);
    await expect(page.locator('.race-card')).toHaveCount(2);
    await expect(page.locator('.race-card b')).toHaveCount(0);
    const images = first.locator('.race-card__image');
    await expect(images.first()).toHaveAttribute('src', /^\/race-images\/harbour-2099\.[0-9a-f]{16}\.card\.webp$/);
    await expect(images.last()).toHaveAttribute('src', '/races/generic.svg');
    await expect
      .poll(() => images.evaluateAll((imgs) => (imgs as HTMLImageElement[]).map((img) => img.complete && img.naturalWidth > 0)))
      .toEqual([true, true]);
    expect(server.pid()).toBe(pid);
  } finally {
    await context.close();
  }
});

test('should not let the service worker keep an old list: the installed page shows a new race within the cache time, and the last list offline', async ({
  page,
  context,
}) => {
  await page.goto(`${server.url}/`);
  await waitForControllingWorker(page);
  const reloaded = await page.reload();
  expect(reloaded?.fromServiceWorker()).toBe(true);

  await addRace('summit-2099', 'Summit Marathon', '2099-02-01');
  expect(await reloadUntilFirst(page, 'Summit Marathon', Date.now())).toBeLessThanOrEqual(BOUND_MS);

  await context.setOffline(true);
  try {
    await page.reload();
    expect((await cardNames(page))[0]).toBe('Summit Marathon');
  } finally {
    await context.setOffline(false);
  }
});

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

/** The carousel's cards shown, each picture loaded, all of a height, the page no wider than the view, no axe-core violation in it; its screenshot saved. */
async function checkCarousel(page: Page, viewport: { width: number; height: number }, name: string) {
  await page.setViewportSize(viewport);
  await page.goto(`${server.url}/`);
  const carousel = page.getByRole('region', { name: 'Upcoming races' });
  await carousel.scrollIntoViewIfNeeded();
  await expect
    .poll(() =>
      carousel.locator('img[loading="eager"]').evaluateAll((imgs) => (imgs as HTMLImageElement[]).every((img) => img.complete && img.naturalWidth > 0)),
    )
    .toBe(true);
  // The photo (16:9) fills the card's 8:5 frame, cut to fit, like the drawings.
  const boxes = await carousel
    .locator('.race-list')
    .first()
    .locator('.race-card__image')
    .evaluateAll((imgs) => imgs.map((img) => img.getBoundingClientRect().height));
  expect(new Set(boxes).size).toBe(1);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
  const { violations } = await new AxeBuilder({ page }).include('.carousel').analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  await page
    .getByRole('region', { name: 'Upcoming Events' })
    .screenshot({ path: path.join(SCREENSHOTS, `home-races-${name}-${viewport.width}x${viewport.height}.png`), animations: 'disabled' });
  return carousel;
}

/** How wide one copy of the list is, against the view it slides through. */
const widths = (page: Page) =>
  page.locator('.carousel').evaluate((el) => ({ copy: el.querySelector('.race-list')!.getBoundingClientRect().width, view: el.clientWidth }));

for (const viewport of VIEWPORTS) {
  test(`should show three races once each, still, at ${viewport.width}x${viewport.height}, with and without a picture, with no axe-core violation, and save their screenshot`, async ({
    page,
  }) => {
    const carousel = await checkCarousel(page, viewport, 'three');
    await expect(carousel.locator('.race-card')).toHaveCount(3);
    await expect(carousel.locator('.carousel__track')).toHaveCSS('animation-name', 'none');
    const { copy, view } = await widths(page);
    if (viewport.width < 500) {
      // More than a phone shows: scrolled by hand.
      expect(copy).toBeGreaterThan(view);
      expect(await carousel.evaluate((el) => getComputedStyle(el).overflowX)).toBe('auto');
    } else {
      // A window shows them all, side by side in the middle.
      expect(copy).toBeLessThan(view);
      const track = (await carousel.locator('.carousel__track').boundingBox())!;
      expect(Math.abs(track.x - (viewport.width - (track.x + track.width)))).toBeLessThanOrEqual(2);
    }
  });
}

test('should loop five races, the list twice in a row, one copy as wide as the view at 390 and 1280 px (no end of the list shows)', async ({ page }) => {
  await addRace('river-2099', 'River Marathon', '2099-04-20');
  await addRace('valley-2099', 'Valley Marathon', '2099-04-27');
  await expect
    .poll(
      async () => {
        await page.goto(`${server.url}/`);
        return page.locator('.race-list').first().locator('.race-card').count();
      },
      { timeout: BOUND_MS + 5_000, intervals: [250] },
    )
    .toBe(5);
  for (const viewport of VIEWPORTS) {
    const carousel = await checkCarousel(page, viewport, 'five');
    await expect(carousel.locator('.race-list')).toHaveCount(2);
    await expect(carousel.locator('.race-list').last()).toHaveAttribute('aria-hidden', 'true');
    await expect(carousel.locator('.carousel__track')).toHaveCSS('animation-name', 'race-scroll');
    const { copy, view } = await widths(page);
    expect(copy, `at ${viewport.width} px`).toBeGreaterThanOrEqual(view);
  }
});
