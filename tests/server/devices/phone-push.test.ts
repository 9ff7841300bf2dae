/**
 * Only a phone that opened the link subscribes (issue 40): a cookie this server issued, and that
 * phone's row for the link. An invented phone, or a real one that never opened this link, is
 * refused with a code and nothing is stored, so PUSH_MAX_PER_PHONE and the per-link limit count
 * real phones: ten invented cookies are not ten phones.
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

const inventedCookie = () => `${LOCAL_DEVICE_COOKIE}=${randomBytes(24).toString('base64url')}.${randomBytes(32).toString('base64url')}`;

describe.each(BACKENDS)("who may subscribe to a link's pushes, on %s", (kind) => {
  let service: PushServiceStandIn;
  let untrust: () => void;
  let t: TestApp;
  let db: Database;
  beforeAll(async () => {
    service = await startPushService();
    untrust = trustPushService(service);
    t = await startTestApp(kind, { ...pushEnv(service), PUSH_MAX_PER_LINK: '3', PUSH_MAX_PER_PHONE: '2' });
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

  it('should refuse a real phone that never opened this link, on subscribing and on asking for an alert, and store nothing', async () => {
    const [opened, other] = [await makeLink(t.app.repo), await makeLink(t.app.repo)];
    const phone = await phoneOpens(t.app, opened);
    const before = [await count('push_subscriptions'), await count('push_alerts')];
    const res = await subscribe(t.app, other, phone, service.subscribe());
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'device_not_linked', message: expect.stringMatching(/^[A-Z].*\.$/) });
    const alert = await t.app.inject({ method: 'PUT', url: `/api/r/${other}/push/alerts/mi-13`, headers: { cookie: phone } });
    expect([alert.statusCode, alert.json().error]).toEqual([403, 'device_not_linked']);
    expect([await count('push_subscriptions'), await count('push_alerts')]).toEqual(before);
    expect(service.requests()).toBe(0);
    // Once it opened the link, it may.
    await phoneOpens(t.app, other, phone);
    expect((await subscribe(t.app, other, phone, service.subscribe())).statusCode).toBe(200);
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
