/**
 * When the runner is expected at the markers ahead, in a friend's recorder: a runner in a
 * live race shares progress, their phone posts positions as the app does, and the real server
 * estimates their times. The recorder writes each marker's time in the race's zone, suggests (and
 * preselects) the first marker a note sent now can reach in time, warns in plain words about one
 * too near without stopping the send, speaks each language within a phone's width, and offline
 * keeps the last times and says how old they are.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import type { Estimates } from '../../contract/api';
import { SEND_LEAD_MS } from '../../contract/delivery';
import { positionAt } from '../server/support/live-race';
import { speechWav } from '../../stand-ins/speech';
import { launchPhone, noteStates, openRecorder, record, serverNotes } from '../../kit/browser/recorder';
import { enterRace } from '../../kit/runnerApi';
import { startRunnerWorld, type RunnerWorld } from './support/runnerWorld';

const root = path.resolve(import.meta.dirname, '../..');
const SHOTS = path.join(root, 'test-results/screenshots');
const MILE = 1609.344;

let world: RunnerWorld;
test.beforeAll(async () => {
  world = await startRunnerWorld();
});
test.afterAll(async () => {
  await world?.stop();
});

/**
 * A runner in Chicago (started 70 minutes ago, on the straight test course) who shares progress
 * and whose last position, half a minute ago, is 400 m before mile 7 at a steady pace: mile 7 is
 * minutes away (too near for a note sent now), mile 8 about eleven minutes away (in time).
 */
async function runnerBeforeMile7(displayName: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'tests/e2e/support/start-live-race.ts', 'chicago-2099', '70'], {
    cwd: root,
    env: world.server.env,
  });
  const start = (JSON.parse(stdout.trim().split('\n').pop()!) as { start: number }).start;
  const session = await world.signIn();
  const entry = await enterRace(world.client(session), 'chicago-2099', displayName);
  expect((await world.client(session).PATCH('/api/entries/{id}', { params: { path: { id: entry.id } }, body: { shareProgress: true } })).response.status).toBe(
    200,
  );
  const last = Date.now() - 30_000;
  const meters = 7 * MILE - 400;
  const pace = meters / ((last - start) / 1000);
  const running = (fraction: number) => positionAt(meters * fraction, start + (last - start) * fraction);
  const posted = await world
    .client(session)
    .POST('/api/entries/{id}/positions', { params: { path: { id: entry.id } }, body: { positions: [0.6, 0.75, 0.9, 0.95, 1].map(running) } });
  expect(posted.response.status).toBe(200);
  expect(posted.data!.progress!.lastMarker!.id).toBe('mi-6');
  expect(pace).toBeGreaterThan(2);
  return entry.link.token as string;
}

/**
 * The estimates in the link's data the page receives while `open` runs: the times the page was told.
 * A first visit has them in the page's HTML; the worker's shell has none, and the page asks the API.
 */
async function estimatesSeenBy(page: Page, token: string, open: () => Promise<unknown>): Promise<Estimates> {
  const answer = page.waitForResponse((r) => r.url() === `${world.server.url}/api/r/${token}` && r.request().method() === 'GET');
  answer.catch(() => undefined);
  const html = page.waitForResponse((r) => r.url() === `${world.server.url}/r/${token}` && r.request().isNavigationRequest());
  await open();
  const carried = /<script type="application\/json" id="link-data">([^<]*)<\/script>/.exec(await (await html).text());
  const { estimates } = carried ? (JSON.parse(carried[1]!) as { body: { estimates?: Estimates } }).body : await (await answer).json();
  expect(estimates, 'the server estimates the times while the race is live and the runner shares').toBeDefined();
  return estimates as Estimates;
}

/** A time of day on Chicago's clocks, as a language's recorder writes it ('10:52 AM' in English, '10:52' elsewhere). */
const chicagoTime = (iso: string, lang: 'en' | 'fr') =>
  new Intl.DateTimeFormat(lang === 'en' ? 'en-US' : 'fr-FR', { timeZone: 'America/Chicago', hour: 'numeric', minute: '2-digit' })
    .format(Date.parse(iso))
    .replace(/\u202f/g, ' ');
const expectedAt = (estimates: Estimates, id: string) => estimates.markers.find((m) => m.id === id)!.at;
const markerOptions = (page: Page) => page.getByLabel(/Marker|Point du parcours/).locator('option');
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

test('the picker shows when the runner is expected at each marker, suggests the first in time, and warns about one too near without stopping the send', async () => {
  const token = await runnerBeforeMile7('Alex');
  const { context } = await launchPhone(await speechWav());
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const warnings: string[] = [];
    page.on('console', (message) => void (message.type() === 'warning' && warnings.push(message.text())));
    const html = page.waitForResponse((r) => r.url() === `${world.server.url}/r/${token}` && r.request().isNavigationRequest());
    const estimates = await estimatesSeenBy(page, token, () => openRecorder(context, world.server, token));
    const at = (id: string) => chicagoTime(expectedAt(estimates, id), 'en');
    // The first screen in the page's HTML has the times and the suggestion already, and React takes it
    // over as drawn, drawing nothing again (src/recorderApp.tsx says so in the console when it must).
    const drawn = await (await html).text();
    expect(drawn).toContain(`<option value="mi-8" selected="">Mile 8 · ${at('mi-8')} (suggested)</option>`);
    expect(drawn).toContain('data-testid="eta-suggested"');
    await expect(page.locator('main[data-react]')).toHaveCount(1);
    expect(warnings.filter((text) => text.includes('drawn again'))).toEqual([]);
    // The server's times put mile 7 too near for a note sent now and mile 8 in time: what this test is about.
    expect(Date.parse(expectedAt(estimates, 'mi-7'))).toBeLessThan(Date.now() + SEND_LEAD_MS);
    expect(Date.parse(expectedAt(estimates, 'mi-8'))).toBeGreaterThan(Date.now() + SEND_LEAD_MS + 60_000);
    const options = markerOptions(page);
    await expect(options.nth(6)).toHaveText('Mile 6 (passed)');
    await expect(options.nth(7)).toHaveText(`Mile 7 · ${at('mi-7')}`);
    await expect(options.nth(8)).toHaveText(`Mile 8 · ${at('mi-8')} (suggested)`);
    await expect(options.nth(9)).toHaveText(`Mile 9 · ${at('mi-9')}`);
    // Not chosen yet: the suggestion is preselected, and said why.
    await expect(page.getByLabel('Marker')).toHaveValue('mi-8');
    await expect(page.getByTestId('eta-suggested')).toHaveText(
      `Mile 8 is suggested: Alex is expected there about ${at('mi-8')}, late enough for a note sent now to arrive in time.`,
    );
    await expect(page.getByTestId('eta-age')).toHaveText(`Expected times as of ${chicagoTime(estimates.madeAt, 'en')}.`);
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'recorder-eta-suggested-en-390x844.png'), fullPage: true });

    await page.getByLabel('Marker').selectOption('mi-7');
    await expect(page.getByTestId('eta-warning')).toHaveText(
      `Alex is expected at Mile 7 about ${at('mi-7')}, likely before a note sent now reaches their phone. You can still send it: it will play as soon as it arrives. To be heard in time, choose Mile 8 or later.`,
    );
    await expect(page.getByTestId('eta-suggested')).toHaveCount(0);
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'recorder-eta-warning-en-390x844.png'), fullPage: true });

    // The warning stops nothing: the note for mile 7 is sent and delivered.
    await page.getByLabel('Your name').fill('Sam');
    await record(page, 2);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(noteStates(page)).toHaveText(['Safe with us'], { timeout: 15_000 });
    expect((await serverNotes(world.server, token)).map((n) => ({ marker: n.marker, from: n.from }))).toEqual([{ marker: 'mi-7', from: 'Sam' }]);

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(SHOTS, 'recorder-eta-warning-en-1280x800.png'), fullPage: true });
  } finally {
    await context.close();
  }
});

test('in French, with a long name, the times and advice fit a phone; every language fits', async ({ page }) => {
  const token = await runnerBeforeMile7('Camille Martin-Delacroix');
  await page.setViewportSize({ width: 390, height: 844 });
  const estimates = await estimatesSeenBy(page, token, () => page.goto(`${world.server.url}/r/${token}`));
  const at = (id: string) => chicagoTime(expectedAt(estimates, id), 'fr');
  await expect(markerOptions(page).nth(8)).toHaveText(/^Mile 8 · \d{1,2}:\d\d [AP]M \(suggested\)$/);
  for (const [lang, menuName] of [
    ['de', 'Deutsch'],
    ['es', 'Español'],
    ['fr', 'Français'],
  ] as const) {
    await page.getByTestId('language-menu').selectOption({ label: menuName });
    await expect(page.locator('html')).toHaveAttribute('lang', lang);
    await expect(page.getByTestId('eta-suggested')).toBeVisible();
    await page.locator('.rec-field select').selectOption('mi-7');
    await expect(page.getByTestId('eta-warning')).toBeVisible();
    expect(await pageWidth(page), lang).toBeLessThanOrEqual(390);
    await page.locator('.rec-field select').selectOption('mi-8');
  }
  const options = markerOptions(page);
  await expect(options.nth(0)).toHaveText("Choisissez où Camille Martin-Delacroix l'entendra");
  await expect(options.nth(6)).toHaveText('Mille 6 (passé)');
  await expect(options.nth(7)).toHaveText(`Mille 7 · ${at('mi-7')}`);
  await expect(options.nth(8)).toHaveText(`Mille 8 · ${at('mi-8')} (conseillé)`);
  await expect(page.getByTestId('eta-suggested')).toHaveText(
    `Nous conseillons Mille 8\u00a0: on y attend Camille Martin-Delacroix vers ${at('mi-8')}, assez tard pour qu'un message envoyé maintenant arrive à temps.`,
  );
  await expect(page.getByTestId('eta-age')).toHaveText(`Heures de passage prévues, calculées à ${chicagoTime(estimates.madeAt, 'fr')}.`);
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
  await page.screenshot({ path: path.join(SHOTS, 'recorder-eta-suggested-fr-390x844.png'), fullPage: true });
  await page.locator('.rec-field select').selectOption('mi-7');
  await expect(page.getByTestId('eta-warning')).toHaveText(
    `On attend Camille Martin-Delacroix à Mille 7 vers ${at('mi-7')}, sans doute avant qu'un message envoyé maintenant n'arrive sur son téléphone. Vous pouvez quand même l'envoyer\u00a0: il sera lu dès son arrivée. Pour qu'il soit entendu à temps, choisissez Mille 8 ou plus loin.`,
  );
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join(SHOTS, 'recorder-eta-warning-fr-390x844.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(SHOTS, 'recorder-eta-warning-fr-1280x800.png'), fullPage: true });
});

test('offline, the recorder keeps the last times, after a reload too, and says how old they are', async () => {
  const token = await runnerBeforeMile7('Alex');
  const { context } = await launchPhone(await speechWav());
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.clock.install();
    const estimates = await estimatesSeenBy(page, token, () => openRecorder(context, world.server, token));
    const at = (id: string) => chicagoTime(expectedAt(estimates, id), 'en');
    await expect(markerOptions(page).nth(8)).toHaveText(`Mile 8 · ${at('mi-8')} (suggested)`);

    await context.setOffline(true);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Alex', exact: true })).toBeVisible();
    await expect(markerOptions(page).nth(8)).toHaveText(`Mile 8 · ${at('mi-8')} (suggested)`);

    // Twelve minutes offline: the refreshes fail, the times stay, and say their age.
    await page.clock.runFor(12 * 60_000);
    const age = Math.floor(((await page.evaluate(() => Date.now())) - Date.parse(estimates.madeAt)) / 60_000);
    expect(age).toBeGreaterThanOrEqual(11);
    await expect(page.getByTestId('eta-age')).toHaveText(`Expected times as of ${chicagoTime(estimates.madeAt, 'en')}, estimated ${age} minutes ago.`);
    // Mile 8 was eleven minutes away: by now it is too near. The choice stays where it was shown,
    // the page says so, and the suggestion moves on to mile 9.
    await expect(page.getByLabel('Marker')).toHaveValue('mi-8');
    await expect(page.getByTestId('eta-warning')).toContainText(
      `Alex is expected at Mile 8 about ${at('mi-8')}, likely before a note sent now reaches their phone.`,
    );
    await expect(page.getByTestId('eta-warning')).toContainText('To be heard in time, choose Mile 9 or later.');
    await expect(markerOptions(page).nth(8)).toHaveText(`Mile 8 · ${at('mi-8')}`);
    await expect(markerOptions(page).nth(9)).toHaveText(`Mile 9 · ${at('mi-9')} (suggested)`);
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(SHOTS, 'recorder-eta-offline-en-390x844.png'), fullPage: true });
  } finally {
    await context.close();
  }
});
