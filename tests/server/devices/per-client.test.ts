/**
 * A client is an IPv4 address or an IPv6 /64 (server/http/client-key.ts), for the recorder's and
 * the device routes' per-minute limits as for the note limits: a phone holds a whole /64 and changes
 * its address inside it at will, so thirty addresses of one /64 share one budget. And a client is
 * given at most DEVICE_COOKIES_PER_HOUR new device cookies: past it the link still opens, without
 * one (issue 40).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config/index.js';
import { LOCAL_DEVICE_COOKIE } from '../../../server/devices/cookie.js';
import { createIssueLimit, ISSUE_WINDOW_MS } from '../../../server/devices/issue-limit.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { makeLink } from '../support/uploads.js';
import { deviceCookieOf, ISSUED } from './cookies.js';

const PER_MINUTE = 10;
const COOKIES_PER_HOUR = 3;

describe.each(BACKENDS)('per-client limits on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { TRUST_PROXY: 'loopback', RATE_LIMIT_PER_MINUTE: String(PER_MINUTE), DEVICE_COOKIES_PER_HOUR: String(COOKIES_PER_HOUR) });
  });
  afterAll(() => t.close());

  /** Thirty addresses of the /64 `prefix` (four groups), each asking `url` once. */
  async function thirtyOf(prefix: string, url: string): Promise<number[]> {
    const statuses = [];
    for (let i = 1; i <= 30; i++)
      statuses.push(
        (await t.app.inject({ url, headers: { 'x-forwarded-for': `${prefix}:${i.toString(16)}:${((i * 7919) % 0xffff).toString(16)}::${i}` } })).statusCode,
      );
    return statuses;
  }
  const expected = [...Array(PER_MINUTE).fill(200), ...Array(30 - PER_MINUTE).fill(429)];

  it("should give thirty addresses of one /64 one budget on the recorder's routes, and another /64 its own", async () => {
    const token = await makeLink(t.app.repo);
    expect(await thirtyOf('2001:db8:40:1', `/api/r/${token}`)).toEqual(expected);
    expect((await t.app.inject({ url: `/api/r/${token}`, headers: { 'x-forwarded-for': '2001:db8:40:2::1' } })).statusCode).toBe(200);
  });

  it('should give thirty addresses of one /64 one budget on the device routes, and another /64 its own', async () => {
    expect(await thirtyOf('2001:db8:40:3', '/api/device/links')).toEqual(expected);
    expect((await t.app.inject({ url: '/api/device/links', headers: { 'x-forwarded-for': '2001:db8:40:4::1' } })).statusCode).toBe(200);
  });

  it('should give a client DEVICE_COOKIES_PER_HOUR new cookies, then open the link without one; its phones keep theirs', async () => {
    for (const [client, sibling, other] of [
      ['2001:db8:40:5::1', '2001:db8:40:5:ffff::9', '2001:db8:40:6::1'],
      ['203.0.113.7', '203.0.113.7', '203.0.113.8'],
    ] as const) {
      const token = await makeLink(t.app.repo, 'chicago-2025', 'Alex');
      const given = [];
      for (let i = 0; i < COOKIES_PER_HOUR; i++) {
        const res = await t.app.inject({ url: `/api/r/${token}`, headers: { 'x-forwarded-for': client } });
        expect(res.statusCode).toBe(200);
        given.push(deviceCookieOf(res.headers['set-cookie'])?.value);
      }
      expect(given.every((v) => v !== undefined && ISSUED.test(v))).toBe(true);
      const past = await t.app.inject({ url: `/api/r/${token}`, headers: { 'x-forwarded-for': sibling } });
      expect(past.statusCode).toBe(200);
      expect(past.json()).toMatchObject({ runner: { displayName: 'Alex' } });
      expect(deviceCookieOf(past.headers['set-cookie'])).toBeUndefined();
      // A phone that has its cookie is renewed; another client is given one.
      const kept = await t.app.inject({ url: `/api/r/${token}`, headers: { 'x-forwarded-for': client, cookie: `${LOCAL_DEVICE_COOKIE}=${given[0]}` } });
      expect(deviceCookieOf(kept.headers['set-cookie'])?.value).toBe(given[0]);
      expect(deviceCookieOf((await t.app.inject({ url: `/api/r/${token}`, headers: { 'x-forwarded-for': other } })).headers['set-cookie'])?.value).toMatch(
        ISSUED,
      );
    }
  });
});

describe('the new-cookie budget', () => {
  it('should be 300 a client an hour unless DEVICE_COOKIES_PER_HOUR says, and refuse a budget that is not a positive whole number', () => {
    expect(loadConfig({}).deviceCookiesPerHour).toBe(300);
    expect(loadConfig({ DEVICE_COOKIES_PER_HOUR: '12' }).deviceCookiesPerHour).toBe(12);
    expect(() => loadConfig({ DEVICE_COOKIES_PER_HOUR: '0' })).toThrow(/DEVICE_COOKIES_PER_HOUR must be a positive whole number/);
  });

  it('should start again after an hour, and count a /64 as one client', () => {
    const limit = createIssueLimit(2);
    expect([limit.take('2001:db8::1', 0), limit.take('2001:db8::2', 1), limit.take('2001:db8::3', 2)]).toEqual([true, true, false]);
    expect(limit.take('2001:db8::4', ISSUE_WINDOW_MS)).toBe(true);
  });
});
