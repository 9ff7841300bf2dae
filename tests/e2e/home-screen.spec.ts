/**
 * The installed app, in Chromium against the real server and service worker: where it
 * starts (the manifest's start_url, the runners this phone records for, offline), what crosses to
 * an iPhone's home-screen app (the cookies alone), the icon's count of notes waiting, and installing
 * offered after the first note is sent: Chromium's kept prompt, iPhone Safari's hint in each language.
 */
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Page } from '@playwright/test';
import { expect, speechWav, test } from './fixtures';
import { addUpcomingRace, UPCOMING_RACE } from '../../kit/races';
import { fillDetails, launchPhone, noteStates, openRecorder, record, serverNotes } from '../../kit/browser/recorder';
import type { RunningServer } from '../../kit/server';
import { holdKeptLinks, keptGone, keptLinkCount } from './support/keptLinks';

const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

test.beforeAll(async ({ server }) => {
  await addUpcomingRace(server);
});

const runners = (page: Page) => page.getByTestId('runner');

/** A picture for people to look at, at the phone's size, under test-results/screenshots/. */
const screenshot = (page: Page, name: string) => page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true });

/** Where the installed app starts: the manifest's own start_url, as the phone reads it. */
async function startUrl(server: RunningServer, page: Page): Promise<string> {
  const manifest = (await (await page.request.get(`${server.url}/manifest.webmanifest`)).json()) as { start_url: string };
  return new URL(manifest.start_url, server.url).href;
}

/** Every call the pages make to the Badging API, as 'set N' or 'clear', across navigations. */
async function spyOnBadge(context: BrowserContext): Promise<string[]> {
  const calls: string[] = [];
  await context.exposeBinding('badgeSpy', (_source, call: string) => void calls.push(call));
  await context.addInitScript(() => {
    const spy = (call: string) => (window as unknown as { badgeSpy: (call: string) => Promise<void> }).badgeSpy(call);
    Object.defineProperty(Navigator.prototype, 'setAppBadge', { configurable: true, value: (n?: number) => spy(`set ${n}`) });
    Object.defineProperty(Navigator.prototype, 'clearAppBadge', { configurable: true, value: () => spy('clear') });
  });
  return calls;
}

/** Records a short note for the open recorder and sends it. */
async function sendNote(page: Page, marker = 'Mile 20'): Promise<void> {
  await fillDetails(page, marker, 'Sam');
  await record(page, 2);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** The list the server gives this browser's device cookie. */
const serverList = (page: Page) =>
  page.evaluate(async () =>
    ((await (await fetch('/api/device/links')).json()) as { links: { runner: { displayName: string } }[] }).links.map((l) => l.runner.displayName),
  );

test.describe("the installed app's start", () => {
  test("starts offline on this phone's runners with their races, a dead link and the notes waiting, which the icon counts; a runner leaves the list, a waiting note never", async ({
    server,
  }) => {
    // The admin CLI is a process each: side by side, they cost the test one start instead of three.
    const [alex, jo, kim] = await Promise.all([
      server.createLink('Alex', UPCOMING_RACE),
      server.createLink('Jo', 'chicago-2025'),
      server.createLink('Kim', 'berlin-2025'),
    ]);
    const { context } = await launchPhone(await speechWav());
    const badge = await spyOnBadge(context);
    try {
      const page = await openRecorder(context, server, alex);
      for (const [i, token] of [jo, kim].entries()) {
        await page.goto(`${server.url}/r/${token}`);
        // Kept on the phone once React runs the screen: its Record works before, from the page's HTML.
        await expect.poll(() => keptLinkCount(page)).toBe(i + 2);
      }
      await server.admin('revoke-link', `--token=${kim}`);
      const start = await startUrl(server, page);
      expect(new URL(start).pathname).toBe('/home-screen');

      // Online once after the runner turned Kim's link off: the server's list says so, and the phone keeps it.
      await page.goto(start);
      await expect(runners(page).filter({ hasText: 'Kim' })).toContainText('This link no longer works. Ask Kim for a new one.');
      // The screen says so from the server's answer; the phone's own mark, which the start offline reads, follows it.
      await expect.poll(() => keptGone(page, kim)).toBe(true);

      await test.step('a note for Alex is sent with no signal: it waits, and the icon counts it', async () => {
        await context.setOffline(true);
        await page.goto(`${server.url}/r/${alex}`);
        await sendNote(page);
        await expect(noteStates(page)).toHaveText(['Saved on this phone']);
        await expect.poll(() => badge.at(-1)).toBe('set 1');
      });

      await test.step('the home-screen start, still offline', async () => {
        await page.goto(start);
        await expect(page.getByRole('heading', { level: 1, name: 'Your runners' })).toBeVisible();
        await expect(page.getByTestId('home-offline')).toBeVisible();
        await expect(runners(page).getByRole('heading')).toHaveText(['Alex', 'Jo', 'Kim']);
        await expect(page.getByTestId('runner-race')).toHaveText(['Chicago Marathon on Oct 11, 2099', 'Chicago Marathon · over', 'Berlin Marathon · over']);
        await expect(runners(page).filter({ hasText: 'Alex' }).getByTestId('runner-waiting')).toHaveText('1 note waiting on this phone');
        await expect(runners(page).filter({ hasText: 'Kim' }).getByRole('link')).toHaveCount(0);
        await screenshot(page, 'home-screen-offline');
        expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
        // In the person's language, offline too (the worker keeps every language).
        await page.getByTestId('language-menu').selectOption({ label: 'Français' });
        await expect(page.getByRole('heading', { level: 1, name: 'Vos coureurs' })).toBeVisible();
        await expect(runners(page).filter({ hasText: 'Alex' }).getByTestId('runner-waiting')).toHaveText('1 message en attente sur ce téléphone');
        await screenshot(page, 'home-screen-offline-fr');
        await page.getByTestId('language-menu').selectOption({ label: 'English' });
      });

      await test.step('each recorder is one tap away, offline too', async () => {
        await page.getByRole('link', { name: 'Record for Alex' }).click();
        await expect(page.getByRole('heading', { name: 'Alex', exact: true })).toBeVisible();
        await expect(noteStates(page)).toHaveText(['Saved on this phone']);
        await page.goto(start);
      });

      await test.step('Jo is taken off; Alex, with a note waiting, is told so and stays until it has gone', async () => {
        page.once('dialog', (dialog) => void dialog.accept());
        await page.getByRole('button', { name: 'Remove Jo from this list' }).click();
        await expect(runners(page).getByRole('heading')).toHaveText(['Alex', 'Kim']);
        const asked = new Promise<string>((resolve) => page.once('dialog', (dialog) => void dialog.accept().then(() => resolve(dialog.message()))));
        await page.getByRole('button', { name: 'Remove Alex from this list' }).click();
        expect(await asked).toBe(
          '1 note for Alex has not been sent yet. It stays on this phone and will still be sent; Alex comes off the list once it has gone. Take Alex off the list?',
        );
        await expect(runners(page).filter({ hasText: 'Alex' })).toContainText('Comes off this list once its notes are sent.');
        await expect(runners(page).filter({ hasText: 'Alex' }).getByTestId('runner-waiting')).toHaveText('1 note waiting on this phone');
      });

      await test.step('back online: the note goes from the list, the icon is cleared, and the server forgets both runners', async () => {
        await context.setOffline(false);
        await expect(runners(page).getByRole('heading')).toHaveText(['Kim'], { timeout: 15_000 });
        await expect.poll(() => badge.at(-1)).toBe('clear');
        expect(await serverNotes(server, alex)).toMatchObject([{ marker: 'mi-20', from: 'Sam' }]);
        await expect.poll(() => serverList(page)).toEqual(['Kim']);
      });
    } finally {
      await context.close();
    }
  });

  test('a link the runner turned off is kept gone even when the server answers before the phone has read its own list, so offline it opens no recorder', async ({
    server,
  }) => {
    const [alex, kim] = await Promise.all([server.createLink('Alex', UPCOMING_RACE), server.createLink('Kim', 'berlin-2025')]);
    const { context } = await launchPhone(await speechWav());
    try {
      const page = await openRecorder(context, server, alex);
      await page.goto(`${server.url}/r/${kim}`);
      await expect(page.getByRole('button', { name: 'Record' })).toBeVisible();
      await expect.poll(() => keptLinkCount(page)).toBe(2);
      await server.admin('revoke-link', `--token=${kim}`);
      const start = await startUrl(server, page);

      // Another tab writing to the phone's storage: the start's read of its own list waits, the server's answer does not.
      const otherTab = await context.newPage();
      await otherTab.goto(`${server.url}/terms`);
      const release = await holdKeptLinks(otherTab);
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/device/links');
      await page.goto(start);
      await (await answered).finished();
      await page.waitForFunction(() => performance.getEntriesByType('resource').some((entry) => entry.name.endsWith('/api/device/links')));
      await release();

      await expect(runners(page).filter({ hasText: 'Kim' })).toContainText('This link no longer works. Ask Kim for a new one.');
      await expect.poll(() => keptGone(page, kim)).toBe(true);
      await context.setOffline(true);
      await page.reload();
      await expect(page.getByTestId('home-offline')).toBeVisible();
      await expect(runners(page).getByRole('heading')).toHaveText(['Alex', 'Kim']);
      await expect(runners(page).filter({ hasText: 'Kim' })).toContainText('This link no longer works. Ask Kim for a new one.');
      await expect(runners(page).filter({ hasText: 'Kim' }).getByRole('link')).toHaveCount(0);
    } finally {
      await context.close();
    }
  });

  test('back online, a note whose first try does not get through is tried again from the list, and its runner leaves once it has gone', async ({ server }) => {
    const [alex, jo] = await Promise.all([server.createLink('Alex', UPCOMING_RACE), server.createLink('Jo', 'chicago-2025')]);
    const { context } = await launchPhone(await speechWav());
    try {
      const page = await openRecorder(context, server, jo);
      await page.goto(`${server.url}/r/${alex}`);
      await expect(page.getByRole('button', { name: 'Record' })).toBeVisible();
      const start = await startUrl(server, page);
      await context.setOffline(true);
      await sendNote(page);
      await expect(noteStates(page)).toHaveText(['Saved on this phone']);
      await page.goto(start);
      const waiting = runners(page).filter({ hasText: 'Alex' }).getByTestId('runner-waiting');
      await expect(waiting).toHaveText('1 note waiting on this phone');

      // The first try once the signal is back does not get through, as on a venue's link still settling.
      await context.route(`**/api/r/${alex}/notes/**`, (route) => route.abort('connectionfailed'), { times: 1 });
      await context.setOffline(false);
      await expect(waiting).toHaveCount(0);
      expect(await serverNotes(server, alex)).toMatchObject([{ marker: 'mi-20', from: 'Sam' }]);
    } finally {
      await context.close();
    }
  });

  test("lists both runners in a new profile holding only the first one's cookies (what an iPhone gives its home-screen app), then offline too", async ({
    server,
  }) => {
    const [ana, ben] = await Promise.all([server.createLink('Ana', UPCOMING_RACE), server.createLink('Ben', 'chicago-2025')]);
    const wav = await speechWav();
    const safari = await launchPhone(wav);
    const cookies = await (async () => {
      try {
        const page = await openRecorder(safari.context, server, ana);
        await page.goto(`${server.url}/r/${ben}`);
        await expect(page.getByRole('button', { name: 'Record' })).toBeVisible();
        return await safari.context.cookies();
      } finally {
        await safari.context.close();
      }
    })();
    expect(cookies.map((c) => [c.name, c.path, c.httpOnly, c.sameSite])).toEqual([['mn_device_local', '/', true, 'Lax']]);

    const installed = await launchPhone(wav);
    try {
      await installed.context.addCookies(cookies);
      const page = installed.context.pages()[0] ?? (await installed.context.newPage());
      await page.goto(await startUrl(server, page));
      await expect(runners(page).getByRole('heading')).toHaveText(['Ana', 'Ben']);
      // The first start keeps both links, so their recorders open with no signal from then on.
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      await expect.poll(() => keptLinkCount(page)).toBe(2);
      await installed.context.setOffline(true);
      await page.reload();
      await expect(runners(page).getByRole('heading')).toHaveText(['Ana', 'Ben']);
      await page.getByRole('link', { name: 'Record for Ben' }).click();
      await expect(page.getByRole('heading', { name: 'Ben', exact: true })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Record' })).toBeVisible();
    } finally {
      await installed.context.close();
    }
  });
});

test.describe('installing offered', () => {
  /**
   * Chromium here fires its own beforeinstallprompt once the worker controls the page; its prompt()
   * would open a real dialog. The tests hold it back (as Safari, which has none) and offer their own.
   */
  const holdBackTheBrowsersOffer = (context: BrowserContext) =>
    context.addInitScript(() => {
      addEventListener('beforeinstallprompt', (event) => void (!('synthetic' in event) && event.stopImmediatePropagation()), { capture: true });
    });

  /** A synthetic beforeinstallprompt, as Chromium fires it; true when the page kept it (preventDefault). */
  const offerToInstall = (page: Page) =>
    page.evaluate(() => {
      const event = Object.assign(new Event('beforeinstallprompt', { cancelable: true }), {
        synthetic: true,
        prompt: async () => void ((window as unknown as { prompted: number }).prompted = ((window as unknown as { prompted?: number }).prompted ?? 0) + 1),
        userChoice: Promise.resolve({ outcome: 'dismissed' }),
      });
      return !window.dispatchEvent(event);
    });

  test('on an Android phone, only after the first note is sent, from a button; turned down, it stays away', async ({ server }) => {
    const token = await server.createLink('Max', UPCOMING_RACE);
    const { context } = await launchPhone(await speechWav(), undefined, { userAgent: ANDROID });
    await holdBackTheBrowsersOffer(context);
    try {
      const page = await openRecorder(context, server, token);
      const offer = page.getByTestId('install-offer');
      expect(await offerToInstall(page)).toBe(true);
      await fillDetails(page, 'Mile 20', 'Sam');
      await expect(offer).toHaveCount(0);

      await record(page, 2);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      await expect(offer).toContainText('Install MileNotes to be told when Max hears your note');
      await offer.scrollIntoViewIfNeeded();
      await screenshot(page, 'install-offer-android');

      await offer.getByRole('button', { name: 'Install MileNotes' }).click();
      await expect(offer).toHaveCount(0);
      expect(await page.evaluate(() => (window as unknown as { prompted?: number }).prompted)).toBe(1);
      // Turned down in the browser's dialog: the next offer of the browser is kept, and not shown.
      await page.reload();
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      expect(await offerToInstall(page)).toBe(true);
      await expect(page.getByRole('heading', { name: 'Your notes for Max' })).toBeVisible();
      await expect(offer).toHaveCount(0);
    } finally {
      await context.close();
    }
  });

  test("in iPhone Safari, a hint in iOS's own words in each language after the first note, saying notes still waiting go from Safari; none in the installed app, whose start opens its one runner's recorder at once, offline", async ({
    server,
  }) => {
    const token = await server.createLink('Lea', UPCOMING_RACE);
    const { context } = await launchPhone(await speechWav(), undefined, { userAgent: IPHONE });
    await holdBackTheBrowsersOffer(context);
    // Inside the installed app iOS sets navigator.standalone; the test turns it on by a mark in localStorage.
    await context.addInitScript(() => {
      if (localStorage.getItem('e2e.standalone')) Object.defineProperty(Navigator.prototype, 'standalone', { configurable: true, get: () => true });
    });
    try {
      const page = await openRecorder(context, server, token);
      const offer = page.getByTestId('install-offer');
      await sendNote(page);
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      const steps = {
        English: 'Tap Share, then “Add to Home Screen”.',
        Français: "Touchez Partager, puis « Sur l'écran d'accueil ».",
        Deutsch: 'Tippe auf „Teilen“ und dann auf „Zum Home-Bildschirm“.',
        Español: 'Toca Compartir y luego «Añadir a pantalla de inicio» (o «Agregar a inicio», según el idioma de tu iPhone).',
      };
      for (const [language, words] of Object.entries(steps)) {
        await page.getByTestId('language-menu').selectOption({ label: language });
        await expect(offer.locator('.rec-install-steps')).toHaveText(words);
        await expect(offer.getByRole('button')).toHaveCount(1);
        await offer.scrollIntoViewIfNeeded();
        await screenshot(page, `install-hint-iphone-${language}`);
      }
      await page.getByTestId('language-menu').selectOption({ label: 'English' });
      await expect(offer).toContainText('To be told when Lea hears your note, add MileNotes to your Home Screen');

      await context.setOffline(true);
      await sendNote(page, 'Mile 21');
      await expect(offer).toContainText('1 note still waiting on this phone goes from Safari: open this page in Safari until it has gone.');
      await context.setOffline(false);

      await expect(noteStates(page)).toHaveText(['Safe with us', 'Safe with us']);

      await test.step("in the installed app: no hint, and with one runner its start is that runner's recorder, offline too", async () => {
        await page.evaluate(() => localStorage.setItem('e2e.standalone', '1'));
        const start = await startUrl(server, page);
        await context.setOffline(true);
        await page.goto(start);
        await expect(page).toHaveURL(`${server.url}/r/${token}`);
        await expect(page.getByRole('heading', { name: 'Your notes for Lea' })).toBeVisible();
        expect(await page.evaluate(() => (navigator as Navigator & { standalone?: boolean }).standalone)).toBe(true);
        await expect(offer).toHaveCount(0);
      });
    } finally {
      await context.close();
    }
  });
});
