/**
 * /r/:token's HTML with the link's data in it (issue 43): what GET /api/r/:token answers, as a data
 * block that no runner's name can break out of, `no-store`; the phone remembered as the API does;
 * a revoked, unknown or malformed link carries the API's 404; over the limit, the shell as it is.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_DEVICE_COOKIE as DEVICE_COOKIE } from '../../../server/devices/cookie.js';
import { linkIdOf } from '../../../server/links.js';
import { LINK_DATA_ID, type LinkData } from '../../../src/shared/linkData.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { makeLink } from '../support/uploads.js';

const SHELL = '<!doctype html><html><head><title>record</title></head><body><div id="root">Loading...</div><script>/*worker*/</script></body></html>';
const BLOCK = new RegExp(`<script type="application/json" id="${LINK_DATA_ID}">([^<]*)</script>`);

/** The data block the page carries, read as the page reads it; undefined without one. */
const dataOf = (html: string): LinkData | undefined => {
  const match = BLOCK.exec(html);
  return match ? (JSON.parse(match[1]!) as LinkData) : undefined;
};
/** What a browser says when it opens a page (a link preview's fetch does not). */
const BROWSER = { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' };
const cookieOf = (setCookie: string | string[] | undefined) =>
  [setCookie ?? []]
    .flat()
    .find((c) => c.startsWith(`${DEVICE_COOKIE}=`))
    ?.split(';')[0];

describe.each(BACKENDS)("GET /r/:token (the recorder's page) on %s", (kind) => {
  let t: TestApp;
  let dist: string;
  beforeAll(async () => {
    dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>home</title>');
    await writeFile(path.join(dist, 'r.html'), SHELL);
    t = await startTestApp(kind, { DIST_DIR: dist, RATE_LIMIT_PER_MINUTE: '5' });
  });
  afterAll(async () => {
    await t.close();
    await rm(dist, { recursive: true, force: true });
  });

  it('should carry what GET /api/r/:token answers, never stored, and remember the link for the phone', async () => {
    const token = await makeLink(t.app.repo, 'chicago-2025', 'Alex');
    const res = await t.app.inject({ url: `/r/${token}`, headers: BROWSER });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    // The shell as built, with the block before </body>.
    expect(res.body.replace(BLOCK, '').replace(/\n\s*<\/body>/, '</body>')).toBe(SHELL);
    const data = dataOf(res.body)!;
    const api = (await t.app.inject({ url: `/api/r/${token}` })).json();
    expect(data.status).toBe(200);
    expect({ ...data.body, clock: undefined }).toEqual({ ...api, clock: undefined });
    expect(Math.abs(Date.parse((data.body as typeof api).clock.now) - Date.now())).toBeLessThan(5_000);

    const cookie = cookieOf(res.headers['set-cookie']);
    expect(cookie).toMatch(new RegExp(`^${DEVICE_COOKIE}=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
    const listed = (await t.app.inject({ url: '/api/device/links', headers: { cookie } })).json();
    expect(listed.links.map((l: { token: string }) => l.token)).toEqual([token]);
  });

  it("should carry the data to a link preview's fetch too, but remember no phone for it", async () => {
    const token = await makeLink(t.app.repo, 'chicago-2025', 'Alex');
    for (const res of [await t.app.inject({ url: `/r/${token}` }), await t.app.inject({ url: `/r/${token}`, headers: { 'sec-fetch-dest': 'empty' } })]) {
      expect(dataOf(res.body)).toMatchObject({ status: 200, body: { runner: { displayName: 'Alex' } } });
      expect(cookieOf(res.headers['set-cookie'])).toBeUndefined();
    }
    const head = await t.app.inject({ method: 'HEAD', url: `/r/${token}`, headers: BROWSER });
    expect(head.statusCode).toBe(200);
    expect(cookieOf(head.headers['set-cookie'])).toBeUndefined();
  });

  it("should keep a runner's name built to break out of the script element as data", async () => {
    const name = '</script><script>alert(1)</script>\u2028<!--&\u2029';
    const token = await makeLink(t.app.repo, 'chicago-2025', name);
    const { body } = await t.app.inject({ url: `/r/${token}` });
    expect(body).not.toContain('alert(1)</script>');
    expect(body).not.toMatch(/[\u2028\u2029]/);
    expect(body).not.toContain('<!--');
    // The one script the shell had, and the data block: nothing else opens a script.
    expect(body.match(/<script/g)).toHaveLength(2);
    expect(body.match(/<\/script>/g)).toHaveLength(2);
    expect(dataOf(body)).toMatchObject({ status: 200, body: { runner: { displayName: name } } });
  });

  it('should say a revoked, unknown or malformed link is not there, as the API does, and remember nothing', async () => {
    const revoked = await makeLink(t.app.repo);
    await t.app.repo.links.revoke(linkIdOf(revoked), new Date().toISOString());
    for (const token of [revoked, 'A'.repeat(32), 'not-a-token!']) {
      const res = await t.app.inject({ url: `/r/${encodeURIComponent(token)}`, headers: BROWSER });
      expect(res.statusCode, token).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(dataOf(res.body), token).toEqual({ status: 404, body: { error: 'link_not_found', message: expect.any(String) } });
      expect(cookieOf(res.headers['set-cookie']), token).toBeUndefined();
    }
    expect((await t.app.inject({ url: `/api/r/${revoked}` })).json().error).toBe('link_not_found');
  });

  it('should send the shell without the data past the limit per client and link, so the page asks the API', async () => {
    const token = await makeLink(t.app.repo);
    const pages = [];
    for (let i = 0; i < 6; i++) pages.push(await t.app.inject({ url: `/r/${token}`, remoteAddress: '192.0.2.7' }));
    expect(pages.map((p) => p.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(pages.map((p) => dataOf(p.body)?.status)).toEqual([200, 200, 200, 200, 200, undefined]);
    expect(pages[5]!.body).toBe(SHELL);
    // Another client is not held back.
    expect(dataOf((await t.app.inject({ url: `/r/${token}`, remoteAddress: '192.0.2.8' })).body)?.status).toBe(200);
  });
});
