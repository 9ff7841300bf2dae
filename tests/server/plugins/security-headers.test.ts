import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_ONLY_HEADERS } from '../../../server/plugins/security.js';
import { startTestApp, type TestApp } from '../support/app.js';

// Document-only headers (the CSP first) go on what may be rendered as a page and on the worker
// script, and nowhere else: a subresource keeps nosniff and its resource policy.
describe('security headers by what a response is', () => {
  let t: TestApp;
  let dist: string;
  beforeAll(async () => {
    dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    await mkdir(path.join(dist, 'assets'));
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>home</title>');
    await writeFile(path.join(dist, 'r.html'), '<!doctype html><title>record</title>');
    await writeFile(path.join(dist, 'sw.js'), 'self.addEventListener("fetch", () => {});');
    await writeFile(path.join(dist, 'assets', 'recorder-abc.js'), 'export const a = 1;');
    await writeFile(path.join(dist, 'assets', 'recorderApp-abc.css'), 'p{color:red}');
    await writeFile(path.join(dist, 'assets', 'icon-abc.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    await writeFile(path.join(dist, 'assets', 'font-abc.woff2'), 'wOF2');
    await writeFile(path.join(dist, 'assets', 'mark-abc.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    t = await startTestApp('sqlite', { DIST_DIR: dist });
  });
  afterAll(async () => {
    await t.close();
    await rm(dist, { recursive: true, force: true });
  });

  for (const file of ['recorder-abc.js', 'recorderApp-abc.css', 'icon-abc.png', 'font-abc.woff2']) {
    it(`should send /assets/${file} without any document-only header, with nosniff and its resource policy`, async () => {
      for (const encoding of ['br', 'identity']) {
        const res = await t.app.inject({ url: `/assets/${file}`, headers: { 'accept-encoding': encoding } });
        expect(res.statusCode).toBe(200);
        for (const name of DOCUMENT_ONLY_HEADERS) expect(res.headers, name).not.toHaveProperty(name);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
      }
    });
  }

  it('should keep the CSP on an SVG, which runs script when opened on its own', async () => {
    const res = await t.app.inject({ url: '/assets/mark-abc.svg' });
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });

  it('should keep the CSP on /sw.js, the policy the worker runs under, also asked with a query', async () => {
    for (const url of ['/sw.js', '/sw.js?v=2']) {
      const res = await t.app.inject({ url });
      expect(res.headers['content-type']).toMatch(/javascript/);
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    }
  });

  for (const url of ['/', '/r/some-token', '/no-such-page', '/api/health']) {
    it(`should keep helmet's whole set on ${url}`, async () => {
      const res = await t.app.inject({ url, headers: { accept: 'text/html' } });
      for (const name of DOCUMENT_ONLY_HEADERS) expect(res.headers, name).toHaveProperty(name);
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });
  }
});
