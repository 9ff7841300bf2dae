/**
 * The three phones of the delivery benchmark: ours (the real recorder screen), and two baseline
 * pages that upload the very bytes ours recorded: a plain fetch PUT (what a naive recorder does)
 * and the same PUT through Workbox's stock BackgroundSyncPlugin in a bench-only service worker.
 */
import type { Page } from '@playwright/test';
import { noteHeaders, notePutPath } from '../../stand-ins/friend.js';

export interface RecordedNote {
  id: string;
  contentType: string;
  audio: Buffer;
}

/** The newest note our recorder put in its outbox that is not in `known`, with its audio, read from IndexedDB. */
async function readNewestOutboxNote(page: Page, known: ReadonlySet<string>): Promise<RecordedNote | undefined> {
  // No named helpers in here: the bundler's name-keeping wrapper does not exist in the page.
  const found = await page.evaluate(
    async (knownIds) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('milenotes');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const all = await new Promise<Array<{ id: string; createdAt: number; contentType: string }>>((resolve, reject) => {
        const req = db.transaction('notes').objectStore('notes').getAll();
        req.onsuccess = () => resolve(req.result as Array<{ id: string; createdAt: number; contentType: string }>);
        req.onerror = () => reject(req.error);
      });
      const note = all.filter((n) => !knownIds.includes(n.id)).sort((a, b) => b.createdAt - a.createdAt)[0];
      if (!note) return undefined;
      const audio = await new Promise<{ data: ArrayBuffer } | undefined>((resolve, reject) => {
        const req = db.transaction('audio').objectStore('audio').get(note.id);
        req.onsuccess = () => resolve(req.result as { data: ArrayBuffer } | undefined);
        req.onerror = () => reject(req.error);
      });
      db.close();
      if (!audio) return undefined;
      let binary = '';
      for (const b of new Uint8Array(audio.data)) binary += String.fromCharCode(b);
      return { id: note.id, contentType: note.contentType, base64: btoa(binary) };
    },
    [...known],
  );
  return found && { id: found.id, contentType: found.contentType, audio: Buffer.from(found.base64, 'base64') };
}

/** Waits for the note just sent to be in the outbox (Send returns to the Record button before the write settles). */
export async function newestOutboxNote(page: Page, known: ReadonlySet<string>): Promise<RecordedNote> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const note = await readNewestOutboxNote(page, known);
    if (note) return note;
    if (Date.now() > deadline) throw new Error('the note just sent did not appear in the outbox within 15 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export type BaselineKind = 'plain fetch' | 'Workbox BackgroundSyncPlugin';

/** Opens a blank page under /bench/ on the proxy in `page`; for Workbox, with the stock plugin's worker in control. */
export async function openBaselinePage(page: Page, origin: string, kind: BaselineKind): Promise<Page> {
  if (kind === 'plain fetch') {
    await page.goto(`${origin}/bench/naive.html`);
    return page;
  }
  await page.goto(`${origin}/bench/workbox.html`);
  await page.evaluate(async () => {
    await navigator.serviceWorker.register('/bench/baseline-sw.js', { scope: '/bench/' });
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
    }
  });
  return page;
}

/** Starts one PUT from the baseline page and returns at once; the page counts how its fetches settled. */
export async function sendFromBaseline(page: Page, token: string, noteId: string, note: RecordedNote): Promise<void> {
  await page.evaluate(
    ({ url, headers, base64 }) => {
      const w = window as unknown as { settled?: number };
      w.settled ??= 0;
      const body = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      // What a naive recorder does: one try; an error or a non-2xx answer is shown and the note is gone.
      void fetch(url, { method: 'PUT', headers, body })
        .then((r) => r.arrayBuffer())
        .catch(() => undefined)
        .finally(() => (w.settled = (w.settled ?? 0) + 1));
    },
    { url: notePutPath(token, noteId, 'mi-1', 'Bench'), headers: noteHeaders(note), base64: note.audio.toString('base64') },
  );
}

/** How many of the page's fetches have settled (answered or failed). */
export function settledCount(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { settled?: number }).settled ?? 0);
}
