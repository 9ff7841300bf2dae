/**
 * `npm run demo` as a newcomer runs it (issue 32): a short race, a friend in Chromium with a fake
 * microphone opens the printed recorder link and records a note for a marker ahead; the watch page
 * shows it played at that marker, the recorder shows it heard there, and the demo ends by itself
 * leaving nothing behind. With --venue the same note goes through the venue's network and is
 * delivered once. Screenshots of both pages at 390 px and desktop width go to test-results/demo/.
 */
import { existsSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { speechWav, startServer } from './fixtures';
import { startDemo } from './support/demo';
import { launchPhone, noteStates, record } from './support/recorder';

test.describe.configure({ timeout: 300_000 });

const DESKTOP = { width: 1280, height: 800 };

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: `test-results/demo/${name}-390.png`, fullPage: true });
  const size = page.viewportSize()!;
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `test-results/demo/${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(size);
}

/** Opens the printed link (retried: through the venue a first load may meet a bad moment) until the recorder is ready. */
async function openLink(page: Page, link: string) {
  await expect(async () => {
    await page.goto(link, { timeout: 15_000 });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 15_000 });
    await expect(page.getByRole('button', { name: 'Record' })).toBeVisible({ timeout: 5_000 });
  }).toPass({ timeout: 60_000 });
}

/** Chooses the marker by its id: during the race each marker's label carries its expected time ("Mile 20 · about 3:05 AM"). */
async function sendNote(page: Page, markerId: string): Promise<string> {
  await page.getByLabel('Marker').selectOption(markerId);
  await page.getByLabel('Your name').fill('Sam');
  await record(page, 2);
  await page.getByRole('button', { name: 'Send' }).click();
  return (await page.getByTestId('note').getAttribute('data-note-id'))!;
}

test('a friend records a note for a marker ahead: the demo plays it there and the recorder says "Heard at"', async () => {
  const demo = await startDemo(['--minutes', '2']);
  const { context } = await launchPhone(await speechWav());
  try {
    const recorder = context.pages()[0] ?? (await context.newPage());
    await openLink(recorder, demo.recorderLink);
    const noteId = await sendNote(recorder, 'mi-20');
    await expect(noteStates(recorder)).toHaveText(['Delivered'], { timeout: 30_000 });

    const watch = await context.newPage();
    await watch.goto(demo.watchUrl);
    const note = watch.locator(`[data-note-id="${noteId}"]`);
    await expect(note.locator('[data-step="onPhone"]')).toHaveClass('done', { timeout: 60_000 });
    await shoot(watch, 'watch-note-on-phone');
    await expect(note.locator('[data-step="played"]')).toHaveText('Played at Mile 20', { timeout: 90_000 });
    await shoot(watch, 'watch-played');

    await expect(async () => {
      await recorder.reload();
      await expect(recorder.getByTestId('note-heard')).toHaveText('Heard at Mile 20', { timeout: 3_000 });
    }).toPass({ timeout: 30_000 });
    await shoot(recorder, 'recorder-heard');

    // It ends by itself once the runner has finished, and takes its server and data folder with it.
    expect(await demo.exited).toBe(0);
    expect(demo.output()).toMatch(/Alex finished\. 1 of 1 notes played: Sam at Mile 20\./);
    expect(existsSync(demo.dataDir)).toBe(false);
    await expect(fetch(`http://127.0.0.1:${demo.serverPort}/healthz`)).rejects.toThrow();
  } finally {
    // A failed step still leaves nothing running: the demo is stopped and waited for.
    if (demo.child.exitCode === null) demo.child.kill('SIGINT');
    await demo.exited;
    await context.close();
  }
});

test('--venue: the note goes through the venue network and is delivered once; Ctrl-C stops everything', async () => {
  const demo = await startDemo(['--minutes', '2.5', '--venue']);
  const { context } = await launchPhone(await speechWav());
  try {
    const recorder = context.pages()[0] ?? (await context.newPage());
    await openLink(recorder, demo.recorderLink);
    const noteId = await sendNote(recorder, 'mi-20');
    const watch = await context.newPage();
    await watch.goto(demo.watchUrl);
    const note = watch.locator(`[data-note-id="${noteId}"]`);
    await expect(note.locator('[data-step="played"]')).toHaveText('Played at Mile 20', { timeout: 150_000 });
    await expect(watch.getByTestId('watch-note')).toHaveCount(1);
    await expect(note.locator('.venue')).toHaveText(/^On the venue link: /);
    await shoot(watch, 'watch-venue');
    await expect(noteStates(recorder)).toHaveText(['Delivered'], { timeout: 60_000 });
    await shoot(recorder, 'recorder-venue');

    // Ctrl-C before the finish: the race is still on.
    await expect(watch.getByTestId('watch-status')).not.toHaveText(/finished|over/);
    demo.child.kill('SIGINT');
    expect(await demo.exited).toBe(130);
    expect(existsSync(demo.dataDir)).toBe(false);
    await expect(fetch(`http://127.0.0.1:${demo.serverPort}/healthz`)).rejects.toThrow();
    await expect(fetch(demo.recorderLink)).rejects.toThrow();
  } finally {
    // A failed step still leaves nothing running: the demo is stopped and waited for.
    if (demo.child.exitCode === null) demo.child.kill('SIGINT');
    await demo.exited;
    await context.close();
  }
});

test('a server started normally has no demo routes', async () => {
  const server = await startServer();
  try {
    for (const route of ['/watch.js', '/watch.css', '/state.json', '/course.json', '/audio/5e281b08-4b01-4917-ab06-a25297b43604']) {
      expect((await fetch(`${server.url}${route}`)).status, route).toBe(404);
    }
    expect(await (await fetch(`${server.url}/`)).text()).not.toContain("Alex's phone");
  } finally {
    await server.stop();
  }
});
