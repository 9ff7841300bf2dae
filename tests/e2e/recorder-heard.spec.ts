/**
 * 'Heard at Mile N' in the sender's recorder: a friend records a note for a runner who signed in
 * with Apple (JWKS served by this test); the runner's app reports the note played at mile 13.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { startFakeApple, type FakeApple } from '../../stand-ins/fakeApple';
import { speechWav, startServer, type RunningServer } from './fixtures';
import { addUpcomingRace, UPCOMING_RACE } from '../../kit/races';
import { enterRace, runnerClient, signIn } from '../../kit/runnerApi';
import { fillDetails, launchPhone, noteStates, openRecorder, record } from '../../kit/browser/recorder';
import { screenshot } from './support/screenshot';

let apple: FakeApple;
let server: RunningServer;

test.beforeAll(async () => {
  apple = await startFakeApple();
  server = await startServer({ APPLE_JWKS_URL: apple.jwksUrl, APPLE_AUDIENCE: apple.audience, SESSION_SECRET: 'e2e-secret-that-is-long-enough-0123456789' });
  await addUpcomingRace(server);
});
test.afterAll(async () => {
  await server?.stop();
  await apple?.close();
});

test("the sender's recorder shows 'Heard at Mile 13' once the runner's app reports the note played", async () => {
  const session = await signIn(server.url, apple);
  const runner = runnerClient(server.url, session);
  const entry = await enterRace(runner, UPCOMING_RACE, 'Alex');

  const { context } = await launchPhone(await speechWav());
  try {
    const page = await openRecorder(context, server, entry.link.token);
    await fillDetails(page, 'Mile 13', 'Sam');
    await record(page, 2);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(noteStates(page)).toHaveText(['Safe with us']);
    await expect(page.getByTestId('note-waiting-phone')).toHaveText("Waiting for Alex's phone to fetch it.");
    await expect(page.getByTestId('note-heard')).toHaveCount(0);

    const noteId = (await page.getByTestId('note').getAttribute('data-note-id'))!;
    const played = await runner.POST('/api/notes/{id}/played', {
      params: { path: { id: noteId } },
      body: { playedAt: new Date().toISOString(), marker: 'mi-13' },
    });
    expect(played.response.status).toBe(200);

    await page.reload();
    await expect(page.getByTestId('note-heard')).toHaveText('Heard at Mile 13');
    await expect(noteStates(page)).toHaveText(['Heard by Alex']);
    await expect(page.getByTestId('note-waiting-phone'), 'heard: no longer waiting for the phone').toHaveCount(0);
    await screenshot(page, 'heard');
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

    // Offline truth: the phone keeps what the server said, and says it without a network.
    await context.setOffline(true);
    await page.reload();
    await expect(page.getByTestId('status-line')).toHaveText(/^You're offline\./);
    await expect(page.getByTestId('note-heard')).toHaveText('Heard at Mile 13');
  } finally {
    await context.setOffline(false);
    await context.close();
  }
});
