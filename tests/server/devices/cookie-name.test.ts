/**
 * The cookie's name follows PUBLIC_URL. A site whose PUBLIC_URL is https is always reached over
 * HTTPS by phones, whatever its proxy tells us: behind a proxy that reaches the server as
 * 127.0.0.1 and sends no X-Forwarded-Proto (nginx's defaults), or with TRUST_PROXY unset, the
 * cookie is still the `__Host-` one, and the local name (not Secure, no prefix, so a sibling
 * subdomain can plant it) is never read: a planted value of the attacker's own hands the victim's
 * links to nobody. A trusted proxy's request without X-Forwarded-Proto is said once in the log.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { DEVICE_COOKIE, LOCAL_DEVICE_COOKIE } from '../../../server/devices/cookie.js';
import type { HomeScreenLinks } from '../../../contract/homeScreenApi.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { makeLink } from '../support/uploads.js';
import { deviceCookieOf, ISSUED } from './cookies.js';

const PUBLIC_URL = 'https://notes.example.com';
/** What nginx's defaults send: the upstream's address as Host, no X-Forwarded-*. */
const BEHIND_NGINX = { host: '127.0.0.1:8080' };

describe.each(BACKENDS)('the device cookie of an https PUBLIC_URL, on %s', (kind) => {
  for (const trustProxy of ['', 'loopback']) {
    describe(`TRUST_PROXY=${trustProxy || '(unset)'}`, () => {
      let t: TestApp;
      beforeAll(async () => {
        t = await startTestApp(kind, { PUBLIC_URL, TRUST_PROXY: trustProxy });
      });
      afterAll(() => t.close());

      /** The value a response sets, by whichever name. */
      const cookieValueOf = (setCookie: string | string[] | undefined) => (deviceCookieOf(setCookie, DEVICE_COOKIE) ?? deviceCookieOf(setCookie))?.value;
      const tokensListedFor = async (value: string) =>
        (await t.app.inject({ url: '/api/device/links', headers: { ...BEHIND_NGINX, cookie: `${DEVICE_COOKIE}=${value}; ${LOCAL_DEVICE_COOKIE}=${value}` } }))
          .json<HomeScreenLinks>()
          .links.map((l) => l.token);

      it("should set only the __Host- cookie and never read the local one, so a value planted under the local name hands the victim's links to nobody", async () => {
        // The attacker's own, real cookie, issued to them for a link of theirs.
        const attacker = cookieValueOf(
          (await t.app.inject({ url: `/api/r/${await makeLink(t.app.repo, 'chicago-2025', 'Kim')}`, headers: BEHIND_NGINX })).headers['set-cookie'],
        )!;
        expect(attacker).toMatch(ISSUED);
        // Planted in the victim's browser under the local name (a sibling subdomain can set it: no __Host- prefix).
        const victimLink = await makeLink(t.app.repo, 'chicago-2025', 'Alex');
        const opened = await t.app.inject({ url: `/api/r/${victimLink}`, headers: { ...BEHIND_NGINX, cookie: `${LOCAL_DEVICE_COOKIE}=${attacker}` } });
        expect(opened.statusCode).toBe(200);
        const secure = deviceCookieOf(opened.headers['set-cookie'], DEVICE_COOKIE);
        expect({
          local: deviceCookieOf(opened.headers['set-cookie'])?.value,
          secure: secure && { fresh: secure.value !== attacker && ISSUED.test(secure.value), secure: secure.attributes.includes('secure') },
          attackerSees: (await tokensListedFor(attacker)).includes(victimLink),
        }).toEqual({ local: undefined, secure: { fresh: true, secure: true }, attackerSees: false });
        expect(await tokensListedFor(secure!.value)).toEqual([victimLink]);
      });
    });
  }
});

describe('a trusted proxy without X-Forwarded-Proto', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { PUBLIC_URL, TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());

  it('should be said once in the log, with what to set', async () => {
    const warn = vi.spyOn(t.app.log, 'warn');
    onTestFinished(() => warn.mockRestore());
    const said = () => warn.mock.calls.filter((call) => JSON.stringify(call).includes('X-Forwarded-Proto'));
    await t.app.inject({ url: '/api/races', headers: { 'x-forwarded-proto': 'https' } });
    expect(said()).toEqual([]);
    for (let i = 0; i < 3; i++) await t.app.inject({ url: '/api/races', headers: BEHIND_NGINX });
    expect(said()).toHaveLength(1);
    expect(JSON.stringify(said()[0])).toMatch(/X-Forwarded-Proto/);
  });
});

describe('a proxy nobody trusts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { PUBLIC_URL });
  });
  afterAll(() => t.close());

  it('should not be said in the log: without TRUST_PROXY no peer is a proxy of ours', async () => {
    const warn = vi.spyOn(t.app.log, 'warn');
    onTestFinished(() => warn.mockRestore());
    for (let i = 0; i < 2; i++) await t.app.inject({ url: '/api/races', headers: BEHIND_NGINX });
    expect(warn.mock.calls.filter((call) => JSON.stringify(call).includes('X-Forwarded-Proto'))).toEqual([]);
  });
});
