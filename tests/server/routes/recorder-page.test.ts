/**
 * /r/:token's HTML with the link's data in it: what GET /api/r/:token answers, as a data
 * block that no runner's name can break out of, `no-store`; the phone remembered as the API does;
 * a revoked, unknown or malformed link carries the API's 404; over the limit, the shell as it is.
 * With the build's renderer, a live link's first screen drawn into it, in the language asked for.
 */
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_DEVICE_COOKIE as DEVICE_COOKIE } from '../../../server/devices/cookie.js';
import { linkIdOf } from '../../../server/links.js';
import { LINK_DATA_ID, type LinkData } from '../../../contract/linkData.js';
import { RECORDER_RENDERER } from '../../../contract/recorderPage.js';
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

describe("GET /r/:token with the build's first screen", () => {
  const MARKED =
    '<!doctype html><html lang="en"><head><title>Record a voice note</title></head><body><div id="root"><!--screen--><p>Loading...</p><!--/screen--></div><script>/*first screen*/</script></body></html>';
  /** A stand-in for the build's renderer (src/entry-recorder.tsx): what it was asked is in what it draws. */
  const renderer = (version: string) => `export function renderRecorderPage({ token, link, acceptLanguage }) {
  if (link.runner.displayName === 'Broken') throw new Error('cannot draw this one');
  const lang = (acceptLanguage ?? '').startsWith('de') ? 'de' : 'en';
  return { lang, title: lang === 'de' ? 'Aufnehmen <&>' : 'Record', screen: '<main data-token="' + token + '">' + link.runner.displayName + ' ${version}</main>', templates: '<template id="panel"></template>' };
}`;
  let t: TestApp;
  let dist: string;
  beforeAll(async () => {
    dist = await mkdtemp(path.join(os.tmpdir(), 'milenotes-dist-'));
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>home</title>');
    await writeFile(path.join(dist, 'r.html'), MARKED);
    await mkdir(path.join(dist, '.server'));
    await writeFile(path.join(dist, RECORDER_RENDERER), renderer('v1'));
    t = await startTestApp('sqlite', { DIST_DIR: dist });
  });
  afterAll(async () => {
    await t.close();
    await rm(dist, { recursive: true, force: true });
  });

  it("should draw a live link's screen in place of the spinner, in the language asked for, the templates and the data after #root", async () => {
    const token = await makeLink(t.app.repo, 'chicago-2025', 'Alex');
    const res = await t.app.inject({ url: `/r/${token}`, headers: { ...BROWSER, 'accept-language': 'de-AT,de;q=0.9' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers.vary).toMatch(/Accept-Language/);
    expect(res.body.replace(BLOCK, '<data/>')).toBe(
      `<!doctype html><html lang="de"><head><title>Aufnehmen &lt;&amp;&gt;</title></head><body><div id="root"><main data-token="${token}">Alex v1</main></div><script>/*first screen*/</script><template id="panel"></template><data/>\n  </body></html>`,
    );
    expect(dataOf(res.body)).toMatchObject({ status: 200, body: { runner: { displayName: 'Alex' } } });
    const english = await t.app.inject({ url: `/r/${token}` });
    expect(english.body).toContain('<html lang="en"><head><title>Record</title>');
  });

  it('should never send the renderer itself', async () => {
    for (const url of [`/${RECORDER_RENDERER}`, '/.server/', '/%2Eserver/recorder.mjs']) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain('renderRecorderPage');
    }
  });

  it('should draw nothing for a link that is not there: the spinner, and the 404 for the page to say', async () => {
    const res = await t.app.inject({ url: `/r/${'A'.repeat(32)}` });
    expect(res.body).toContain('<div id="root"><p>Loading...</p></div>');
    expect(res.body).not.toContain('<main');
    expect(dataOf(res.body)?.status).toBe(404);
  });

  it('should send the shell with the data when the screen cannot be drawn, so React draws it', async () => {
    const token = await makeLink(t.app.repo, 'chicago-2025', 'Broken');
    const res = await t.app.inject({ url: `/r/${token}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<div id="root"><p>Loading...</p></div>');
    expect(dataOf(res.body)).toMatchObject({ status: 200, body: { runner: { displayName: 'Broken' } } });
  });

  it('should draw with a new build once it is there', async () => {
    const token = await makeLink(t.app.repo, 'chicago-2025', 'Alex');
    await writeFile(path.join(dist, RECORDER_RENDERER), renderer('v2'));
    // A modification time the file system can tell from the first build's.
    const later = new Date(Date.now() + 5_000);
    await utimes(path.join(dist, RECORDER_RENDERER), later, later);
    expect((await t.app.inject({ url: `/r/${token}` })).body).toContain('Alex v2</main>');
  });
});
