/**
 * A client is an IPv4 address or an IPv6 /64 (server/http/client-key.ts), for the recorder's and
 * the device routes' per-minute limits as for the note limits: a phone holds a whole /64 and changes
 * its address inside it at will, so thirty addresses of one /64 share one budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { makeLink } from '../support/uploads.js';

const PER_MINUTE = 10;

describe.each(BACKENDS)('per-client limits on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { TRUST_PROXY: 'loopback', RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });
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
});
