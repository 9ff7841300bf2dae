import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markersFor } from '../../../contract/markers.js';
import { linkIdOf } from '../../../server/links.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { makeLink } from '../support/uploads.js';

describe.each(BACKENDS)('GET /api/r/:token on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(() => t.close());

  it('should return the runner, the race and its mile markers for a US race', async () => {
    const token = await makeLink(t.app.repo, 'chicago-2025', 'Alex Runner');
    const res = await t.app.inject({ url: `/api/r/${token}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      runner: { displayName: 'Alex Runner' },
      race: {
        id: 'chicago-2025',
        name: 'Chicago Marathon',
        date: '2025-10-12',
        units: ['mi'],
        timezone: 'America/Chicago',
        startsAt: '2025-10-12T12:30:00.000Z',
        when: 'past',
      },
      markers: markersFor(['mi']),
      clock: { now: expect.any(String), rate: 1 },
    });
    const ids = res.json().markers.map((m: { id: string }) => m.id);
    expect(ids[0]).toBe('mi-1');
    expect(ids).toContain('mi-26');
    expect(ids.at(-1)).toBe('finish');
    expect(ids.some((id: string) => id.startsWith('km-'))).toBe(false);
  });

  it('should tell the recorder the server’s time, on the real clock at rate 1', async () => {
    const token = await makeLink(t.app.repo);
    const before = Date.now();
    const { clock } = (await t.app.inject({ url: `/api/r/${token}` })).json();
    const after = Date.now();
    expect(clock.rate).toBe(1);
    expect(Date.parse(clock.now)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(clock.now)).toBeLessThanOrEqual(after);
  });

  it('should include kilometre markers for a race outside the US', async () => {
    const token = await makeLink(t.app.repo, 'berlin-2025');
    const body = (await t.app.inject({ url: `/api/r/${token}` })).json();
    expect(body.race.units).toEqual(['mi', 'km']);
    expect(body.markers.map((m: { id: string }) => m.id)).toContain('km-5');
  });

  it('should seed all nine races', async () => {
    for (const id of [
      'sydney-2025',
      'berlin-2025',
      'long-beach-2025',
      'chicago-2025',
      'marine-corps-2025',
      'raleigh-2025',
      'nyc-2025',
      'every-womans-2025',
      'philadelphia-2025',
    ]) {
      expect(await t.app.repo.races.get(id)).toMatchObject({ id });
    }
  });

  it('should answer 404 with a clear message for an unknown token', async () => {
    const res = await t.app.inject({ url: `/api/r/${'A'.repeat(32)}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'link_not_found', message: expect.stringMatching(/link doesn't work/) });
  });

  it('should answer 404 once the link is revoked', async () => {
    const token = await makeLink(t.app.repo);
    expect((await t.app.inject({ url: `/api/r/${token}` })).statusCode).toBe(200);
    await t.app.repo.links.revoke(linkIdOf(token), new Date().toISOString());
    const res = await t.app.inject({ url: `/api/r/${token}` });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('link_not_found');
  });

  it('should forbid caching and send the security headers', async () => {
    const token = await makeLink(t.app.repo);
    const res = await t.app.inject({ url: `/api/r/${token}` });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });

  it('should store only a hash of the token', async () => {
    const token = await makeLink(t.app.repo);
    expect(await t.app.repo.links.find(token)).toBeUndefined();
    expect(await t.app.repo.links.find(linkIdOf(token))).toBeDefined();
  });
});
