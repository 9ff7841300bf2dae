/**
 * A budget no neighbour can spend: hundreds of friends at a venue reach us from one carrier IPv4
 * address, and one person among them opening links over and over must not leave the others without
 * a phone of their own (no list on the installed app, no notifications). The new-phone bounds count
 * what costs, per link; the cookie itself costs nothing and is given to every phone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HomeScreenLinks } from '../../../contract/homeScreenApi.js';
import { startPushService, type PushServiceStandIn } from '../../../stand-ins/pushService.js';
import { BACKENDS } from '../support/backends.js';
import { deviceCookieHeader, pushEnv, trustPushService } from '../support/push.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';

const VENUE = '203.0.113.9';

describe.each(BACKENDS)("a carrier's shared address, on %s", (kind) => {
  let service: PushServiceStandIn;
  let untrust: () => void;
  let t: RunnerTestApp;
  beforeAll(async () => {
    service = await startPushService();
    untrust = trustPushService(service);
    // The requests of an hour, sent at once: the per-minute limit is not what this is about.
    t = await startRunnerApp(kind, { ...pushEnv(service), TRUST_PROXY: 'loopback', RATE_LIMIT_PER_MINUTE: '10000' });
  });
  afterAll(async () => {
    await t?.close();
    untrust?.();
    await service?.close();
  });

  it('should give a friend behind the address a phone of its own, its list and notifications, after 300 new phones came from there', async () => {
    const session = await t.signIn();
    const [theirs, ours] = [(await t.enter(session, undefined, 'Kim')).token, (await t.enter(session, undefined, 'Alex')).token];
    let given = 0;
    for (let i = 0; i < 300; i++) {
      const res = await t.app.inject({ url: `/api/r/${theirs}`, headers: { 'x-forwarded-for': VENUE } });
      expect(res.statusCode).toBe(200);
      if (deviceCookieHeader(res.headers['set-cookie'])) given++;
    }
    const opened = await t.app.inject({ url: `/api/r/${ours}`, headers: { 'x-forwarded-for': VENUE } });
    const cookie = deviceCookieHeader(opened.headers['set-cookie']);
    const headers = { 'x-forwarded-for': VENUE, ...(cookie ? { cookie } : {}) };
    const listed = await t.app.inject({ url: '/api/device/links', headers });
    const subscribed = await t.app.inject({ method: 'PUT', url: `/api/r/${ours}/push`, headers, payload: { ...service.subscribe(), lang: 'en', heard: true } });
    expect({
      given,
      friendHasCookie: cookie !== undefined,
      listed: listed.json<HomeScreenLinks>().links.map((l) => l.token),
      subscribed: subscribed.statusCode === 200 ? '200' : `${subscribed.statusCode} ${subscribed.json().error}`,
    }).toEqual({ given: 300, friendHasCookie: true, listed: [ours], subscribed: '200' });
  });
});
