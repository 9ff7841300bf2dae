import { describe, expect, it } from 'vitest';
import { createLaterCache, LATER_CACHE, type LaterEntry } from '../../sw/laterCache.js';

const ORIGIN = 'https://milenotes.test';
const ENTRIES: LaterEntry[] = [
  { url: 'races/sydney-2025.svg', revision: 'r1' },
  { url: 'media/hero-poster.webp', revision: 'r2' },
  { url: 'assets/keepsakeApp-abc.js', revision: null },
];

/** The part of CacheStorage the worker uses, in memory. */
function memoryCaches() {
  const stores = new Map<string, Map<string, Response>>();
  const open = async (name: string) => {
    const store = stores.get(name) ?? new Map<string, Response>();
    stores.set(name, store);
    const keyOf = (r: RequestInfo | URL) => (typeof r === 'string' ? r : r instanceof URL ? r.href : r.url);
    return {
      match: async (r: RequestInfo | URL) => store.get(keyOf(r))?.clone(),
      put: async (r: RequestInfo | URL, response: Response) => void store.set(keyOf(r), response),
      keys: async () => [...store.keys()].map((k) => new Request(k)),
      delete: async (r: RequestInfo | URL) => store.delete(keyOf(r)),
    } as unknown as Cache;
  };
  return { stores, caches: { open } as unknown as CacheStorage };
}

function setup(waiting: (fetched: string[]) => boolean = () => false) {
  const fetched: string[] = [];
  const { stores, caches } = memoryCaches();
  const fetch = (async (input: RequestInfo | URL) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    fetched.push(new URL(url).pathname);
    return new Response(`body of ${url}`, { status: 200 });
  }) as typeof globalThis.fetch;
  const later = createLaterCache({ entries: ENTRIES, origin: ORIGIN, notesWaiting: async () => waiting(fetched), caches, fetch });
  return { later, fetched, kept: () => [...(stores.get(LATER_CACHE)?.keys() ?? [])], stores };
}

describe('the service worker cache of files no recorder needs', () => {
  it('fetches every file one after another when no note is waiting', async () => {
    const { later, fetched, kept } = setup();
    expect(await later.fill()).toBe('complete');
    expect(fetched).toEqual(['/races/sydney-2025.svg', '/media/hero-poster.webp', '/assets/keepsakeApp-abc.js']);
    expect(kept()).toEqual([
      `${ORIGIN}/races/sydney-2025.svg?__WB_REVISION__=r1`,
      `${ORIGIN}/media/hero-poster.webp?__WB_REVISION__=r2`,
      `${ORIGIN}/assets/keepsakeApp-abc.js`,
    ]);
    expect(await later.fill()).toBe('complete');
    expect(fetched).toHaveLength(3);
  });

  it('fetches nothing while a note is waiting to upload', async () => {
    const { later, fetched } = setup(() => true);
    expect(await later.fill()).toBe('deferred');
    expect(fetched).toEqual([]);
  });

  it('stops as soon as a note starts waiting, and finishes on a later run', async () => {
    let uploaded = false;
    // A note is sent while the first file downloads; it is uploaded before the next run.
    const { later, fetched } = setup((sofar) => sofar.length >= 1 && !uploaded);
    expect(await later.fill()).toBe('deferred');
    expect(fetched).toEqual(['/races/sydney-2025.svg']);
    uploaded = true;
    expect(await later.fill()).toBe('complete');
    expect(fetched).toEqual(['/races/sydney-2025.svg', '/media/hero-poster.webp', '/assets/keepsakeApp-abc.js']);
  });

  it('runs one fill at a time however often the pages ask', async () => {
    const { later, fetched } = setup();
    await Promise.all([later.fill(), later.fill(), later.fill()]);
    expect(fetched).toHaveLength(3);
  });

  it('drops files of an older release', async () => {
    const { later, stores, kept } = setup();
    stores.set(LATER_CACHE, new Map([[`${ORIGIN}/races/sydney-2025.svg?__WB_REVISION__=r0`, new Response('old')]]));
    await later.fill();
    expect(kept()).not.toContain(`${ORIGIN}/races/sydney-2025.svg?__WB_REVISION__=r0`);
    expect(kept()).toHaveLength(3);
  });

  it('keeps a file the page loads, and answers from the kept copy next time', async () => {
    const { later, fetched } = setup(() => true);
    const url = new URL('/races/sydney-2025.svg', ORIGIN);
    expect(later.owns(url)).toBe(true);
    expect(later.owns(new URL('/media/hero.mp4', ORIGIN))).toBe(false);
    expect(later.owns(new URL('/races/sydney-2025.svg', 'https://elsewhere.test'))).toBe(false);
    expect(await (await later.respond(new Request(url))).text()).toBe(`body of ${url.href}`);
    expect(await (await later.respond(new Request(url))).text()).toBe(`body of ${url.href}`);
    expect(fetched).toEqual(['/races/sydney-2025.svg']);
  });
});
