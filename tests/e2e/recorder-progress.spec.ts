/**
 * Race-day progress in the sender's recorder: a runner in a live race shares progress,
 * their phone posts positions, and a friend's recorder says which marker they passed and when (in
 * the race's zone), marks passed markers in the picker, says when a note for one will play, and
 * picks up new progress while it stays open.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { positionAt } from '../server/support/live-race';
import { enterRace } from '../../kit/runnerApi';
import { startRunnerWorld, type RunnerWorld } from './support/runnerWorld';

const root = path.resolve(import.meta.dirname, '../..');
const PACE = 3; // m/s

let world: RunnerWorld;
test.beforeAll(async () => {
  world = await startRunnerWorld();
});
test.afterAll(async () => {
  await world?.stop();
});

/** Starts Chicago on the straight test course an hour ago, in the server's own database. */
async function startChicagoAnHourAgo(): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'tests/e2e/support/start-live-race.ts', 'chicago-2099', '60'], {
    cwd: root,
    env: world.server.env,
  });
  return (JSON.parse(stdout.trim().split('\n').pop()!) as { start: number }).start;
}

/** A time of day on Chicago's clocks, as the English recorder writes it ('1:47 PM'). */
const chicagoTime = (iso: string) =>
  new Intl.DateTimeFormat('en-US', { timeZone: 'America/Chicago', hour: 'numeric', minute: '2-digit' }).format(Date.parse(iso)).replace(/\u202f/g, ' ');

test('the recorder says which marker the runner passed and when, marks passed markers, and keeps up while open', async ({ page }) => {
  const start = await startChicagoAnHourAgo();
  const session = await world.signIn();
  const entry = await enterRace(world.client(session), 'chicago-2099', 'Alex');
  expect((await world.client(session).PATCH('/api/entries/{id}', { params: { path: { id: entry.id } }, body: { shareProgress: true } })).response.status).toBe(
    200,
  );
  const running = (seconds: number) => positionAt(seconds * PACE, start + seconds * 1000);
  const posted = await world
    .client(session)
    .POST('/api/entries/{id}/positions', { params: { path: { id: entry.id } }, body: { positions: [running(300), running(900), running(1200)] } });
  expect(posted.data!.progress!.lastMarker!.id).toBe('mi-2');

  await page.clock.install();
  await page.goto(`${world.server.url}/r/${entry.link.token}`);
  await expect(page.getByRole('status').filter({ hasText: 'passed' })).toHaveText(
    `Alex passed Mile 2 at ${chicagoTime(posted.data!.progress!.lastMarker!.passedAt)}.`,
  );
  const options = page.getByLabel('Marker').locator('option');
  await expect(options.nth(1)).toHaveText('Mile 1 (passed)');
  await expect(options.nth(2)).toHaveText('Mile 2 (passed)');
  // Ahead of the runner: with the time they are expected there (tests/e2e/recorder-eta.spec.ts).
  await expect(options.nth(3)).toHaveText(/^Mile 3 · \d{1,2}:\d\d [AP]M$/);

  await page.getByLabel('Marker').selectOption('mi-1');
  await expect(page.getByText("Alex has passed Mile 1: this note will play as soon as it reaches Alex's phone.")).toBeVisible();
  // On a phone: the progress and the passed marker's sentence fit its width, for a person to look at.
  await page.setViewportSize({ width: 390, height: 844 });
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
  await page.screenshot({ path: path.join(root, 'test-results/screenshots/recorder-progress-390x844.png') });
  await page.getByLabel('Marker').selectOption('mi-3');
  await expect(page.getByText(/this note will play as soon as/)).toHaveCount(0);

  // The runner passes mile 3; the open page asks again within a minute.
  const later = await world
    .client(session)
    .POST('/api/entries/{id}/positions', { params: { path: { id: entry.id } }, body: { positions: [running(1500), running(1800)] } });
  expect(later.data!.progress!.lastMarker!.id).toBe('mi-3');
  await page.clock.runFor(61_000);
  await expect(page.getByRole('status').filter({ hasText: 'passed' })).toHaveText(
    `Alex passed Mile 3 at ${chicagoTime(later.data!.progress!.lastMarker!.passedAt)}.`,
  );
  await expect(options.nth(3)).toHaveText('Mile 3 (passed)');
  await expect(page.getByText("Alex has passed Mile 3: this note will play as soon as it reaches Alex's phone.")).toBeVisible();
});
