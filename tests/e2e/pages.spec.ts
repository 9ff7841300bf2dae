import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, startServer, test, type RunningServer } from './fixtures';
import { RACE_REQUEST_MAILTO, SUPPORT_EMAIL, TAGLINE } from '../../src/config';
import { RACES } from '../../contract/races';

/** The date as Intl writes it in American English: the page writes it by hand (contract/dates.ts). */
const intlRaceDate = (isoDate: string) =>
  new Date(`${isoDate}T12:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

const STEPS = [
  'Choose your race from events across the US, Canada, Europe and Australia.',
  'Friends and family record messages at specific mile markers.',
  'The notes play automatically on race day.',
];

test.describe('the home page', () => {
  test('should show the tagline word for word over a looping, muted, inline, autoplaying video with a poster', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(TAGLINE);
    const video = page.locator('video');
    for (const attribute of ['loop', 'muted', 'autoplay', 'playsinline']) await expect(video).toHaveAttribute(attribute, '');
    await expect(video).toHaveAttribute('poster', '/media/hero-poster.webp');
    expect(await video.evaluate((v: HTMLVideoElement) => v.muted)).toBe(true);
    // The first paint must not wait for the video: it may not ask to buffer the whole file.
    await expect(video).toHaveAttribute('preload', /^(none|metadata)$/);
    const sources = await video.locator('source').evaluateAll((els) => els.map((el) => (el as HTMLSourceElement).src));
    for (const src of [...sources, new URL('/media/hero-poster.webp', page.url()).href]) {
      expect((await page.request.get(src)).ok(), src).toBe(true);
    }
  });

  test('should say in the hero that the app is coming, and link to no store, while no App Store address is set', async ({ page }) => {
    await page.goto('/');
    const hero = page.getByRole('region', { name: TAGLINE });
    await expect(hero.getByText('Coming soon to the App Store')).toBeVisible();
    await expect(page.getByRole('link', { name: /App Store|Download/ })).toHaveCount(0);
    await expect(page.locator('a[href*="apple.com"], a[href=""], a:not([href])')).toHaveCount(0);
    // The header's link to the app leads to that badge.
    await page.getByRole('link', { name: 'The iPhone app' }).click();
    await expect(page).toHaveURL(/\/#app$/);
    await expect(hero.getByText('Coming soon to the App Store')).toBeInViewport();
  });

  test('should explain How It Works in three cards, in the order of the spec', async ({ page }) => {
    await page.goto('/');
    const section = page.getByRole('region', { name: 'How It Works' });
    await expect(section.getByRole('listitem')).toHaveCount(3);
    await expect(section.getByRole('heading', { level: 3 })).toHaveText(STEPS);
  });

  test('should open a pre-filled e-mail about a new race to the support address from Get in touch', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: "Don't see your race?" })).toBeVisible();
    await expect(page.getByText("Tell us. We're adding new races every day!", { exact: true })).toBeVisible();
    const href = await page.getByRole('link', { name: 'Get in touch' }).getAttribute('href');
    expect(href).toBe(RACE_REQUEST_MAILTO);
    const mail = new URL(href!);
    expect(mail.protocol).toBe('mailto:');
    expect(mail.pathname).toBe(SUPPORT_EMAIL);
    expect(mail.searchParams.get('subject')).toBe('New race request');
    expect(mail.searchParams.get('body')).toContain('Please add my race');
    expect(mail.searchParams.get('body')).toContain('Race name:');
  });

  test('should link to the Terms, the Privacy Policy and the support address from the footer', async ({ page }) => {
    await page.goto('/');
    const footer = page.getByRole('contentinfo');
    await expect(footer.getByRole('link', { name: 'Terms of Service' })).toHaveAttribute('href', '/terms');
    await expect(footer.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacy');
    await expect(footer.getByRole('link', { name: SUPPORT_EMAIL })).toHaveAttribute('href', `mailto:${SUPPORT_EMAIL}`);
  });
});

/** A date far from any build date, so a match proves the page shows the visitor's today. */
const FAKE_NOW = new Date('2031-03-14T10:00:00');
const FAKE_TODAY = 'March 14, 2031';

// The spec's nine show when no race of the catalogue is still ahead: on a server of their own, since
// other files add races ahead to the shared one (tests/e2e/home-races.spec.ts shows those).
test.describe('the home page with no race ahead in the catalogue', () => {
  let catalogue: RunningServer;
  test.beforeAll(async () => {
    catalogue = await startServer();
  });
  test.afterAll(async () => catalogue?.stop());

  test('should list the nine races twice in a row with exact names and dates, the second copy hidden from assistive technology', async ({ page }) => {
    await page.goto(`${catalogue.url}/`);
    const lists = page.locator('.carousel .race-list');
    await expect(lists).toHaveCount(2);
    await expect(page.locator('.race-card')).toHaveCount(18);
    for (const [i, list] of [lists.first(), lists.last()].entries()) {
      await expect(list.locator('.race-card__name'), `copy ${i + 1}`).toHaveText(RACES.map((race) => race.name));
      await expect(list.locator('.race-card__date'), `copy ${i + 1}`).toHaveText(RACES.map((race) => intlRaceDate(race.date)));
    }
    await expect(lists.first().locator('.race-card__date').first()).toHaveText('Aug 31, 2025');
    await expect(lists.first().locator('.race-card__date').last()).toHaveText('Nov 23, 2025');
    await expect(lists.first()).not.toHaveAttribute('aria-hidden');
    await expect(lists.last()).toHaveAttribute('aria-hidden', 'true');
    // Assistive technology meets each race once.
    for (const race of RACES) await expect(page.getByRole('heading', { name: race.name, exact: true })).toHaveCount(1);
    await expect(lists.last().locator('a, button, [tabindex]:not([tabindex="-1"])')).toHaveCount(0);
    for (const race of RACES) expect((await page.request.get(race.image)).ok(), race.image).toBe(true);
  });

  test('should pause the moving race list on hover and on focus', async ({ page }) => {
    await page.goto(`${catalogue.url}/`);
    const track = page.locator('.carousel__track');
    const playState = () => track.evaluate((el) => getComputedStyle(el).animationPlayState);
    await expect(track).toHaveCSS('animation-name', 'race-scroll');
    expect(await playState()).toBe('running');
    await page.locator('.carousel').hover();
    await expect.poll(playState).toBe('paused');
    await page.mouse.move(0, 0);
    await expect.poll(playState).toBe('running');
    await page.locator('.carousel').focus();
    await expect.poll(playState).toBe('paused');
  });

  test('should keep the race list still and scrollable, once, under reduced motion', async ({ page }) => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto(`${catalogue.url}/`);
    await expect(page.locator('.carousel__track')).toHaveCSS('animation-name', 'none');
    await expect(page.locator('.race-list[aria-hidden="true"]')).toBeHidden();
    await expect(page.locator('.carousel')).toHaveCSS('overflow-x', 'auto');
    const carousel = page.locator('.carousel');
    expect(await carousel.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await expect(page.locator('video')).toBeHidden();
  });
});

const HERO_VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

/** The hero's badge whole on the first screen, big enough to tap, with no axe-core violation on the page; its screenshot saved. */
async function checkHero(page: Page, url: string, viewport: { width: number; height: number }, name: string) {
  await page.setViewportSize(viewport);
  await page.goto(url);
  const badge = page.locator('#app');
  await expect(badge).toBeInViewport({ ratio: 1 });
  const box = (await badge.boundingBox())!;
  expect(box.height).toBeGreaterThanOrEqual(44);
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  await page.screenshot({ path: path.join('test-results', 'screenshots', `home-hero-${name}-${viewport.width}x${viewport.height}.png`) });
}

test.describe('the hero with no App Store address', () => {
  for (const viewport of HERO_VIEWPORTS) {
    test(`should show the coming badge whole at ${viewport.width}x${viewport.height} with no axe-core violation, and save its screenshot`, async ({ page }) => {
      await checkHero(page, '/', viewport, 'coming');
    });
  }
});

// A server told the app's page on the App Store: the hero's badge links there, and only there.
test.describe('the hero of a site whose app is on the App Store', () => {
  const APP_STORE_URL = 'https://apps.apple.com/us/app/milenotes/id1234567890';
  let site: RunningServer;
  test.beforeAll(async () => {
    site = await startServer({ APP_STORE_URL });
  });
  test.afterAll(async () => site?.stop());

  test("should link the App Store badge to the app's store page", async ({ page }) => {
    await page.goto(`${site.url}/`);
    const badge = page.getByRole('link', { name: 'Download on the App Store' });
    await expect(badge).toHaveAttribute('href', APP_STORE_URL);
    await expect.poll(() => badge.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    await expect(page.getByText('Coming soon')).toHaveCount(0);
  });

  for (const viewport of HERO_VIEWPORTS) {
    test(`should show the store badge whole at ${viewport.width}x${viewport.height} with no axe-core violation, and save its screenshot`, async ({ page }) => {
      await checkHero(page, `${site.url}/`, viewport, 'linked');
    });
  }
});

test.describe('the legal pages', () => {
  for (const { path, heading, sections } of [
    { path: '/terms', heading: 'Terms of Service', sections: 10 },
    { path: '/privacy', heading: 'Privacy Policy', sections: 11 },
  ]) {
    test(`should show the ${heading} in exactly ${sections} numbered sections`, async ({ page }) => {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
      const titles = page.locator('main section h2');
      await expect(titles).toHaveCount(sections);
      const numbers = (await titles.allTextContents()).map((title) => Number(/^(\d+)\. \S/.exec(title)?.[1]));
      expect(numbers).toEqual(Array.from({ length: sections }, (_, i) => i + 1));
    });

    test(`should date the ${heading} with the visitor's current date, not the build's`, async ({ page }) => {
      await page.clock.setFixedTime(FAKE_NOW);
      await page.goto(path);
      await expect(page.getByText(/^Last updated:/)).toHaveText(`Last updated: ${FAKE_TODAY}`);
    });

    test(`should lead back to the home page from the ${heading}`, async ({ page }) => {
      await page.goto(path);
      await page.getByRole('link', { name: 'Back to home' }).click();
      await expect(page).toHaveURL(/\/$/);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(TAGLINE);
    });
  }

  test("should keep the visitor's date when reached from the home page without a reload", async ({ page }) => {
    await page.clock.setFixedTime(FAKE_NOW);
    await page.goto('/');
    await page.getByRole('contentinfo').getByRole('link', { name: 'Privacy Policy' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Privacy Policy');
    await expect(page.getByText(/^Last updated:/)).toHaveText(`Last updated: ${FAKE_TODAY}`);
  });

  test('should open a legal page at its top when reached from the footer at the bottom of the home page', async ({ page }) => {
    await page.goto('/');
    const link = page.getByRole('contentinfo').getByRole('link', { name: 'Terms of Service' });
    await link.scrollIntoViewIfNeeded();
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    await link.click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Terms of Service');
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
  });

  test('should state who signs in how, who records where, who may listen, and the minimum age in the Terms', async ({ page }) => {
    await page.goto('/terms');
    const main = page.getByRole('main');
    await expect(main).toContainText('Runners sign in to the app with Apple Sign-in');
    await expect(main).toContainText('Friends and family record voice messages through our web interface');
    await expect(main).toContainText('accessible only to the runner it was recorded for, unless that runner chooses to share it explicitly');
    await expect(main).toContainText('not intended for children under 13');
    await expect(main.getByRole('link', { name: SUPPORT_EMAIL })).toHaveAttribute('href', `mailto:${SUPPORT_EMAIL}`);
  });

  test('should say in the Privacy Policy that deletion is requested in the app settings, and give the support contact', async ({ page }) => {
    await page.goto('/privacy');
    const main = page.getByRole('main');
    await expect(main).toContainText("You can request deletion of your account in the app's Settings");
    await expect(main).toContainText('Runners sign in with Apple Sign-in');
    await expect(main).toContainText('accessible only to the runner they were recorded for, unless that runner shares them explicitly');
    await expect(main).toContainText('not for children under 13');
    const contacts = main.getByRole('link', { name: SUPPORT_EMAIL });
    await expect(contacts.first()).toHaveAttribute('href', `mailto:${SUPPORT_EMAIL}`);
  });
});

test.describe('an address that leads nowhere', () => {
  test('should answer 404 with a friendly page and a way home', async ({ page }) => {
    const response = await page.goto('/no-such-page');
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText("We can't find that page");
    await page.getByRole('link', { name: 'Back to the home page' }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(TAGLINE);
  });
});

test.describe('accessibility on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });
  for (const path of ['/', '/terms', '/privacy', '/no-such-page']) {
    test(`should have no axe-core violations on ${path} at 390x844`, async ({ page }) => {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      const results = await new AxeBuilder({ page }).analyze();
      expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    });
  }
});
