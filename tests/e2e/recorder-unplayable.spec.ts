/**
 * A note that arrives but can never be converted (here: longer than this server's limit of 1 s)
 * would never be heard: the sender's recorder says so and asks for it again, instead of showing
 * 'Safe with us' as if all were well.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { speechWav, startServer, type RunningServer } from './fixtures';
import { fillDetails, launchPhone, noteStates, openRecorder, record } from '../../kit/browser/recorder';
import { screenshot } from './support/screenshot';

let server: RunningServer;

test.beforeAll(async () => {
  server = await startServer({ MAX_NOTE_SECONDS: '1' });
});
test.afterAll(async () => {
  await server?.stop();
});

test("a delivered note the server cannot convert is shown as one the runner won't hear, with a request to record it again", async () => {
  const token = await server.createLink('Alex');
  const { context } = await launchPhone(await speechWav());
  try {
    const page = await openRecorder(context, server, token);
    await fillDetails(page, 'Mile 13', 'Sam');
    await record(page, 3);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(noteStates(page)).toHaveText(['Safe with us']);

    const noteId = (await page.getByTestId('note').getAttribute('data-note-id'))!;
    const status = async () => (await (await fetch(`${server.url}/api/r/${token}/notes/${noteId}/status`)).json()).status;
    await expect.poll(status, { timeout: 30_000 }).toBe('failed');

    await page.reload();
    await expect(page.getByTestId('note-unplayable')).toHaveText(
      "This note arrived, but its sound could not be used, so Alex won't hear it. Please record it again.",
    );
    await expect(noteStates(page)).toHaveText(["Can't be played"]);
    await expect(page.getByTestId('note-heard')).toHaveCount(0);
    await screenshot(page, 'unplayable');
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

    // Offline truth: kept on the phone, so without a network it still does not read 'Safe with us'.
    await context.setOffline(true);
    await page.reload();
    await expect(page.getByTestId('status-line')).toHaveText(/^You're offline\./);
    await expect(noteStates(page)).toHaveText(["Can't be played"]);
    await expect(page.getByTestId('note-unplayable')).toHaveText(
      "This note arrived, but its sound could not be used, so Alex won't hear it. Please record it again.",
    );
    await screenshot(page, 'unplayable-offline');
  } finally {
    await context.setOffline(false);
    await context.close();
  }
});
