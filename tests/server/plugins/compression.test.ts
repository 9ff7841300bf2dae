import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompress } from '../../../scripts/precompress.mjs';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { makeLink } from '../support/uploads.js';

/** A small built site, compressed by the build's own step: one file of each kind the site serves. */
const FILES: Record<string, { body: string; type: string | RegExp; cache: string }> = {
  '/': { body: `<!doctype html><title>home</title>${'<p>Voice notes for every mile.</p>'.repeat(60)}`, type: 'text/html; charset=utf-8', cache: 'no-cache' },
  '/assets/app-abc123.js': {
    body: `export const miles = [${'"mile", '.repeat(400)}];`,
    type: /^(text|application)\/javascript; charset=utf-8$/,
    cache: 'public, max-age=31536000, immutable',
  },
  '/assets/app-abc123.css': { body: '.hero { color: #0f3d3e; }\n'.repeat(100), type: 'text/css; charset=utf-8', cache: 'public, max-age=31536000, immutable' },
  '/icons/icon.svg': {
    body: `<svg xmlns="http://www.w3.org/2000/svg">${'<path d="M6 21V4m0 0h11l-2 4 2 4H6"/>'.repeat(50)}</svg>`,
    type: 'image/svg+xml',
    cache: 'public, max-age=3600',
  },
  '/manifest.webmanifest': {
    body: JSON.stringify({ name: 'MileNotes', icons: Array(30).fill({ src: '/icons/icon-192.png', sizes: '192x192' }) }),
    type: 'application/manifest+json',
    cache: 'public, max-age=3600',
  },
};
const FILE_OF: Record<string, string> = { '/': 'index.html' };

async function writeSite(dir: string): Promise<void> {
  for (const [url, { body }] of Object.entries(FILES)) {
    const file = path.join(dir, FILE_OF[url] ?? url.slice(1));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, body);
  }
  await writeFile(path.join(dir, 'r.html'), FILES['/']!.body);
  await precompress(dir);
}

const DECODE: Record<string, (b: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync };

describe.each(BACKENDS)('compressed responses on %s', (kind) => {
  let t: TestApp;
  let dist: string;
  beforeAll(async () => {
    dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    await writeSite(dist);
    t = await startTestApp(kind, { DIST_DIR: dist });
  });
  afterAll(async () => {
    await t.close();
    await rm(dist, { recursive: true, force: true });
  });

  for (const [url, file] of Object.entries(FILES)) {
    for (const encoding of ['br', 'gzip'] as const) {
      it(`should send ${url} as ${encoding} with Vary, a strong ETag and its cache policy`, async () => {
        const res = await t.app.inject({ url, headers: { 'accept-encoding': `${encoding}` } });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-encoding']).toBe(encoding);
        expect(res.headers['content-type']).toMatch(file.type);
        expect(res.headers.vary).toMatch(/accept-encoding/i);
        expect(res.headers['cache-control']).toBe(file.cache);
        expect(res.headers.etag).toMatch(/^"[^"]+"$/);
        expect(res.rawPayload.length).toBeLessThan(file.body.length / 2);
        expect(DECODE[encoding]!(res.rawPayload).toString()).toBe(file.body);

        const again = await t.app.inject({ url, headers: { 'accept-encoding': encoding, 'if-none-match': res.headers.etag as string } });
        expect(again.statusCode).toBe(304);
      });
    }

    it(`should send ${url} uncompressed to a client that does not ask, under another ETag`, async () => {
      const res = await t.app.inject({ url, headers: { 'accept-encoding': '' } });
      const br = await t.app.inject({ url, headers: { 'accept-encoding': 'br' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.body).toBe(file.body);
      expect(res.headers.etag).toMatch(/^"[^"]+"$/);
      expect(res.headers.etag).not.toBe(br.headers.etag);
    });
  }

  it('should prefer brotli when the client takes both, as browsers do', async () => {
    const res = await t.app.inject({ url: '/assets/app-abc123.js', headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect(res.headers['content-encoding']).toBe('br');
  });

  it('should compress the /r/:token shell like the other pages', async () => {
    const res = await t.app.inject({ url: '/r/some-token', headers: { 'accept-encoding': 'br' } });
    expect(res.headers['content-encoding']).toBe('br');
    // The shell with the link's data in it (here, that the link is unknown), as sent uncompressed.
    const plain = await t.app.inject({ url: '/r/some-token', headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.startsWith(FILES['/']!.body)).toBe(true);
    expect(plain.body).toContain('id="link-data"');
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(plain.body);
  });

  it('should compress API JSON above the threshold and leave a small answer as it is', async () => {
    const token = await makeLink(t.app.repo, 'berlin-2025');
    const link = await t.app.inject({ url: `/api/r/${token}`, headers: { 'accept-encoding': 'gzip, br' } });
    expect(link.statusCode).toBe(200);
    expect(link.headers['content-encoding']).toBe('br');
    expect(link.headers.vary).toMatch(/accept-encoding/i);
    expect(link.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(brotliDecompressSync(link.rawPayload).toString()).race.id).toBe('berlin-2025');

    const plain = await t.app.inject({ url: `/api/r/${token}` });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.json().race.id).toBe('berlin-2025');

    const missing = await t.app.inject({ url: `/api/r/${'A'.repeat(32)}`, headers: { 'accept-encoding': 'br' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
  });
});
