/**
 * The recorder's words, state by state, as a friend reads them at 390x844, in English and German:
 * the first screen, recording, review, sending, safe with us and waiting for the runner's phone,
 * on the runner's phone (their app downloaded it), heard, waiting offline, a refused microphone, a link turned off, a race that is over, and a live
 * race with the marker alert under Record. Each state's words are asserted, every screen is checked
 * with axe and for words cut at the phone's width, and each is saved as
 * test-results/screenshots/words-<state>-<lang>.png for a person to look at.
 */
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { PHONE, launchPhone, noteStates, waitForElapsed } from '../../kit/browser/recorder';
import { UPCOMING_RACE } from '../../kit/races';
import { enterRace } from '../../kit/runnerApi';
import { startPushService, type PushServiceStandIn } from '../../stand-ins/pushService';
import { speechWav } from '../../stand-ins/speech';
import { positionAt } from '../server/support/live-race';
import { standInPushManager } from './support/push';
import { startRunnerWorld, type RunnerWorld } from './support/runnerWorld';

const root = path.resolve(import.meta.dirname, '../..');
const SHOTS = path.join(root, 'test-results/screenshots');
const NOTE_PUT = /\/api\/r\/[^/]+\/notes\/[^/]+(\?|$)/;
const MILE = 1609.344;
const MINUTE = 60_000;

const WORDS = {
  en: {
    locale: 'en-US',
    record: 'Record',
    stop: 'Stop',
    send: 'Send',
    marker: 'Marker',
    name: 'Your name',
    mile: 'Mile 13',
    upcoming: 'Alex runs on Sunday, October 11, 2099.',
    sending: /^Sending( \d+%)?$/,
    safe: 'Safe with us',
    waitingForPhone: "Waiting for Alex's phone to fetch it.",
    onPhone: "On Alex's phone",
    heard: 'Heard by Alex',
    heardAt: 'Heard at Mile 13',
    saved: 'Saved on this phone',
    offline: /^You're offline\. 1 note waiting on this phone\./,
  },
  de: {
    locale: 'de-DE',
    record: 'Aufnehmen',
    stop: 'Stopp',
    send: 'Senden',
    marker: 'Streckenpunkt',
    name: 'Dein Name',
    mile: 'Meile 13',
    upcoming: 'Alex läuft am Sonntag, 11. Oktober 2099.',
    sending: /^Wird gesendet( \(\d+ %\))?$/,
    safe: 'Sicher bei uns',
    waitingForPhone: 'Wartet darauf, dass das Handy von Alex sie abholt.',
    onPhone: 'Auf dem Handy von Alex',
    heard: 'Von Alex gehört',
    heardAt: 'Gehört bei Meile 13',
    saved: 'Auf diesem Handy gespeichert',
    offline: /^Du bist offline\. 1 Nachricht wartet auf diesem Handy\./,
  },
} as const;
type Lang = keyof typeof WORDS;

let world: RunnerWorld;
let service: PushServiceStandIn;
test.beforeAll(async () => {
  service = await startPushService();
  world = await startRunnerWorld({ PUSH_HOSTS: service.host, VAPID_SUBJECT: 'mailto:ops@milenotes.test', NODE_EXTRA_CA_CERTS: service.caFile });
});
test.afterAll(async () => {
  await world?.stop();
  await service?.close();
});

/**
 * The words on screen no wider than their box: a button, a line or a label whose text runs past
 * it, and a picker whose chosen line is longer than the room the picker gives it (a select cuts
 * its line with an ellipsis, and says nothing).
 */
function cutWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const cut: string[] = [];
    for (const element of document.querySelectorAll<HTMLElement>('main button, main label, main p, main h1, main h2, main strong, main span'))
      if (element.getClientRects().length && element.scrollWidth > element.clientWidth + 1) cut.push(element.textContent ?? '');
    const context = document.createElement('canvas').getContext('2d')!;
    for (const select of document.querySelectorAll<HTMLSelectElement>('main select')) {
      const style = getComputedStyle(select);
      context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const line = select.selectedOptions[0]?.text ?? '';
      // The drop-down arrow Chromium draws inside the right padding takes about 20 px of a 16 px font's line.
      const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
      if (context.measureText(line).width > room) cut.push(line);
    }
    return cut;
  });
}

/** Saves the screen, after checking it with axe and for cut words and content past the phone's width. */
async function look(page: Page, state: string, lang: string): Promise<void> {
  expect(await cutWords(page), `${state} (${lang}): words cut at 390 px`).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${state} (${lang}): wider than the phone`).toBeLessThanOrEqual(PHONE.width);
  expect((await new AxeBuilder({ page }).analyze()).violations, `${state} (${lang}): axe`).toEqual([]);
  await page.screenshot({ path: path.join(SHOTS, `words-${state}-${lang}.png`), fullPage: true });
}

/** A runner signed in with an entry in the upcoming race: their session, entry and recorder link. */
async function runnerEntry() {
  const session = await world.signIn();
  const entry = await enterRace(world.client(session), UPCOMING_RACE, 'Alex');
  return { session, entryId: entry.id, token: entry.link.token };
}

/** Records `seconds` and stops: the review panel. */
async function recordNote(page: Page, words: (typeof WORDS)[Lang], seconds: number): Promise<void> {
  await page.getByRole('button', { name: words.record, exact: true }).click();
  await waitForElapsed(page, seconds);
  await page.getByRole('button', { name: words.stop, exact: true }).click();
  await expect(page.getByRole('button', { name: words.send, exact: true })).toBeVisible();
}

for (const lang of Object.keys(WORDS) as Lang[]) {
  const words = WORDS[lang];
  test(`a note's way in ${lang}: first screen, recording, review, sending, safe with us and waiting for the runner's phone, on the runner's phone, heard, waiting offline`, async () => {
    test.setTimeout(180_000);
    const { session, entryId, token } = await runnerEntry();
    const { context } = await launchPhone(await speechWav(), undefined, { locale: words.locale });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${world.server.url}/r/${token}`);
      await expect(page.getByRole('button', { name: words.record, exact: true })).toBeEnabled();
      await expect(page.locator('main[data-react]')).toHaveCount(1);
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      await expect(page.getByTestId('race-clock')).toHaveText(words.upcoming);
      await page.getByLabel(words.marker).selectOption({ label: words.mile });
      await page.getByLabel(words.name, { exact: true }).fill('Sam');
      await look(page, 'first-screen', lang);

      await page.getByRole('button', { name: words.record, exact: true }).click();
      await waitForElapsed(page, 2);
      await look(page, 'recording', lang);
      await page.getByRole('button', { name: words.stop, exact: true }).click();
      await expect(page.getByRole('button', { name: words.send, exact: true })).toBeVisible();
      await look(page, 'review', lang);

      // Held on its way up until the picture is taken: the note says it is going.
      let letGo!: () => void;
      const held = new Promise<void>((resolve) => (letGo = resolve));
      await context.route(NOTE_PUT, async (route) => {
        if (route.request().method() === 'PUT') await held;
        await route.fallback();
      });
      await page.getByRole('button', { name: words.send, exact: true }).click();
      await expect(noteStates(page)).toHaveText([words.sending]);
      await look(page, 'sending', lang);
      letGo();

      await expect(noteStates(page)).toHaveText([words.safe], { timeout: 30_000 });
      await expect(page.getByTestId('note-waiting-phone')).toHaveText([words.waitingForPhone]);
      await expect(page.getByTestId('note-heard')).toHaveCount(0);
      await look(page, 'safe-with-us', lang);

      const noteId = (await page.getByTestId('note').getAttribute('data-note-id'))!;
      // The runner's app fetches the converted note through its signed URL, to the last byte.
      const runner = world.client(session);
      const listed = async () =>
        (await runner.GET('/api/entries/{id}/notes', { params: { path: { id: entryId } } })).data?.markers[0]?.notes?.[0]?.audioUrl ?? null;
      await expect.poll(listed, { timeout: 60_000 }).not.toBeNull();
      const download = await fetch((await listed()) as string);
      expect(download.status).toBe(200);
      expect((await download.arrayBuffer()).byteLength).toBeGreaterThan(0);
      const status = async () =>
        ((await (await fetch(`${world.server.url}/api/r/${token}/notes/${noteId}/status`)).json()) as { onRunnersPhone: boolean }).onRunnersPhone;
      await expect.poll(status).toBe(true);
      // A reload asks at once, as a page coming back into view does, instead of at the next poll.
      await page.reload();
      await expect(noteStates(page)).toHaveText([words.onPhone]);
      await expect(page.getByTestId('note-waiting-phone')).toHaveCount(0);
      await expect(page.getByTestId('note-heard')).toHaveCount(0);
      await look(page, 'on-phone', lang);

      const played = await world
        .client(session)
        .POST('/api/notes/{id}/played', { params: { path: { id: noteId } }, body: { playedAt: new Date().toISOString(), marker: 'mi-13' } });
      expect(played.response.status).toBe(200);
      await page.reload();
      await expect(noteStates(page)).toHaveText([words.heard]);
      await expect(page.getByTestId('note-heard')).toHaveText(words.heardAt);
      await expect(page.getByTestId('note-waiting-phone')).toHaveCount(0);
      await look(page, 'heard', lang);

      await context.setOffline(true);
      await page.getByLabel(words.marker).selectOption({ label: words.mile });
      await recordNote(page, words, 2);
      await page.getByRole('button', { name: words.send, exact: true }).click();
      await expect(noteStates(page)).toHaveText([words.heard, words.saved]);
      await expect(page.getByTestId('status-line')).toHaveText(words.offline);
      await look(page, 'offline-waiting', lang);
    } finally {
      await context.setOffline(false);
      await context.close();
    }
  });
}

test('a refused microphone, a link turned off and a race that is over, each said in plain words', async () => {
  const { context } = await launchPhone(await speechWav(), undefined, { denyMicrophone: true });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${world.server.url}/r/${await world.server.createLink('Alex', UPCOMING_RACE)}`);
    await expect(page.locator('main[data-react]')).toHaveCount(1);
    await page.getByRole('button', { name: 'Record', exact: true }).click();
    await expect(page.getByRole('alert')).toContainText('Microphone access is turned off for this page');
    await look(page, 'refused-mic', 'en');

    const revoked = await world.server.createLink('Alex', UPCOMING_RACE);
    await world.server.admin('revoke-link', `--token=${revoked}`);
    await page.goto(`${world.server.url}/r/${revoked}`);
    await expect(page.getByRole('heading', { name: 'This link is not active' })).toBeVisible();
    await look(page, 'revoked-link', 'en');

    await page.goto(`${world.server.url}/r/${await world.server.createLink('Alex', 'chicago-2025')}`);
    await expect(page.getByTestId('race-clock')).toHaveText("Alex's race is over. Your note will wait in their keepsake.");
    await expect(page.locator('main[data-react]')).toHaveCount(1);
    await look(page, 'race-over', 'en');
  } finally {
    await context.close();
  }
});

/**
 * A runner in a live race who shares progress, 40 minutes in at 10 minutes a mile while it is 100
 * minutes later now: Mile 14 is expected about 40 minutes from now, in time for a note and an alert.
 */
async function runnerSharing(): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'tests/e2e/support/start-live-race.ts', UPCOMING_RACE, '100'], {
    cwd: root,
    env: world.server.env,
  });
  const start = (JSON.parse(stdout.trim().split('\n').pop()!) as { start: number }).start;
  const { session, entryId, token } = await runnerEntry();
  const runner = world.client(session);
  expect((await runner.PATCH('/api/entries/{id}', { params: { path: { id: entryId } }, body: { shareProgress: true } })).response.status).toBe(200);
  const positions = Array.from({ length: 40 }, (_, i) => positionAt(((i + 1) / 10) * MILE, start + (i + 1) * MINUTE));
  expect((await runner.POST('/api/entries/{id}/positions', { params: { path: { id: entryId } }, body: { positions } })).response.status).toBe(200);
  return token;
}

/** Where on the page an element's top is. */
const top = async (page: Page, name: string | RegExp) => (await page.getByRole('button', { name }).boundingBox())!.y;

test('during a live race Record comes before the marker alert, and the suggested marker fits the picker in every language', async ({ browser }) => {
  const token = await runnerSharing();
  const contexts: BrowserContext[] = [];
  try {
    const languages = [
      { lang: 'en', marker: 'Marker', locale: 'en-US', record: 'Record', alert: /^Tell me when Alex is about 10 minutes from / },
      { lang: 'de', marker: 'Streckenpunkt', locale: 'de-DE', record: 'Aufnehmen', alert: /^Sag mir, wenn Alex etwa 10 Minuten von / },
      { lang: 'es', marker: 'Punto del recorrido', locale: 'es-ES', record: 'Grabar', alert: /^Avísame cuando Alex esté a unos 10 minutos de / },
      { lang: 'fr', marker: 'Point du parcours', locale: 'fr-FR', record: 'Enregistrer', alert: /^Prévenez-moi quand Alex sera à environ 10 minutes de / },
    ] as const;
    for (const { lang, marker, locale, record, alert } of languages) {
      const context = await browser.newContext({ viewport: PHONE, locale });
      contexts.push(context);
      await context.grantPermissions(['notifications'], { origin: world.server.url });
      await standInPushManager(context, service.subscribe());
      const page = await context.newPage();
      await page.goto(`${world.server.url}/r/${token}`);
      await expect(page.locator('main[data-react]')).toHaveCount(1);
      // The suggested marker is preselected: its line, with its time and the word for it, is what the picker shows.
      await expect(page.getByTestId('eta-suggested')).toBeVisible();
      await expect(page.getByLabel(marker)).toHaveValue(/^mi-\d+$/);
      await look(page, 'live-race-suggested', lang);
      // A marker far enough ahead to be told about first: the alert offered, under Record.
      await page.getByLabel(marker).selectOption('mi-14');
      await expect(page.getByRole('button', { name: alert })).toBeVisible();
      expect(await top(page, record), `${lang}: Record above the alert`).toBeLessThan(await top(page, alert));
      await look(page, 'live-race-alert', lang);
    }
  } finally {
    await Promise.all(contexts.map((context) => context.close()));
  }
});
