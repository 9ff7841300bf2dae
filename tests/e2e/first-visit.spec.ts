/**
 * The first visit to a link: the link's data comes in the page's HTML, so nothing is
 * asked of the API before Record works; the worker's shell carries none, and then the data travels
 * beside the recorder's JavaScript and either may arrive first; the service worker's install fetches only what opens the recorder, compressed;
 * the rest of the site is cached later, and every page opens offline after a visit.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page, Request } from '@playwright/test';
import { TAGLINE } from '../../src/config';
import { RACES } from '../../contract/races';
import { expect, speechWav, test } from './fixtures';
import { addUpcomingRace, UPCOMING_RACE } from '../../kit/races';
import { fillDetails, launchPhone, noteStates, openRecorder, record } from '../../kit/browser/recorder';
import { hold } from './support/hold';
import { waitForControllingWorker } from './support/worker';

const RECORDER_JS = /\/assets\/(recorder|react)-[^/]+\.js$/;
const dist = path.resolve(import.meta.dirname, '../../dist');

const recordButton = (page: Page) => page.getByRole('button', { name: 'Record', exact: true });

test.describe('the recorder on a first visit', () => {
  // page.route cannot see the worker's requests; these tests are about the page alone.
  test.use({ serviceWorkers: 'block' });

  /** Every request the page makes to the API, as paths. */
  const apiRequests = (page: Page) => {
    const paths: string[] = [];
    page.on('request', (r) => void (new URL(r.url()).pathname.startsWith('/api/') && paths.push(new URL(r.url()).pathname)));
    return paths;
  };

  test("should draw and record from the link's data in its HTML, asking nothing of the API before Record works", async ({ page, server }) => {
    const token = await server.createLink('Alex', 'chicago-2025');
    const asked = apiRequests(page);
    const scripts = await hold(page, RECORDER_JS);

    await page.goto(`/r/${token}`, { waitUntil: 'domcontentloaded' });
    // The screen is in the HTML, and its Record works with React's files held back (tests/e2e/first-tap.spec.ts).
    await expect(page.getByRole('heading', { name: 'Alex' })).toBeVisible();
    await expect(recordButton(page)).toBeEnabled();
    await expect.poll(() => scripts.held.length).toBeGreaterThan(0);
    await scripts.release();

    await expect(page.locator('main[data-react]')).toHaveCount(1);
    await expect(recordButton(page)).toBeEnabled();
    expect(asked).toEqual([]);
    // The block is read once and taken out of the page.
    await expect(page.locator('#link-data')).toHaveCount(0);
  });

  test("should make Record work from the HTML alone, and only then ask for React's and the recorder's files, all together, and nothing else", async ({
    page,
    server,
  }) => {
    const token = await server.createLink('Casey', 'chicago-2025');
    const asked = apiRequests(page);
    const isScreenFile = (path: string) => /^\/assets\/(recorder|react|recorderApp)-/.test(path);
    const named = (path: string) => path.replace(/^(\/assets\/[a-zA-Z]+)-[^/]+\.(js|css)$/, '$1.$2');
    // When the Record button was first on: a script has its handler on it from then.
    await page.addInitScript(() => {
      const seen = window as unknown as { recordWorksAt?: number };
      new MutationObserver(() => {
        const button = document.querySelector<HTMLButtonElement>('button[data-action="record"]');
        if (seen.recordWorksAt === undefined && button && !button.disabled) seen.recordWorksAt = performance.now();
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    const files = await hold(page, (url) => isScreenFile(url.pathname));

    await page.goto(`/r/${token}`, { waitUntil: 'domcontentloaded' });
    await expect(recordButton(page)).toBeEnabled();
    // Together: all of them are asked for while none has been answered. One after another, the
    // recorder's chunk would wait for React's to arrive and run.
    await expect
      .poll(() => files.held.map((route) => named(new URL(route.request().url()).pathname)).sort())
      // Two recorder chunks: the screen's own with what it shares with the installed app's start page
      // (the outbox), and the one it shares with the keepsake too (the API client, the words).
      .toEqual(['/assets/react.js', '/assets/recorder.js', '/assets/recorder.js'].sort());
    await files.release();
    await expect(page.locator('main[data-react]')).toHaveCount(1);
    expect(asked).toEqual([]);

    // Asked for once Record works, never before it: on one bar they would share the pipe with the page.
    const timings = await page.evaluate(() => ({
      recordWorksAt: (window as unknown as { recordWorksAt?: number }).recordWorksAt ?? NaN,
      files: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => ({ path: new URL(e.name).pathname, start: e.startTime })),
    }));
    const screenFiles = timings.files.filter((f) => isScreenFile(f.path));
    expect(screenFiles).toHaveLength(3);
    expect(timings.recordWorksAt).toBeGreaterThan(0);
    for (const f of screenFiles) expect(f.start, f.path).toBeGreaterThan(timings.recordWorksAt);
    // Nothing shown only after a note is delivered came with them.
    expect(timings.files.filter((f) => /^\/assets\/later-/.test(f.path))).toEqual([]);
  });

  test("should ask for the link's data once, beside the JavaScript, when the page carries none (the worker's shell), and work when it arrives after", async ({
    page,
    server,
  }) => {
    const token = await server.createLink('Blair', 'berlin-2025');
    const asked = apiRequests(page);
    // The shell the worker answers a link with offline and on later visits: r.html as built, no data in it.
    await page.route(`**/r/${token}`, async (route) => route.fulfill({ response: await route.fetch({ url: `${server.url}/r.html` }) }));
    const link = await hold(page, `**/api/r/${token}`);
    const recorderLoaded = page.waitForResponse((r) => /\/assets\/recorder-[^/]+\.js$/.test(r.url()));

    await page.goto(`/r/${token}`, { waitUntil: 'domcontentloaded' });
    await recorderLoaded;
    await expect.poll(() => link.held.length).toBe(1);
    // The recorder has mounted and is waiting for the data: its own status line, no Record button.
    await expect(page.getByRole('status').filter({ hasText: 'Loading...' })).toBeVisible();
    await expect(recordButton(page)).toHaveCount(0);
    await link.release();

    await expect(page.getByRole('heading', { name: 'Blair' })).toBeVisible();
    await expect(recordButton(page)).toBeEnabled();
    expect(asked).toEqual([`/api/r/${token}`]);
  });

  test('should say a revoked link no longer works without asking the API', async ({ page, server }) => {
    const token = await server.createLink('Dana', 'chicago-2025');
    await server.admin('revoke-link', `--token=${token}`);
    const asked = apiRequests(page);
    await page.goto(`/r/${token}`);
    await expect(page.getByRole('heading', { name: 'This link is not active' })).toBeVisible();
    await expect(page.getByRole('alert')).toHaveText('It may have been mistyped or turned off by the runner. Ask them to send it again.');
    expect(asked).toEqual([]);
  });

  test("should show a runner's name built to break out of the page's script as the name, running nothing", async ({ page, server }) => {
    const name = '</script><script>alert(1)</script>\u2028Kim';
    const token = await server.createLink(name, 'chicago-2025');
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => void dialog.dismiss().then(() => dialogs.push(dialog.message())));
    const html = await (await page.request.get(`/r/${token}`)).text();
    expect(html).not.toContain('<script>alert(1)');
    // In the data block the name stays data: its '<' and U+2028 escaped (in the drawn screen's text, React escapes it).
    const block = /<script type="application\/json" id="link-data">([^<]*)<\/script>/.exec(html)?.[1];
    expect(block).toContain('\\u003c/script\\u003e');
    expect(block).not.toContain('\u2028');
    expect(html).toContain('<h1 class="rec-title">&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    await page.goto(`/r/${token}`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
    await expect(recordButton(page)).toBeEnabled();
    expect(dialogs).toEqual([]);
  });
});

test.describe('the service worker on a first visit', () => {
  test("should install from /r/ with only what opens the recorder, the installed app's start and the pages, compressed, and no pictures", async ({
    page,
    context,
    server,
  }) => {
    const token = await server.createLink('Alex', 'chicago-2025');
    const shell = await readFile(path.join(dist, 'r.html'), 'utf8');
    const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    // The shell names only its own script: the recorder's files are asked for by it, after Record works.
    const shellAssets = assetsOf(shell);
    expect(shellAssets).toEqual([expect.stringMatching(/^\/assets\/index-[^/]+\.js$/)]);
    const recorderFiles = JSON.parse(/<script type="application\/json" id="screen-files">([^<]*)<\/script>/.exec(shell)![1]!) as string[];
    expect(recorderFiles).toHaveLength(3);
    // The shell carries the stylesheet inline; the pages link it, and open offline with it.
    const pageStyles = assetsOf(await readFile(path.join(dist, 'index.html'), 'utf8')).filter((a) => a.endsWith('.css'));
    expect(pageStyles).toHaveLength(1);
    // The recorder's languages but English, one chunk each: a page loads its own, the worker keeps them all for offline.
    const languages = (await readdir(path.join(dist, 'assets'))).filter((f) => /^lang-[a-z]{2}-[^.]+\.js$/.test(f)).map((f) => `/assets/${f}`);
    expect(languages).toHaveLength(3);
    // The installed app's start page opens with no signal too: its shell and its chunk.
    const homeScreenAssets = assetsOf(await readFile(path.join(dist, 'home-screen.html'), 'utf8'));
    // The worker's own script, then its precache.
    const installSet = new Set([
      '/sw.js',
      '/r.html',
      '/home-screen.html',
      '/index.html',
      '/terms.html',
      '/privacy.html',
      '/404.html',
      '/manifest.webmanifest',
      '/icons/icon.svg',
      ...shellAssets,
      ...recorderFiles,
      ...homeScreenAssets,
      ...pageStyles,
      ...languages,
    ]);

    const workerRequests: Request[] = [];
    context.on('request', (r) => void (r.serviceWorker() && workerRequests.push(r)));
    await page.goto(`/r/${token}`);
    await expect(recordButton(page)).toBeEnabled();
    await waitForControllingWorker(page);

    const paths = workerRequests.map((r) => new URL(r.url()).pathname);
    expect(new Set(paths)).toEqual(installSet);
    expect(paths).toHaveLength(installSet.size);
    for (const request of workerRequests) {
      const response = await request.response();
      expect(response?.status(), request.url()).toBe(200);
      expect(response?.headers()['content-encoding'], request.url()).toBe('br');
    }
    const later = await page.evaluate(async () => (await (await caches.open('milenotes-later')).keys()).length);
    expect(later).toBe(0);
  });

  test('should open /, /terms, /privacy and a visited link with no network, pictures included', async ({ page, context, server }) => {
    const token = await server.createLink('Casey', 'nyc-2025');
    await page.goto(`/r/${token}`);
    await expect(recordButton(page)).toBeEnabled();
    await waitForControllingWorker(page);

    // A visit to the home page asks the worker to cache the rest; no note is waiting, so it does.
    await page.goto('/');
    const wanted = [...RACES.map((r) => r.image), '/media/hero-poster.webp', '/badges/app-store.svg'];
    await expect
      .poll(async () => {
        const keys = await page.evaluate(async () => (await (await caches.open('milenotes-later')).keys()).map((k) => new URL(k.url).pathname));
        return wanted.filter((p) => !keys.includes(p));
      })
      .toEqual([]);

    // Offline after a while: the browser's HTTP cache has let the pictures go; the worker has not.
    await (await context.newCDPSession(page)).send('Network.clearBrowserCache');
    await context.setOffline(true);
    try {
      await page.reload();
      await expect(page.getByText(TAGLINE)).toBeVisible();
      // The spec's nine (none of the catalogue's is ahead yet): four shown at once; the badge, with no App Store address, has no picture.
      const pictures = page.locator('img.race-card__image[loading="eager"], .app-badge img');
      await expect(pictures).toHaveCount(4);
      await expect.poll(() => pictures.evaluateAll((imgs) => (imgs as HTMLImageElement[]).every((img) => img.complete && img.naturalWidth > 0))).toBe(true);
      await page.goto('/terms');
      await expect(page.getByRole('heading', { level: 1 })).toContainText('Terms');
      await page.goto('/privacy');
      await expect(page.getByRole('heading', { level: 1 })).toContainText('Privacy');
      await page.goto(`/r/${token}`);
      await expect(page.getByRole('heading', { name: 'Casey' })).toBeVisible();
      await expect(recordButton(page)).toBeEnabled();
    } finally {
      await context.setOffline(false);
    }
  });
});

test.describe('what shows only after a note is delivered', () => {
  const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36';

  /** A synthetic beforeinstallprompt, as Chromium fires it (tests/e2e/home-screen.spec.ts says why). */
  const offerToInstall = (page: Page) =>
    page.evaluate(() => {
      const event = Object.assign(new Event('beforeinstallprompt', { cancelable: true }), {
        synthetic: true,
        prompt: async () => undefined,
        userChoice: Promise.resolve({ outcome: 'dismissed' }),
      });
      return !window.dispatchEvent(event);
    });

  test.beforeAll(async ({ server }) => {
    await addUpcomingRace(server);
  });

  test('comes in a chunk of its own, asked for once a note is delivered and not before, offline too after a reload', async ({ server }) => {
    const token = await server.createLink('Max', UPCOMING_RACE);
    const { context } = await launchPhone(await speechWav(), undefined, { userAgent: ANDROID });
    await context.addInitScript(() => {
      addEventListener('beforeinstallprompt', (event) => void (!('synthetic' in event) && event.stopImmediatePropagation()), { capture: true });
    });
    const later: string[] = [];
    context.on('request', (r) => void (/\/assets\/later-[^/]+\.js$/.test(r.url()) && later.push(r.serviceWorker() ? 'worker' : 'page')));
    try {
      const page = await openRecorder(context, server, token);
      const offer = page.getByTestId('install-offer');
      await expect(recordButton(page)).toBeEnabled();
      expect(await offerToInstall(page)).toBe(true);
      await fillDetails(page, 'Mile 20', 'Sam');
      await record(page, 2);
      await page.getByRole('button', { name: 'Send' }).click();
      // Until the note is delivered nothing of it is asked for: a note going up one bar has the link to itself.
      expect(later).toEqual([]);
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      await expect(offer).toContainText('Install MileNotes to be told when Max hears your note');
      // Asked for by the page, and taken by the worker (its cache of files kept on use).
      expect(later.filter((by) => by === 'page')).toHaveLength(1);

      await context.setOffline(true);
      await page.reload();
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      expect(await offerToInstall(page)).toBe(true);
      await expect(offer).toContainText('Install MileNotes to be told when Max hears your note');
    } finally {
      await context.close();
    }
  });
});
