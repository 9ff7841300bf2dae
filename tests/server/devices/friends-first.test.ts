/**
 * Friends first: whoever holds a link cannot push its friends off it. A stranger with the link and a
 * /48 of IPv6 addresses brings phone after phone, each opening the link and subscribing with an
 * endpoint of its own; the friend who subscribed stays on the link (its list, its subscription, its
 * alerts, its endpoint moving), the stranger's phones are let in at LINK_NEW_PHONES_PER_HOUR, and a
 * phone refused is told when to try again. An hour later a new friend is let in.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../server/config/index.js';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import { linkIdOf } from '../../../server/links.js';
import type { HomeScreenLinks } from '../../../contract/homeScreenApi.js';
import type { Session } from '../../../contract/runnerApi.js';
import { startPushService, type PushServiceStandIn } from '../../../stand-ins/pushService.js';
import { BACKENDS } from '../support/backends.js';
import { deviceCookieHeader, phoneOpens, pushEnv, subscribe, trustPushService } from '../support/push.js';
import { digestOf, fakeWebm } from '../support/uploads.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';

/** The default: a club's friends on race morning pass; a link takes five hours to fill. */
const NEW_PHONES_PER_HOUR = 100;
const STRANGER_PHONES = 520;

describe.each(BACKENDS)('a link held by its friends, on %s', (kind) => {
  let service: PushServiceStandIn;
  let untrust: () => void;
  let t: RunnerTestApp;
  let db: Database;
  let session: Session;
  beforeAll(async () => {
    service = await startPushService();
    untrust = trustPushService(service);
    t = await startRunnerApp(kind, { ...pushEnv(service), TRUST_PROXY: 'loopback' });
    db = openDatabase(t.backend.config);
    session = await t.signIn();
  });
  afterAll(async () => {
    await db?.close();
    await t?.close();
    untrust?.();
    await service?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A phone at `address` opening the link: its `cookie` header (undefined when it was given none). */
  async function opens(token: string, address: string): Promise<string | undefined> {
    const res = await t.app.inject({ url: `/api/r/${token}`, headers: { 'x-forwarded-for': address } });
    expect(res.statusCode).toBe(200);
    return deviceCookieHeader(res.headers['set-cookie']);
  }
  const from = (address: string, cookie: string | undefined) => ({ 'x-forwarded-for': address, ...(cookie ? { cookie } : {}) });
  /** PUT /api/r/:token/push from the phone at `address`, with its browser's subscription. */
  const subscribesFrom = (token: string, address: string, cookie: string | undefined, sub = service.subscribe()) =>
    t.app.inject({ method: 'PUT', url: `/api/r/${token}/push`, headers: from(address, cookie), payload: { ...sub, lang: 'en', heard: true } });
  const refusalOf = (res: { statusCode: number; json(): { error?: string } }) => (res.statusCode === 200 ? '200' : `${res.statusCode} ${res.json().error}`);

  /** Each of `phones` phones, from its own /64 of one /48, opens the link and subscribes: how their subscribes were answered. */
  async function strangerBrings(token: string, phones: number): Promise<Record<string, number>> {
    const answers: Record<string, number> = {};
    for (let i = 0; i < phones; i++) {
      const address = `2001:db8:bad:${i.toString(16)}::1`;
      const said = refusalOf(await subscribesFrom(token, address, await opens(token, address)));
      answers[said] = (answers[said] ?? 0) + 1;
    }
    return answers;
  }

  it("should keep a subscribed friend on the link whatever a stranger with the link brings, and let the stranger's phones in at its hourly pace", async () => {
    const { token } = await t.enter(session, undefined, 'Alex');
    const friendAt = '198.51.100.20';
    const friend = await opens(token, friendAt);
    const first = service.subscribe();
    expect(refusalOf(await subscribesFrom(token, friendAt, friend, first))).toBe('200');

    const answers = await strangerBrings(token, STRANGER_PHONES);

    const listed = await t.app.inject({ url: '/api/device/links', headers: from(friendAt, friend) });
    const again = await subscribesFrom(token, friendAt, friend, first);
    const alert = await t.app.inject({ method: 'PUT', url: `/api/r/${token}/push/alerts/mi-13`, headers: from(friendAt, friend) });
    const moved = service.subscribe();
    const change = await t.app.inject({
      method: 'PUT',
      url: `/api/r/${token}/push/endpoint`,
      headers: from(friendAt, friend),
      payload: { oldEndpoint: first.endpoint, endpoint: moved.endpoint, keys: moved.keys },
    });
    const newFriendAt = '198.51.100.21';
    const newFriend = await opens(token, newFriendAt);
    const turnedAway = await subscribesFrom(token, newFriendAt, newFriend);
    const [{ n: subscriptions }] = (await db.all('SELECT COUNT(*) AS n FROM push_subscriptions WHERE link_id = ?', [linkIdOf(token)])) as [{ n: unknown }];

    expect({
      answers,
      listed: listed.json<HomeScreenLinks>().links.map((l) => l.token),
      again: refusalOf(again),
      alert: refusalOf(alert),
      change: refusalOf(change),
      turnedAway: refusalOf(turnedAway),
      subscriptions: Number(subscriptions),
    }).toEqual({
      answers: { '200': NEW_PHONES_PER_HOUR - 1, '429 link_phones_busy': STRANGER_PHONES - NEW_PHONES_PER_HOUR + 1 },
      listed: [token],
      again: '200',
      // Judged on the race (not live, no estimate), not refused as a stranger.
      alert: '409 progress_not_shared',
      change: '200',
      turnedAway: '429 link_phones_busy',
      subscriptions: NEW_PHONES_PER_HOUR,
    });
    // The refusal says when to try again, in the header and in words.
    const wait = Number(turnedAway.headers['retry-after']);
    expect(wait).toBeGreaterThan(3000);
    expect(wait).toBeLessThanOrEqual(3600);
    expect(turnedAway.json().message).toMatch(/^Many new phones opened this link in the last hour\. Try again in about \d+ minutes\./);

    // An hour on, the new friend is let in.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + wait * 1000);
    expect(refusalOf(await subscribesFrom(token, newFriendAt, newFriend))).toBe('200');
  });

  it('should count a phone that sent a note or turned notifications on among the friends of the link, and one that only opened it not', async () => {
    const { token } = await t.enter(session, undefined, 'Alex');
    const [sender, subscriber] = [await phoneOpens(t.app, token), await phoneOpens(t.app, token)];
    await phoneOpens(t.app, token);
    const body = fakeWebm();
    const sent = await t.app.inject({
      method: 'PUT',
      url: `/api/r/${token}/notes/${randomUUID()}?marker=mi-13&from=Sam`,
      headers: { cookie: sender, 'content-type': 'audio/webm;codecs=opus', 'content-digest': digestOf(body) },
      payload: body,
    });
    expect(sent.statusCode).toBe(201);
    expect((await subscribe(t.app, token, subscriber, service.subscribe())).statusCode).toBe(200);
    const rows = await db.all('SELECT took_part_at FROM device_links WHERE link_id = ?', [linkIdOf(token)]);
    expect(rows.map((r) => r.took_part_at !== null).sort()).toEqual([false, true, true]);
  });
});

describe('the new phones a link takes', () => {
  it('should be 100 an hour unless LINK_NEW_PHONES_PER_HOUR says, and refuse a figure that is not a positive whole number', () => {
    expect(loadConfig({}).linkNewPhonesPerHour).toBe(NEW_PHONES_PER_HOUR);
    expect(loadConfig({ LINK_NEW_PHONES_PER_HOUR: '250' }).linkNewPhonesPerHour).toBe(250);
    expect(() => loadConfig({ LINK_NEW_PHONES_PER_HOUR: '0' })).toThrow(/LINK_NEW_PHONES_PER_HOUR must be a positive whole number/);
  });
});
