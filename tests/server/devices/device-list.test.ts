/**
 * The home screen's list: GET /api/device/links gives the runners a phone opened, found
 * by its device cookie alone (all the iPhone's home-screen app starts with), and DELETE takes one off.
 * The cookie is a credential for the links it lists: a revoked link's token is never given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_DEVICE_COOKIE as DEVICE_COOKIE } from '../../../server/devices/cookie.js';
import { linkIdOf } from '../../../server/links.js';
import type { HomeScreenLinks } from '../../../contract/homeScreenApi.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, restartOn, type TestApp } from '../support/app.js';
import { addUpcomingRaces, UPCOMING } from '../support/races.js';
import { makeLink } from '../support/uploads.js';

/** A few requests a minute per address and phone, so the limit is reached in a test. */
const PER_MINUTE = 6;

describe.each(BACKENDS)("the installed app's list on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });
    await addUpcomingRaces(t.app.repo);
  });
  afterAll(() => t.close());

  /** Opens the links as one phone would, and returns its cookie header. */
  async function phoneThatOpened(...tokens: string[]): Promise<{ cookie: string }> {
    let cookie: string | undefined;
    for (const token of tokens) {
      const res = await t.app.inject({ url: `/api/r/${token}`, headers: cookie ? { cookie } : {} });
      expect(res.statusCode).toBe(200);
      const set = res.cookies.find((c) => c.name === DEVICE_COOKIE)!;
      cookie = `${DEVICE_COOKIE}=${set.value}`;
    }
    return { cookie: cookie! };
  }

  const listOf = async (headers: Record<string, string> = {}) => {
    const res = await t.app.inject({ url: '/api/device/links', headers });
    return { res, body: res.json<HomeScreenLinks>() };
  };

  it('should answer an empty list, unstored and without a cookie, to a phone that never opened a link', async () => {
    const { res, body } = await listOf();
    expect(res.statusCode).toBe(200);
    expect(body).toEqual({ links: [] });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect((await listOf({ cookie: `${DEVICE_COOKIE}=not-a-cookie` })).body).toEqual({ links: [] });
  });

  it('should list every runner the phone opened with the race, its day and state, and each recorder, the latest first', async () => {
    const [alex, jo] = [await makeLink(t.app.repo, UPCOMING.berlin.id, 'Alex'), await makeLink(t.app.repo, 'chicago-2025', 'Jo')];
    const phone = await phoneThatOpened(alex, jo);
    const { res, body } = await listOf(phone);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(body.links).toEqual([
      {
        linkId: linkIdOf(jo),
        runner: { displayName: 'Jo' },
        revoked: false,
        token: jo,
        path: `/r/${jo}`,
        openedAt: expect.any(String),
        race: { id: 'chicago-2025', name: 'Chicago Marathon', date: '2025-10-12', timezone: 'America/Chicago', startsAt: expect.any(String), when: 'past' },
      },
      {
        linkId: linkIdOf(alex),
        runner: { displayName: 'Alex' },
        revoked: false,
        token: alex,
        path: `/r/${alex}`,
        openedAt: expect.any(String),
        race: {
          id: UPCOMING.berlin.id,
          name: 'Berlin Marathon',
          date: '2099-09-27',
          timezone: 'Europe/Berlin',
          startsAt: '2099-09-27T07:15:00.000Z',
          when: 'upcoming',
        },
      },
    ]);
  });

  it("should renew the phone's cookie when the installed app reads its list", async () => {
    const phone = await phoneThatOpened(await makeLink(t.app.repo));
    const { res } = await listOf(phone);
    expect(res.cookies.find((c) => c.name === DEVICE_COOKIE)).toMatchObject({ value: phone.cookie.split('=')[1], httpOnly: true, sameSite: 'Lax', path: '/' });
  });

  it('should say a revoked link is revoked and never give its token', async () => {
    const [kept, revoked] = [await makeLink(t.app.repo, UPCOMING.nyc.id, 'Sam'), await makeLink(t.app.repo, UPCOMING.nyc.id, 'Kim')];
    const phone = await phoneThatOpened(kept, revoked);
    await t.app.repo.links.revoke(linkIdOf(revoked), new Date().toISOString());
    const { res, body } = await listOf(phone);
    expect(body.links.map((l) => [l.runner.displayName, l.revoked])).toEqual([
      ['Kim', true],
      ['Sam', false],
    ]);
    expect(body.links[0]).not.toHaveProperty('token');
    expect(body.links[0]).not.toHaveProperty('path');
    expect(res.body).not.toContain(revoked);
  });

  it("should list only the phone's own links, never another phone's", async () => {
    const [mine, theirs] = [await makeLink(t.app.repo, UPCOMING.chicago.id, 'Mine'), await makeLink(t.app.repo, UPCOMING.chicago.id, 'Theirs')];
    const [me, other] = [await phoneThatOpened(mine), await phoneThatOpened(theirs)];
    expect((await listOf(me)).body.links.map((l) => l.runner.displayName)).toEqual(['Mine']);
    expect((await listOf(other)).body.links.map((l) => l.runner.displayName)).toEqual(['Theirs']);
  });

  it('should leave out a live link whose sealed token no longer opens, after the session secret changed', async () => {
    const token = await makeLink(t.app.repo, UPCOMING.chicago.id, 'Alex');
    const phone = await phoneThatOpened(token);
    const other = await restartOn(t.backend, { SESSION_SECRET: 'another secret of at least thirty-two characters' });
    try {
      const res = await other.inject({ url: '/api/device/links', headers: phone });
      expect(res.statusCode).toBe(200);
      expect(res.json<HomeScreenLinks>().links).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("should take a runner off the phone's list and leave the link working; opening it again puts it back", async () => {
    const [alex, jo] = [await makeLink(t.app.repo, UPCOMING.chicago.id, 'Alex'), await makeLink(t.app.repo, UPCOMING.chicago.id, 'Jo')];
    const phone = await phoneThatOpened(alex, jo);
    const off = await t.app.inject({ method: 'DELETE', url: `/api/device/links/${linkIdOf(alex)}`, headers: phone });
    expect(off.statusCode).toBe(204);
    expect((await listOf(phone)).body.links.map((l) => l.runner.displayName)).toEqual(['Jo']);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/device/links/${linkIdOf(alex)}`, headers: phone })).json()).toMatchObject({
      error: 'device_link_not_found',
    });
    const again = await t.app.inject({ url: `/api/r/${alex}`, headers: phone });
    expect(again.statusCode).toBe(200);
    expect((await listOf(phone)).body.links.map((l) => l.runner.displayName).sort()).toEqual(['Alex', 'Jo']);
  });

  it("should refuse to take a link off another phone's list, or off no phone's, and change nothing", async () => {
    const token = await makeLink(t.app.repo, UPCOMING.chicago.id, 'Alex');
    const [owner, stranger] = [await phoneThatOpened(token), await phoneThatOpened(await makeLink(t.app.repo))];
    const url = `/api/device/links/${linkIdOf(token)}`;
    const byStranger = await t.app.inject({ method: 'DELETE', url, headers: stranger });
    const byNobody = await t.app.inject({ method: 'DELETE', url });
    const malformed = await t.app.inject({ method: 'DELETE', url: '/api/device/links/..%2F..%2Fetc', headers: owner });
    for (const res of [byStranger, byNobody, malformed]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'device_link_not_found' });
    }
    expect((await listOf(owner)).body.links.map((l) => l.runner.displayName)).toEqual(['Alex']);
  });

  it('should refuse a phone past its requests a minute with 429 and Retry-After', async () => {
    const phone = await phoneThatOpened(await makeLink(t.app.repo));
    const answers = [];
    for (let i = 0; i <= PER_MINUTE; i++) answers.push(await t.app.inject({ url: '/api/device/links', headers: phone }));
    expect(answers.slice(0, PER_MINUTE).map((r) => r.statusCode)).toEqual(Array(PER_MINUTE).fill(200));
    const refused = answers[PER_MINUTE]!;
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another phone behind the same address keeps its own budget.
    expect((await listOf(await phoneThatOpened(await makeLink(t.app.repo)))).res.statusCode).toBe(200);
  });
});
