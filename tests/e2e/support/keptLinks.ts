/** The links a page keeps in its IndexedDB (the outbox's `links` store), read and held from outside the app. */
import type { Page } from '@playwright/test';

/** How many links the page's IndexedDB keeps. */
export const keptLinkCount = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('milenotes');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const count = open.result.transaction('links').objectStore('links').count();
          count.onsuccess = () => {
            open.result.close();
            resolve(count.result);
          };
        };
      }),
  );

/** Whether the page keeps the link of `token` marked gone (revoked), or null when it does not keep it. */
export const keptGone = (page: Page, token: string) =>
  page.evaluate(
    (key) =>
      new Promise<boolean | null>((resolve, reject) => {
        const open = indexedDB.open('milenotes');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('links').objectStore('links').get(key);
          get.onsuccess = () => {
            open.result.close();
            const link = get.result as { goneAt?: number } | undefined;
            resolve(link === undefined ? null : link.goneAt !== undefined);
          };
        };
      }),
    token,
  );

/**
 * Holds the `links` store in a read-write transaction opened from `page`, as a slow phone's storage
 * busy with another tab's write: every read or write of kept links begun after it waits until the
 * returned release is called. The transaction is kept alive by one request after another.
 */
export async function holdKeptLinks(page: Page): Promise<() => Promise<void>> {
  await page.evaluate(
    () =>
      new Promise<void>((held, failed) => {
        const open = indexedDB.open('milenotes');
        open.onerror = () => failed(open.error);
        open.onsuccess = () => {
          const links = open.result.transaction('links', 'readwrite').objectStore('links');
          const hold = { on: true };
          (window as unknown as { releaseKeptLinks: () => void }).releaseKeptLinks = () => void (hold.on = false);
          const next = () => {
            if (hold.on) links.count().onsuccess = next;
            else open.result.close();
          };
          links.count().onsuccess = () => {
            held();
            next();
          };
        };
      }),
  );
  return () => page.evaluate(() => (window as unknown as { releaseKeptLinks: () => void }).releaseKeptLinks());
}
