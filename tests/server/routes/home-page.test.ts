import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressedClock } from '../../../server/clock.js';
import { createHomePage, encodingFor } from '../../../server/routes/home-page.js';
import { appBadgeHtml } from '../../../contract/appBadge.js';
import { raceTrackHtml, SPEC_RACE_CARDS } from '../../../contract/raceCards.js';
import { RACES } from '../../../contract/races.js';
import { BACKENDS } from '../support/backends.js';
import { runAdmin } from '../support/cli.js';
import { startTestApp, type TestApp } from '../support/app.js';

/** The built page as scripts/build.mjs writes it, reduced to what matters here: the badge and the cards between their markers. */
const BUILT_HOME = `<!doctype html><html lang="en"><head><title>home</title></head><body><h1>MileNotes</h1><div class="hero__app">${appBadgeHtml(undefined)}</div><div>${raceTrackHtml(SPEC_RACE_CARDS)}</div><footer>end</footer></body></html>`;

const HOSTILE = `<img src=x onerror=alert(1)> & "Ünïcode" 'quoted' </h3><script>alert(2)</script>`;
const MINUTE = 60_000;

/** The names on the first (visible) copy of the cards, in order, as a browser would read them. */
function cardNames(html: string): string[] {
  const first = /<ul class="race-list">([\s\S]*?)<\/ul>/.exec(html)![1]!;
  return [...first.matchAll(/<h3 class="race-card__name">([\s\S]*?)<\/h3>/g)].map((m) =>
    m[1]!
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&'),
  );
}

describe.each(BACKENDS)('the home page on %s', (kind) => {
  let t: TestApp;
  let dist: string;
  let env: NodeJS.ProcessEnv;
  let clock = Date.now();
  const addRace = async (id: string, name: string, date: string, start = '07:30', timezone = 'America/Chicago') => {
    const { code, stderr } = await runAdmin(env, 'add-race', '--id', id, '--name', name, '--date', date, '--timezone', timezone, '--start', start);
    expect(code, stderr).toBe(0);
  };
  const homePage = (cacheMs = 30_000) => createHomePage({ distDir: dist, races: t.app.repo.races, cacheMs, log: t.app.log, now: () => clock });
  const htmlOf = async (home: ReturnType<typeof homePage>) => (await home.page()).bodies.identity.toString('utf8');

  beforeAll(async () => {
    dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    await writeFile(path.join(dist, 'index.html'), BUILT_HOME);
    t = await startTestApp(kind, { DIST_DIR: dist });
    env = { ...t.backend.env, PORT: '8080', PUBLIC_URL: '' };
  });
  afterAll(async () => {
    await t.close();
    await rm(dist, { recursive: true, force: true });
  });

  it("should show the spec's nine, with their own pictures, while no race of the catalogue is ahead", async () => {
    const html = await htmlOf(homePage());
    expect(cardNames(html)).toEqual(RACES.map((r) => r.name));
    for (const race of RACES) expect(html).toContain(`src="${race.image}" alt="${race.imageAlt}"`);
    expect(html).toContain('<footer>end</footer>');
  });

  it('should show a race added with add-race, its name escaped, once the rendering in force is older than the cache time', async () => {
    const home = homePage(30_000);
    expect(cardNames(await htmlOf(home))).toHaveLength(9);
    await addRace('hostile-2099', HOSTILE, '2099-05-03');
    // The rendering in force stays for its 30 s: every request of that time costs nothing.
    clock += 29_000;
    expect(cardNames(await htmlOf(home))).toEqual(RACES.map((r) => r.name));
    clock += 1_000;
    const html = await htmlOf(home);
    expect(cardNames(html)).toEqual([HOSTILE]);
    // The markup around the name is intact: no tag of the name's reached the page.
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;Ünïcode&quot; &#39;quoted&#39; &lt;/h3&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(html).toContain('<time datetime="2099-05-03">May 3, 2099</time>');
    // No picture given: the generic one, said to show nothing the name does not.
    expect(html).toContain('src="/races/generic.svg" alt=""');
    // One race: its card once, the carousel still (too few to fill a view and loop).
    expect(html.match(/class="race-card"/g)).toHaveLength(1);
    expect(html).toContain('<section class="carousel carousel--still" tabindex="0" aria-label="Upcoming races">');
    expect(html.match(/<ul class="race-list"/g)).toHaveLength(1);
  });

  it('should show the next nine races by start and drop a race once it is over, eight hours after its start', async () => {
    // Sydney's start, 06:00 on May 4 there, is 20:00 UTC on May 3: after the Chicago race's 12:30 UTC.
    await addRace('sydney-2099', 'Sydney Marathon', '2099-05-04', '06:00', 'Australia/Sydney');
    for (let i = 1; i <= 9; i++) await addRace(`later-${i}`, `Later Marathon ${i}`, `2099-06-${String(i).padStart(2, '0')}`);
    const html = await htmlOf(homePage());
    expect(cardNames(html)).toEqual([HOSTILE, 'Sydney Marathon', ...Array.from({ length: 7 }, (_, i) => `Later Marathon ${i + 1}`)]);
    // Enough to fill a view: the list twice in a row, moving, the copy for the eyes only.
    expect(html).toContain('<section class="carousel" tabindex="0" aria-label="Upcoming races">');
    expect(html.match(/<ul class="race-list"/g)).toHaveLength(2);
    expect(html.match(/<ul class="race-list" aria-hidden="true">/g)).toHaveLength(1);

    // Chicago, 07:30 CDT on May 3 is 12:30 UTC; live until 20:30 UTC, then over.
    clock = Date.parse('2099-05-03T20:29:59Z');
    expect(cardNames(await htmlOf(homePage()))[0]).toBe(HOSTILE);
    clock = Date.parse('2099-05-03T20:30:00Z');
    expect(cardNames(await htmlOf(homePage()))).toEqual(['Sydney Marathon', ...Array.from({ length: 8 }, (_, i) => `Later Marathon ${i + 1}`)]);
    clock = Date.now();
  });

  it('should say the app is coming, with no link, while no App Store address is set', async () => {
    const html = await htmlOf(homePage());
    expect(html).toContain('<p class="app-badge app-badge--soon" id="app">');
    expect(html).toContain('Coming soon to the</span> <span class="app-badge__big">App Store</span>');
    expect(html).not.toContain('<a ');
    expect(html).not.toContain('apps.apple.com');
  });

  it('should link the badge to the App Store address the server is given, escaped', async () => {
    const url = 'https://apps.apple.com/app/milenotes/id1234567890?l=en&mt=8';
    const home = createHomePage({ distDir: dist, races: t.app.repo.races, cacheMs: MINUTE, appStoreUrl: url, log: t.app.log, now: () => clock });
    const html = await htmlOf(home);
    expect(html).toContain(
      '<a class="app-badge" id="app" href="https://apps.apple.com/app/milenotes/id1234567890?l=en&amp;mt=8"><img src="/badges/app-store.svg" alt="Download on the App Store"',
    );
    expect(html).not.toContain('Coming soon');
    // The rest of the page as built, the cards as the catalogue has them.
    expect(cardNames(html)).toEqual(cardNames(await htmlOf(homePage())));
    expect(html).toContain('<footer>end</footer>');
  });

  it('should keep serving the last list, not an error, while the catalogue cannot be read', async () => {
    let failing = false;
    const races = {
      notOver: (now: number, limit: number) => (failing ? Promise.reject(new Error('connection refused')) : t.app.repo.races.notOver(now, limit)),
    };
    const home = createHomePage({ distDir: dist, races, cacheMs: 1_000, log: t.app.log, now: () => clock });
    const before = cardNames((await home.page()).bodies.identity.toString());
    failing = true;
    clock += 2_000;
    expect(cardNames((await home.page()).bodies.identity.toString())).toEqual(before);
    clock = Date.now();
  });

  it('should send the page compressed as asked, with a strong ETag per encoding, no-cache, and 304 for the copy the client has', async () => {
    for (const [acceptEncoding, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['', undefined],
      ['br;q=0, gzip', 'gzip'],
    ] as const) {
      const res = await t.app.inject({ url: '/', headers: { 'accept-encoding': acceptEncoding } });
      expect(res.statusCode, acceptEncoding).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers.vary).toContain('Accept-Encoding');
      const html = (encoding === 'br' ? brotliDecompressSync(res.rawPayload) : encoding === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload).toString();
      expect(html).toContain('<h1>MileNotes</h1>');
      expect(cardNames(html)).toContain(HOSTILE);
      const etag = String(res.headers.etag);
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await t.app.inject({ url: '/', headers: { 'accept-encoding': acceptEncoding, 'if-none-match': etag } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
    }
    const tags = await Promise.all(
      ['br', 'gzip', 'identity'].map(async (e) => (await t.app.inject({ url: '/', headers: { 'accept-encoding': e } })).headers.etag),
    );
    expect(new Set(tags).size).toBe(3);
  });

  it('should choose brotli, then gzip, then none from Accept-Encoding', () => {
    expect(encodingFor('gzip, deflate, br, zstd')).toBe('br');
    expect(encodingFor('gzip;q=1.0, br;q=0')).toBe('gzip');
    expect(encodingFor('*')).toBe('gzip');
    expect(encodingFor('identity')).toBe('identity');
    expect(encodingFor(undefined)).toBe('identity');
  });

  it('should cost little per request: a rendering is made once for the cache time, whatever the number of requests', async () => {
    let reads = 0;
    const races = { notOver: (now: number, limit: number) => (reads++, t.app.repo.races.notOver(now, limit)) };
    const home = createHomePage({ distDir: dist, races, cacheMs: MINUTE, log: t.app.log, now: () => clock });
    await Promise.all(Array.from({ length: 50 }, () => home.page()));
    expect(reads).toBe(1);
  });
});

describe('a home page built before the cards had their markers', () => {
  it('should still be served, as built, with no-cache', async () => {
    const dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>home</title><h1>An older build</h1>');
    const t = await startTestApp('sqlite', { DIST_DIR: dist });
    try {
      const res = await t.app.inject({ url: '/' });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<h1>An older build</h1>');
      expect(res.headers['cache-control']).toBe('no-cache');
    } finally {
      await t.close();
      await rm(dist, { recursive: true, force: true });
    }
  });
});

describe('the home page of an app on a compressed clock (the demo’s server)', () => {
  it('should list the races not over on the app’s clock, not on the real one', async () => {
    const dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    await writeFile(path.join(dist, 'index.html'), BUILT_HOME);
    // The app's clock reads a June morning of 2099: the May race is over on it, the September one ahead.
    const clock = compressedClock({ rate: 60, origin: Date.now(), startsAt: Date.parse('2099-06-01T12:00:00Z') });
    const t = await startTestApp('sqlite', { DIST_DIR: dist }, { clock });
    try {
      for (const [id, name, date] of [
        ['may-2099', 'May Marathon', '2099-05-03'],
        ['september-2099', 'September Marathon', '2099-09-06'],
      ] as const) {
        expect(await t.app.repo.races.add({ id, name, date, start: '07:30', timezone: 'America/Chicago', units: ['mi'] })).toBe(true);
      }
      const res = await t.app.inject({ url: '/', headers: { 'accept-encoding': 'identity' } });
      expect(res.statusCode).toBe(200);
      expect(cardNames(res.body)).toEqual(['September Marathon']);
    } finally {
      await t.close();
      await rm(dist, { recursive: true, force: true });
    }
  });
});

describe('the home page of a server given APP_STORE_URL', () => {
  it('should link the badge there', async () => {
    const dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    await writeFile(path.join(dist, 'index.html'), BUILT_HOME);
    const url = 'https://apps.apple.com/us/app/milenotes/id1234567890';
    const t = await startTestApp('sqlite', { DIST_DIR: dist, APP_STORE_URL: url });
    try {
      const res = await t.app.inject({ url: '/', headers: { 'accept-encoding': 'identity' } });
      expect(res.body).toContain(`<a class="app-badge" id="app" href="${url}">`);
    } finally {
      await t.close();
      await rm(dist, { recursive: true, force: true });
    }
  });
});
