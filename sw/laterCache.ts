/// <reference lib="webworker" />
/**
 * Owns the worker's second cache: the files no recorder needs offline (the marketing pages'
 * pictures, the keepsake screen, the app icons). The install precaches only what opens the
 * recorder and the pages' HTML; these are kept on use, and fetched in the background when the
 * site asks and no note is waiting to upload, one at a time, so they never share a thin
 * connection with somebody's voice note. The hero video is in neither tier.
 */

/** One file of this tier, as the build lists it (Workbox's manifest entry). */
export interface LaterEntry {
  url: string;
  revision: string | null;
}

export const LATER_CACHE = 'milenotes-later';

export interface LaterCacheDeps {
  entries: LaterEntry[];
  origin: string;
  /** True while the outbox holds a note that is waiting or being sent. */
  notesWaiting: () => Promise<boolean>;
  caches?: CacheStorage;
  fetch?: typeof fetch;
}

/** Why fill() stopped: everything is cached, or a note was waiting and came first. */
export type FillOutcome = 'complete' | 'deferred';

export function createLaterCache({ entries, origin, notesWaiting, caches = self.caches, fetch = self.fetch.bind(self) }: LaterCacheDeps) {
  // A revision changes the key, so a new release never serves last release's picture.
  const keyOfPath = new Map<string, string>();
  for (const { url, revision } of entries) {
    const absolute = new URL(url, origin);
    const key = new URL(absolute);
    if (revision) key.searchParams.set('__WB_REVISION__', revision);
    keyOfPath.set(absolute.pathname, key.href);
  }
  let filling: Promise<FillOutcome> | undefined;

  async function fillOnce(): Promise<FillOutcome> {
    const cache = await caches.open(LATER_CACHE);
    const wanted = new Set(keyOfPath.values());
    for (const request of await cache.keys()) if (!wanted.has(request.url)) await cache.delete(request);
    for (const [path, key] of keyOfPath) {
      if (await cache.match(key)) continue;
      if (await notesWaiting()) return 'deferred';
      // no-cache: a picture the page has just shown is revalidated (304), not downloaded again.
      const response = await fetch(new URL(path, origin).href, { cache: 'no-cache', credentials: 'same-origin' });
      if (response.status === 200) await cache.put(key, response);
    }
    return 'complete';
  }

  return {
    /** Whether this tier owns the file at url (same origin, listed by the build). */
    owns: (url: URL) => url.origin === origin && keyOfPath.has(url.pathname),

    /** The kept copy, or the network's answer, kept for next time (it costs nothing more). */
    async respond(request: Request): Promise<Response> {
      const key = keyOfPath.get(new URL(request.url).pathname)!;
      const cache = await caches.open(LATER_CACHE);
      const kept = await cache.match(key);
      if (kept) return kept;
      const response = await fetch(request);
      if (response.status === 200) await cache.put(key, response.clone());
      return response;
    },

    /** Fetches what is missing, unless and until a note is waiting to upload. One run at a time. */
    fill(): Promise<FillOutcome> {
      filling ??= fillOnce().finally(() => (filling = undefined));
      return filling;
    },
  };
}
