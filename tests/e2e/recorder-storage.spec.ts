import AxeBuilder from '@axe-core/playwright';
import { expect, speechWav, test } from './fixtures';
import { launchPhone, openRecorder } from '../../kit/browser/recorder';
import { screenshot } from './support/screenshot';

/**
 * This Chromium ignores CDP Storage.overrideQuotaForOrigin (estimate() is unchanged, the browser
 * session answers 'Internal error'), so the full disk is injected in the page: estimate() reports
 * little room, and IndexedDB refuses chunk writes after the second with QuotaExceededError,
 * the way a full disk refuses them.
 */
function fillTheDisk() {
  const estimate = navigator.storage.estimate.bind(navigator.storage);
  navigator.storage.estimate = async () => ({ ...(await estimate()), quota: 5_000_000, usage: 4_990_000 });
  const put = IDBObjectStore.prototype.put;
  let chunkWrites = 0;
  IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
    if (this.name === 'chunks' && ++chunkWrites > 2) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    return put.apply(this, args);
  };
}

test.describe('the recorder when the phone is out of storage', () => {
  test('warns before recording, then says storage is full, stops, and keeps what was already recorded', async ({ server }) => {
    const token = await server.createLink('Alex');
    const { context } = await launchPhone(await speechWav());
    try {
      const page = await openRecorder(context, server, token);
      await context.addInitScript(fillTheDisk);
      await page.reload();
      await expect(page.getByRole('alert')).toContainText('Your phone is almost out of storage');

      await page.getByLabel('Marker').selectOption({ label: 'Mile 20' });
      await page.getByLabel('Your name').fill('Sam');
      await page.getByRole('button', { name: 'Record' }).click();
      await expect(page.getByText("Your phone's storage is full")).toBeVisible({ timeout: 15_000 });
      await expect(page.getByText('What you had already recorded is kept and you can still send it')).toBeVisible();
      await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
      await screenshot(page, 'storage-full');
      expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);
      const keptChunks = await page.evaluate(async () => {
        const db = await new Promise<IDBDatabase>((resolve) => {
          const open = indexedDB.open('milenotes');
          open.onsuccess = () => resolve(open.result);
        });
        return new Promise<number>((resolve) => {
          const count = db.transaction('chunks').objectStore('chunks').count();
          count.onsuccess = () => resolve(count.result);
        });
      });
      expect(keptChunks).toBe(2);
    } finally {
      await context.close();
    }
  });
});
