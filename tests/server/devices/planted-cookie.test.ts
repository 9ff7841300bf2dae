/**
 * The cookie is a key only this server issues. A value planted in a friend's browser
 * (a sibling subdomain's cookie, or one injected over plain HTTP) or simply invented is never
 * adopted: the phone gets a new cookie, and the planted value lists none of the friend's links and
 * subscribes nothing. Over HTTPS, directly or behind TRUST_PROXY, the cookie is a `__Host-` one that
 * no other host or path can set; the first, adoptable cookie is never read again, and expired.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_COOKIE, LOCAL_DEVICE_COOKIE, OLD_DEVICE_COOKIE } from '../../../server/devices/cookie.js';
import type { HomeScreenLinks } from '../../../contract/homeScreenApi.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { makeLink } from '../support/uploads.js';
import { deviceCookieOf, ISSUED } from './cookies.js';

/** What an attacker plants: well-formed as this server's are (id, dot, 43 characters of "MAC"), or as the first cookie's were. */
const invented = () => [`${randomBytes(24).toString('base64url')}.${randomBytes(32).toString('base64url')}`, randomBytes(24).toString('base64url')];

describe.each(BACKENDS)('a device cookie this server never issued, on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());

  const listWith = async (cookie: string) => (await t.app.inject({ url: '/api/device/links', headers: { cookie } })).json<HomeScreenLinks>().links;

  it("should never be adopted: the friend gets a new cookie, and the planted value lists none of the friend's links", async () => {
    const token = await makeLink(t.app.repo, 'chicago-2025', 'Alex');
    for (const planted of invented()) {
      for (const name of [LOCAL_DEVICE_COOKIE, OLD_DEVICE_COOKIE]) {
        const cookie = `${name}=${planted}`;
        const opened = await t.app.inject({ url: `/api/r/${token}`, headers: { cookie } });
        expect(opened.statusCode).toBe(200);
        const given = deviceCookieOf(opened.headers['set-cookie']);
        expect(given?.value).toMatch(ISSUED);
        expect(given?.value).not.toBe(planted);
        expect(await listWith(cookie)).toEqual([]);
        // The friend's own, new cookie lists the link.
        expect((await listWith(`${LOCAL_DEVICE_COOKIE}=${given!.value}`)).map((l) => l.runner.displayName)).toEqual(['Alex']);
      }
    }
  });

  it('should not take a cookie whose MAC is off by one character', async () => {
    const token = await makeLink(t.app.repo);
    const real = deviceCookieOf((await t.app.inject({ url: `/api/r/${token}` })).headers['set-cookie'])!.value;
    const last = real.at(-2) === 'A' ? 'B' : 'A';
    const tampered = `${real.slice(0, -2)}${last}${real.at(-1)}`;
    expect(await listWith(`${LOCAL_DEVICE_COOKIE}=${tampered}`)).toEqual([]);
    expect(await listWith(`${LOCAL_DEVICE_COOKIE}=${real}`)).toHaveLength(1);
  });

  it('should read no cookie of another name: an HTTPS request hears only __Host-, a plain one to this machine only its own', async () => {
    const token = await makeLink(t.app.repo, 'chicago-2025', 'Jo');
    const local = deviceCookieOf((await t.app.inject({ url: `/api/r/${token}` })).headers['set-cookie'])!.value;
    // The same value under the other name is not this request's cookie.
    const overHttps = await t.app.inject({ url: '/api/device/links', headers: { cookie: `${LOCAL_DEVICE_COOKIE}=${local}`, 'x-forwarded-proto': 'https' } });
    expect(overHttps.json<HomeScreenLinks>().links).toEqual([]);
    const asHost = await t.app.inject({ url: '/api/device/links', headers: { cookie: `${DEVICE_COOKIE}=${local}`, 'x-forwarded-proto': 'https' } });
    expect(asHost.json<HomeScreenLinks>().links.map((l) => l.runner.displayName)).toEqual(['Jo']);
  });

  it('should set the __Host- cookie behind TRUST_PROXY when the proxy says https, and expire the first cookie', async () => {
    const token = await makeLink(t.app.repo);
    const res = await t.app.inject({ url: `/api/r/${token}`, headers: { 'x-forwarded-proto': 'https', cookie: `${OLD_DEVICE_COOKIE}=${invented()[1]}` } });
    expect(deviceCookieOf(res.headers['set-cookie'])).toBeUndefined();
    const secure = deviceCookieOf(res.headers['set-cookie'], DEVICE_COOKIE);
    expect(secure?.value).toMatch(ISSUED);
    expect(secure?.attributes).toEqual(expect.arrayContaining(['secure', 'path=/', 'httponly', 'samesite=lax']));
    expect(secure?.attributes.some((a) => a.startsWith('domain'))).toBe(false);
    const old = deviceCookieOf(res.headers['set-cookie'], OLD_DEVICE_COOKIE);
    expect(old?.value).toBe('');
    expect(old?.attributes).toEqual(expect.arrayContaining(['path=/api']));
    expect(old?.attributes.some((a) => a.startsWith('expires=thu, 01 jan 1970') || a === 'max-age=0')).toBe(true);
  });
  it('should expire the old cookie whenever a phone sends it, on any request of the API, not only when a new cookie is set', async () => {
    const old = `${OLD_DEVICE_COOKIE}=${invented()[1]}`;
    for (const url of ['/api/device/links', '/api/races', `/api/r/${await makeLink(t.app.repo)}/push`]) {
      const res = await t.app.inject({ url, headers: { cookie: old } });
      const expired = deviceCookieOf(res.headers['set-cookie'], OLD_DEVICE_COOKIE);
      expect({
        url,
        value: expired?.value,
        path: expired?.attributes.includes('path=/api'),
        gone: expired?.attributes.some((a) => a.startsWith('expires=thu, 01 jan 1970') || a === 'max-age=0'),
      }).toEqual({
        url,
        value: '',
        path: true,
        gone: true,
      });
    }
  });
});

describe('X-Forwarded-Proto from a proxy nobody trusts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('should not make the cookie a __Host- one: to this machine over plain HTTP it stays the local one', async () => {
    const token = await makeLink(t.app.repo);
    const res = await t.app.inject({ url: `/api/r/${token}`, headers: { 'x-forwarded-proto': 'https' } });
    expect(deviceCookieOf(res.headers['set-cookie'], DEVICE_COOKIE)).toBeUndefined();
    expect(deviceCookieOf(res.headers['set-cookie'])?.value).toMatch(ISSUED);
  });
});
