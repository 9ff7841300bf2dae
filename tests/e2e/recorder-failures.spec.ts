import type { Page, Route } from '@playwright/test';
import { expect, speechWav, test } from './fixtures';
import { fillDetails, launchPhone, noteStates, openRecorder, record } from '../../kit/browser/recorder';

/** From now on every IndexedDB write of this kind fails in the page, as a broken or locked database does. */
async function breakStorage(page: Page, method: 'delete' | 'put') {
  await page.evaluate((name) => {
    IDBObjectStore.prototype[name] = () => {
      throw new DOMException('The database is busy.', 'UnknownError');
    };
  }, method);
}

test.describe("the recorder when this phone's storage fails", () => {
  test('Record again, Delete and Retry say so in the alert line and keep what they could not remove', async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      // The server refuses the note, so it waits in 'Needs attention' with Retry and Delete.
      await context.route(/\/api\/r\/[^/]+\/notes\//, async (route: Route) =>
        route.request().method() === 'PUT'
          ? route.fulfill({ status: 422, contentType: 'application/json', body: '{"error":"refused","message":"Not this one."}' })
          : route.fallback(),
      );
      const page = await openRecorder(context, server, token);
      await fillDetails(page, 'Mile 5', 'Jo');
      await record(page, 2);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(noteStates(page)).toHaveText(['Needs attention']);
      await record(page, 2);

      await breakStorage(page, 'delete');
      await page.getByRole('button', { name: 'Record again' }).click();
      await expect(page.getByRole('alert')).toHaveText(['This recording could not be removed from this phone. Try again.']);
      await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();

      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Delete' }).click();
      await expect(page.getByRole('alert')).toHaveText(['This note could not be deleted from this phone. Try again.']);
      await expect(noteStates(page)).toHaveText(['Needs attention']);

      await breakStorage(page, 'put');
      await page.getByRole('button', { name: 'Retry' }).click();
      await expect(page.getByRole('alert')).toHaveText(['This note could not be queued again. Try again in a moment.']);
      await expect(noteStates(page)).toHaveText(['Needs attention']);
    } finally {
      await context.close();
    }
  });
});
