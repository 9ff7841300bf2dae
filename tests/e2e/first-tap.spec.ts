/**
 * The first tap, where it is hardest: a friend's first visit to a link on one bar. The page's HTML
 * carries the recorder's first screen, drawn by the server in the sender's language, and a script
 * inline in it makes Record work before React has arrived; React then takes the very screen over
 * and carries on the recording: one note, every byte, one microphone prompt, nothing moving.
 * React's files are held back here until the recording is under way. Screenshots at 390x844 go to
 * test-results/screenshots/first-screen-*.png for a person to look at.
 */
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Page } from '@playwright/test';
import { expect, speechWav, test } from './fixtures';
import {
  analyseAudio,
  blobsWithSha256,
  elapsedShown,
  fillDetails,
  launchPhone,
  noteStates,
  PHONE,
  pageAudioSha256,
  serverNotes,
  waitForElapsed,
} from '../../kit/browser/recorder';
import { hold } from './support/hold';

/** React and the recorder's chunks: everything the page runs after its first screen. */
const REACT_FILES = /\/assets\/(react|recorder)-[^/]+\.js$/;

/** Holds the page's requests for React's files until release() is called. */
const holdReact = (page: Page) => hold(page, REACT_FILES);

/** One bar, as the bench's slow profile: 400 ms added to each request, 400 kbit/s each way, a phone's CPU 4x slower. */
async function oneBar(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 400, downloadThroughput: 50_000, uploadThroughput: 50_000 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
}

/** From before the page's first script: every getUserMedia call counted, every layout shift summed (CLS). */
async function watchThePage(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen = window as unknown as { microphoneAsked: number; layoutShift: number; shifts: number[] };
    seen.microphoneAsked = 0;
    seen.layoutShift = 0;
    seen.shifts = [];
    const media = navigator.mediaDevices;
    const ask = media.getUserMedia.bind(media);
    media.getUserMedia = (constraints) => {
      seen.microphoneAsked++;
      return ask(constraints);
    };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>) {
        seen.shifts.push(entry.value);
        if (!entry.hadRecentInput) seen.layoutShift += entry.value;
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

/** Whether React runs the page yet (its root is made on #root). */
const reactRuns = (page: Page) => page.evaluate(() => Object.keys(document.getElementById('root')!).some((key) => key.startsWith('__reactContainer')));

/** Where each element of the screen is, and how big: what moves when something jumps. */
const boxes = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('main *')].map((element) => {
      const { x, y, width, height } = element.getBoundingClientRect();
      return `${element.tagName} ${[x, y, width, height].map(Math.round).join(',')}`;
    }),
  );

const recordButton = (page: Page) => page.getByRole('button', { name: 'Record', exact: true });

test.describe('the first tap on a first visit', () => {
  test('Record works before React, and React takes the recording over: one note of the full length, bytes intact, one prompt, nothing moving', async ({
    server,
  }) => {
    test.setTimeout(180_000);
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      await watchThePage(context);
      const page = context.pages()[0] ?? (await context.newPage());
      const warnings: string[] = [];
      page.on('console', (message) => void (['warning', 'error'].includes(message.type()) && warnings.push(message.text())));
      const react = await holdReact(page);
      await oneBar(context, page);

      await page.goto(`/r/${token}`, { waitUntil: 'commit' });
      await expect(recordButton(page)).toBeEnabled({ timeout: 30_000 });
      // The drawn screen's fields work as they are, before React.
      await fillDetails(page, 'Mile 20', 'Sam');
      // Marks on elements the server drew: React must take over these very ones, not draw new ones.
      await page.evaluate(() => {
        for (const element of [document.querySelector('h1'), document.querySelector('input[name="from"]')])
          (element as unknown as { drawn: boolean }).drawn = true;
      });
      const tapped = Date.now();
      await recordButton(page).click();
      await waitForElapsed(page, 3);
      await expect.poll(() => react.held.length, { message: "React's files were asked for, and are held" }).toBeGreaterThan(0);
      expect(await reactRuns(page), 'React has not run yet').toBe(false);
      const beforeReact = await elapsedShown(page);

      await react.release();
      await expect(page.locator('main[data-react]'), 'React runs the screen').toHaveCount(1, { timeout: 60_000 });
      expect(await reactRuns(page)).toBe(true);
      const kept = await page.evaluate(() =>
        [document.querySelector('h1'), document.querySelector('input[name="from"]')].map(
          (element) => (element as unknown as { drawn?: boolean }).drawn === true,
        ),
      );
      expect(kept, 'React took over the elements the server drew').toEqual([true, true]);
      expect(await elapsedShown(page), 'the same recording goes on under React: its clock did not start again').toBeGreaterThanOrEqual(beforeReact);
      await waitForElapsed(page, 8);
      const shown = await elapsedShown(page);
      const stopped = Date.now();
      await page.getByRole('button', { name: 'Stop' }).click();
      await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Safe with us'], { timeout: 60_000 });

      const notes = await serverNotes(server, token);
      expect(notes, 'one note').toHaveLength(1);
      expect(notes[0]).toMatchObject({ marker: 'mi-20', from: 'Sam' });
      const noteId = (await page.getByTestId('note').getAttribute('data-note-id'))!;
      const recordedSha = await pageAudioSha256(page, noteId);
      expect(notes[0]!.sha256, 'the server holds the bytes the phone recorded').toBe(recordedSha);
      const [file] = await blobsWithSha256(server, recordedSha);
      const audio = await analyseAudio(file!);
      // From the first tap, under the first screen's script, to Stop, under React's, one recording
      // (one microphone, one clock that never started again): all of it.
      console.log(`[first tap] clock ${shown} s at Stop, tap to Stop ${((stopped - tapped) / 1000).toFixed(1)} s, note ${audio.seconds.toFixed(2)} s`);
      expect(shown).toBeGreaterThanOrEqual(8);
      expect(audio.seconds).toBeGreaterThan(shown - 1);
      expect(audio.seconds).toBeLessThan(shown + 2);
      expect(audio.activeShare, 'speech, not silence').toBeGreaterThan(0.4);

      const seen = await page.evaluate(() => {
        const { microphoneAsked, layoutShift, shifts } = window as unknown as { microphoneAsked: number; layoutShift: number; shifts: number[] };
        return { microphoneAsked, layoutShift, shifts };
      });
      console.log(`[first tap] layout shifts: ${seen.shifts.join(', ') || 'none'} (CLS ${seen.layoutShift.toFixed(4)})`);
      expect(seen.microphoneAsked, 'the microphone is asked for once').toBe(1);
      expect(seen.layoutShift, `layout shifts: ${seen.shifts.join(', ')}`).toBeLessThanOrEqual(0.05);
      expect(
        warnings.filter((text) => text.includes('drawn again')),
        'React took over what was drawn, drawing nothing again',
      ).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a note stopped before React arrives is kept, and React offers it to listen to and send', async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const react = await holdReact(page);
      await page.goto(`/r/${token}`, { waitUntil: 'commit' });
      await fillDetails(page, 'Finish', 'Ana');
      await recordButton(page).click();
      await waitForElapsed(page, 3);
      await page.getByRole('button', { name: 'Stop' }).click();
      const stoppedAt = await elapsedShown(page);
      // Stopped, every chunk written, by the page's one engine; listening back and sending are React's.
      await expect
        .poll(() =>
          page.evaluate(
            () => (globalThis as unknown as Record<symbol, { snapshot(): { phase: string } }>)[Symbol.for('milenotes.recording')]!.snapshot().phase,
          ),
        )
        .toBe('stopped');
      expect(await reactRuns(page)).toBe(false);

      await react.release();
      await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Safe with us']);
      const [note] = await serverNotes(server, token);
      const [file] = await blobsWithSha256(server, note!.sha256);
      const audio = await analyseAudio(file!);
      expect(audio.seconds).toBeGreaterThan(stoppedAt - 1);
      expect(audio.seconds).toBeLessThan(stoppedAt + 2);
    } finally {
      await context.close();
    }
  });
});

/** The Record button as the HTML carries it, and the page's language and title. */
function drawnIn(html: string) {
  return {
    lang: /<html lang="([a-z]+)">/.exec(html)?.[1],
    title: /<title>([^<]*)<\/title>/.exec(html)?.[1],
    record: /<button[^>]*data-action="record"[^>]*>(?:<span[^>]*><\/span>)? (?:<!-- -->)?([^<]+)<\/button>/.exec(html)?.[1],
    disabled: /<button[^>]*disabled=""[^>]*data-action="record"/.test(html),
    marker: /<label class="rec-field"><span>([^<]+)<\/span><select name="marker"/.exec(html)?.[1],
  };
}

test.describe("the first screen in the page's HTML", () => {
  const asked = [
    { acceptLanguage: 'de-AT,de;q=0.9,en;q=0.8', lang: 'de', title: 'Sprachnachricht aufnehmen · MileNotes', record: 'Aufnehmen', marker: 'Streckenpunkt' },
    { acceptLanguage: 'fr-CA,fr;q=0.9', lang: 'fr', title: 'Enregistrer un message vocal · MileNotes', record: 'Enregistrer', marker: 'Point du parcours' },
    { acceptLanguage: 'es-MX', lang: 'es', title: 'Graba un mensaje de voz · MileNotes', record: 'Grabar', marker: 'Punto del recorrido' },
    // A language we do not have, then one we have but refused (q=0): English.
    { acceptLanguage: 'it-IT,it;q=0.9,de;q=0', lang: 'en', title: 'Record a voice note · MileNotes', record: 'Record', marker: 'Marker' },
    { acceptLanguage: 'ja,en-GB;q=0.5,fr;q=0.4', lang: 'en', title: 'Record a voice note · MileNotes', record: 'Record', marker: 'Marker' },
    { acceptLanguage: undefined, lang: 'en', title: 'Record a voice note · MileNotes', record: 'Record', marker: 'Marker' },
  ];
  for (const want of asked) {
    test(`should be in ${want.lang} when Accept-Language is ${want.acceptLanguage ?? 'not sent'}, its Record off until a script has its handler on it`, async ({
      request,
      server,
    }) => {
      const token = await server.createLink('Alex');
      const response = await request.get(`/r/${token}`, { headers: want.acceptLanguage ? { 'Accept-Language': want.acceptLanguage } : {} });
      expect(response.headers().vary).toMatch(/Accept-Language/);
      const html = await response.text();
      expect(drawnIn(html)).toEqual({ lang: want.lang, title: want.title, record: want.record, disabled: true, marker: want.marker });
      expect(html).toContain('<h1 class="rec-title">Alex</h1>');
    });
  }

  test('should go without a screen for a link that is not there, as before: the page says so once React is in', async ({ request, server }) => {
    const token = await server.createLink('Dana');
    await server.admin('revoke-link', `--token=${token}`);
    const html = await (await request.get(`/r/${token}`)).text();
    expect(html).not.toContain('<main class="rec"');
    expect(html).toContain('Loading...');
  });

  test('should be drawn, run by its script and then by React in the sender’s language, looking the same at each step (screenshots, axe)', async ({
    browser,
    server,
  }) => {
    const token = await server.createLink('Alex');
    const shots: Array<{ name: string; page: Page }> = [];
    // Before any script runs: the HTML as it comes.
    const bare = await browser.newContext({ viewport: PHONE, locale: 'de-AT', javaScriptEnabled: false });
    const drawn = await bare.newPage();
    await drawn.goto(`/r/${token}`);
    await expect(drawn.getByRole('heading', { name: 'Alex' })).toBeVisible();
    await expect(drawn.getByRole('button', { name: 'Aufnehmen', exact: true })).toBeDisabled();
    shots.push({ name: 'before-script', page: drawn });

    const live = await browser.newContext({ viewport: PHONE, locale: 'de-AT', serviceWorkers: 'block' });
    const page = await live.newPage();
    const react = await holdReact(page);
    await page.goto(`/r/${token}`);
    await expect(page.getByRole('button', { name: 'Aufnehmen', exact: true })).toBeEnabled();
    expect(await reactRuns(page)).toBe(false);
    const before = await boxes(page);
    await page.screenshot({ path: 'test-results/screenshots/first-screen-script.png' });
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    await react.release();
    await expect(page.locator('main[data-react]')).toHaveCount(1);
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await expect(page).toHaveTitle('Sprachnachricht aufnehmen · MileNotes');
    await page.screenshot({ path: 'test-results/screenshots/first-screen-react.png' });
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    // Nothing on screen moved as React took it over.
    expect(await boxes(page)).toEqual(before);

    for (const shot of shots) await shot.page.screenshot({ path: `test-results/screenshots/first-screen-${shot.name}.png` });
    await Promise.all([bare.close(), live.close()]);
  });

  test('a refused microphone on the first screen is said at once, in the words React then keeps', async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav(), undefined, { denyMicrophone: true });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const react = await holdReact(page);
      await page.goto(`/r/${token}`);
      await recordButton(page).click();
      const alert = page.getByRole('alert');
      await expect(alert).toContainText('Microphone access is turned off for this page');
      expect(await reactRuns(page)).toBe(false);
      await page.evaluate(() => ((document.querySelector('[role="alert"]') as unknown as { drawn: boolean }).drawn = true));
      await react.release();
      await expect(page.locator('main[data-react]')).toHaveCount(1);
      await expect(alert).toHaveCount(1);
      await expect(alert).toContainText('Settings › Safari › Microphone');
      expect(await page.evaluate(() => (document.querySelector('[role="alert"]') as unknown as { drawn?: boolean }).drawn)).toBe(true);
      await expect(recordButton(page)).toBeEnabled();
    } finally {
      await context.close();
    }
  });
});
