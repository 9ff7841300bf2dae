import type { Route } from '@playwright/test';
import { expect, speechWav, test } from './fixtures';
import { fillDetails, launchPhone, noteStates, openRecorder, record, serverNotes } from '../../kit/browser/recorder';

/**
 * A server that cannot store notes for now answers 503 storage_full with Retry-After.
 * The sender reads why and when it is tried again, the note stays on the phone, and it is
 * delivered once the server takes it. Note uploads are PUTs; the heard-status poll (a GET on the
 * same path) is passed on untouched.
 */
const NOTE_PUT = /\/api\/r\/[^/]+\/notes\//;

test('a 503 storage_full shows its words and when it is tried again, and the note is delivered after', async ({ server }) => {
  const token = await server.createLink('Alex');
  const { context } = await launchPhone(await speechWav());
  try {
    let refusals = 1;
    let puts = 0;
    // context.route also sees the service worker's requests in Chromium: every uploader is covered.
    await context.route(NOTE_PUT, async (route: Route) => {
      if (route.request().method() !== 'PUT') return route.fallback();
      puts++;
      if (refusals-- > 0) {
        return route.fulfill({
          status: 503,
          headers: { 'retry-after': '3', 'content-type': 'application/json' },
          body: JSON.stringify({
            error: 'storage_full',
            message: 'The server has no room to store notes right now. Your note is kept on your phone and will be sent again.',
          }),
        });
      }
      return route.continue();
    });
    const page = await openRecorder(context, server, token);
    await fillDetails(page, 'Mile 8', 'Ana');
    await record(page, 2);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByTestId('note-reason')).toHaveText(
      /^The server has no room to store notes right now\. Your note is kept on your phone and will be sent again\. ?It will be tried again in less than a minute\.$/,
    );
    await expect(noteStates(page)).toHaveText(['Saved on this phone']);
    await expect(noteStates(page)).toHaveText(['Safe with us'], { timeout: 20_000 });
    expect(puts).toBe(2);
    expect(await serverNotes(server, token)).toHaveLength(1);
  } finally {
    await context.close();
  }
});
