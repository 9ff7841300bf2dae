/**
 * The keepsake page and the sender's 'heard' status in real Chromium, against the real server
 * process: a runner signs in (Apple's JWKS served from this test), gets notes through the
 * recorder API, converted by the real ffmpeg worker, and shares them.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { startRunnerWorld, type RunnerWorld } from './support/runnerWorld';

let world: RunnerWorld;

test.beforeAll(async () => {
  world = await startRunnerWorld();
});
test.afterAll(async () => {
  await world?.stop();
});

const runnerWithNote = () => world.runnerWithNote();

test('the keepsake page shows the runner, the race and a shared note that plays', async ({ page }) => {
  const { session, entry } = await runnerWithNote();
  const share = await world.client(session).POST('/api/shares', { body: { entryId: entry.id } });
  expect(share.response.status).toBe(201);

  await page.goto(share.data!.url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Alex');
  await expect(page.getByText('Chicago Marathon · Oct 11, 2099')).toBeVisible();
  const note = page.getByRole('listitem');
  await expect(note).toHaveCount(1);
  await expect(note.getByText('Mile 13')).toBeVisible();
  await expect(note.getByText('From Sam')).toBeVisible();
  expect(await new AxeBuilder({ page }).analyze().then((r) => r.violations.map((v) => v.id))).toEqual([]);

  const audio = note.locator('audio');
  // Muted so Chromium's autoplay policy lets a script start it; the decoder runs all the same.
  await audio.evaluate((a: HTMLAudioElement) => {
    a.muted = true;
    void a.play();
  });
  await expect
    .poll(() => audio.evaluate((a: HTMLAudioElement) => (a.error ? `error ${a.error.code}` : a.currentTime)), { timeout: 15_000 })
    .toBeGreaterThan(0.5);
  expect(await audio.evaluate((a: HTMLAudioElement) => a.duration)).toBeGreaterThan(3);
});

test('a share the runner removed shows a clear message and its audio is gone', async ({ page }) => {
  const { session, entry, noteId } = await runnerWithNote();
  const share = await world.client(session).POST('/api/shares', { body: { entryId: entry.id } });
  const token = String(share.data!.url).split('/s/')[1];
  expect((await world.client(session).DELETE('/api/shares/{id}', { params: { path: { id: share.data!.id } } })).response.status).toBe(204);

  await page.goto(share.data!.url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("These notes aren't shared");
  await expect(page.getByRole('alert')).toHaveText(/Ask the runner to share them again/);
  expect((await page.request.get(`/api/s/${token}/notes/${noteId}/audio`.replace(/^/, world.server.url))).status()).toBe(404);
});

test("the sender's browser learns 'heard at Mile 13' for its own note once the runner's app reports it", async ({ page }) => {
  const { session, entry, noteId } = await runnerWithNote();
  await page.goto(entry.link.url);
  const status = () => page.evaluate(async (url) => (await fetch(url)).json(), `/api/r/${entry.link.token}/notes/${noteId}/status`);
  expect(await status()).toEqual({ id: noteId, status: 'converted', onRunnersPhone: false });
  expect(
    (
      await world
        .client(session)
        .POST('/api/notes/{id}/played', { params: { path: { id: noteId } }, body: { playedAt: '2025-10-12T15:00:00Z', marker: 'mi-13' } })
    ).response.status,
  ).toBe(200);
  expect(await status()).toMatchObject({ heardAtMarker: 'mi-13', heardAtLabel: 'Mile 13' });
});
