/**
 * Only a phone on the link subscribes: a cookie this server issued, and that phone's row
 * for the link, made as it subscribes if the link takes one more phone (LINK_NEW_PHONES_PER_HOUR).
 * An invented phone, or a real one the link cannot take now, is refused with a code and nothing is
 * stored, so PUSH_MAX_PER_PHONE and the per-link limit count real phones on the link: ten invented
 * cookies are not ten phones, and a phone that left the link holds no place on it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import { LOCAL_DEVICE_COOKIE } from '../../../server/devices/cookie.js';
import { startPushService, type PushServiceStandIn } from '../../../stand-ins/pushService.js';
import { BACKENDS } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { phoneOpens, pushEnv, subscribe, trustPushService } from '../support/push.js';
import { makeLink } from '../support/uploads.js';
import { linkIdOf } from '../../../server/links.js';

const NEW_PHONES_PER_HOUR = 5;
const refusalOf = (res: { statusCode: number; json(): { error?: string } }) => (res.statusCode === 200 ? '200' : `${res.statusCode} ${res.json().error}`);
const inventedCookie = () => `${LOCAL_DEVICE_COOKIE}=${randomBytes(24).toString('base64url')}.${randomBytes(32).toString('base64url')}`;

describe.each(BACKENDS)("who may subscribe to a link's pushes, on %s", (kind) => {
  let service: PushServiceStandIn;
  let untrust: () => void;
  let t: TestApp;
  let db: Database;
  beforeAll(async () => {
    service = await startPushService();
    untrust = trustPushService(service);
    t = await startTestApp(kind, {
      ...pushEnv(service),
      PUSH_MAX_PER_LINK: '3',
      PUSH_MAX_PER_PHONE: '2',
      LINK_NEW_PHONES_PER_HOUR: String(NEW_PHONES_PER_HOUR),
    });
    db = openDatabase(t.backend.config);
  });
  afterAll(async () => {
    await db?.close();
    await t?.close();
    untrust?.();
    await service?.close();
  });

  const count = async (table: string) => Number((await db.all(`SELECT COUNT(*) AS n FROM ${table}`))[0]!.n);

  it('should refuse invented phones with device_unknown and store nothing, however many there are', async () => {
    const token = await makeLink(t.app.repo);
    const before = await count('push_subscriptions');
    for (let i = 0; i < 10; i++) {
      const res = await subscribe(t.app, token, inventedCookie(), service.subscribe());
      expect([res.statusCode, res.json().error]).toEqual([400, 'device_unknown']);
    }
    expect(await count('push_subscriptions')).toBe(before);
    // The link's real friends still find room.
    for (let i = 0; i < 3; i++) expect((await subscribe(t.app, token, await phoneOpens(t.app, token), service.subscribe())).statusCode).toBe(200);
  });

  it('should take a phone of ours onto the link as it subscribes, and refuse it with a code once the link took its new phones of the hour, storing nothing', async () => {
    const [opened, other, busy] = [await makeLink(t.app.repo), await makeLink(t.app.repo), await makeLink(t.app.repo)];
    const phone = await phoneOpens(t.app, opened);
    // It never opened `other`: it comes onto it now.
    expect(refusalOf(await subscribe(t.app, other, phone, service.subscribe()))).toBe('200');
    for (let i = 0; i < NEW_PHONES_PER_HOUR; i++) await phoneOpens(t.app, busy);
    const before = [await count('push_subscriptions'), await count('push_alerts')];
    const res = await subscribe(t.app, busy, phone, service.subscribe());
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({
      error: 'link_phones_busy',
      message: expect.stringMatching(/^Many new phones opened this link in the last hour\. Try again in about 60 minutes\./),
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(3500);
    const alert = await t.app.inject({ method: 'PUT', url: `/api/r/${busy}/push/alerts/mi-13`, headers: { cookie: phone } });
    expect(refusalOf(alert)).toBe('429 link_phones_busy');
    expect([await count('push_subscriptions'), await count('push_alerts')]).toEqual(before);
    expect(service.requests()).toBe(0);
  });

  it("should count a phone's subscription against the link only while the phone is on the link", async () => {
    const token = await makeLink(t.app.repo);
    const phones = [];
    for (let i = 0; i < 3; i++) {
      const phone = await phoneOpens(t.app, token);
      expect((await subscribe(t.app, token, phone, service.subscribe())).statusCode).toBe(200);
      phones.push(phone);
    }
    // One of them takes the runner off its list: its subscription no longer holds a place on the link.
    const off = await t.app.inject({ method: 'DELETE', url: `/api/device/links/${linkIdOf(token)}`, headers: { cookie: phones[0]! } });
    expect(off.statusCode).toBe(204);
    const fourth = await subscribe(t.app, token, await phoneOpens(t.app, token), service.subscribe());
    expect(refusalOf(fourth)).toBe('200');
  });

  it('should hold one real phone to PUSH_MAX_PER_PHONE links', async () => {
    const links = [await makeLink(t.app.repo), await makeLink(t.app.repo), await makeLink(t.app.repo)];
    const phone = await phoneOpens(t.app, links[0]!);
    for (const link of links.slice(1)) await phoneOpens(t.app, link, phone);
    for (const link of links.slice(0, 2)) expect((await subscribe(t.app, link, phone, service.subscribe())).statusCode).toBe(200);
    const third = await subscribe(t.app, links[2]!, phone, service.subscribe());
    expect([third.statusCode, third.json().error]).toEqual([429, 'push_phone_full']);
  });
});
