import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

const STYLE = '.status-screen{display:flex}';
const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const directive = (name: string) => (csp: unknown) =>
  String(csp)
    .split(';')
    .map((d) => d.trim())
    .find((d) => d.startsWith(`${name} `));
const styleSrc = directive('style-src');
const scriptSrc = directive('script-src');

describe("the Content-Security-Policy for the shells' inline stylesheet and scripts", () => {
  let t: TestApp | undefined;
  let dist: string | undefined;
  afterEach(async () => {
    await t?.close();
    if (dist) await rm(dist, { recursive: true, force: true });
  });

  it('should allow the <style> the built shell carries by its hash, and no other inline style', async () => {
    dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>home</title><link rel="stylesheet" href="/assets/a.css">');
    await writeFile(path.join(dist, 'r.html'), `<!doctype html><title>record</title><style>${STYLE}</style><p>Loading...</p>`);
    t = await startTestApp('sqlite', { DIST_DIR: dist });
    const res = await t.app.inject({ url: '/r/some-token' });
    expect(res.statusCode).toBe(200);
    expect(styleSrc(res.headers['content-security-policy'])).toBe(`style-src 'self' ${hashOf(STYLE)}`);
  });

  it('should allow only our own stylesheets when the site is not built', async () => {
    dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    t = await startTestApp('sqlite', { DIST_DIR: dist });
    const res = await t.app.inject({ url: '/api/health' });
    expect(styleSrc(res.headers['content-security-policy'])).toBe("style-src 'self'");
  });

  it("should allow the inline scripts the built pages carry (r.html's first screen) by their hash, and no data block or other script", async () => {
    const first = '(function(){document.title="first"})();';
    dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>home</title>');
    await writeFile(
      path.join(dist, 'r.html'),
      `<!doctype html><title>record</title><div id="root"></div><script>${first}</script><script type="application/json" id="screen-files">[]</script>`,
    );
    t = await startTestApp('sqlite', { DIST_DIR: dist });
    const sources = scriptSrc((await t.app.inject({ url: '/r/some-token' })).headers['content-security-policy'])!.split(' ');
    expect(sources).toContain(hashOf(first));
    expect(sources).not.toContain(hashOf('[]'));
    expect(sources.filter((s) => s.startsWith("'sha256-"))).toHaveLength(3);
  });
});
