/**
 * A phone's push subscription on a link: its own, named by the device cookie, replaced
 * when it subscribes again; refused, with a code and nothing saved or called, for an endpoint
 * outside PUSH_HOSTS, keys that make no key agreement, or no cookie; limited per link and per phone;
 * and gone with its link (revoked by the admin CLI or replaced by the runner), with the runner's
 * account, and (its queued pushes) with a note the runner removes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import { linkIdOf } from '../../../server/links.js';
import type { Session } from '../../../contract/runnerApi.js';
import { startPushService, type PushServiceStandIn } from '../../../stand-ins/pushService.js';
import { BACKENDS } from '../support/backends.js';
import { runAdmin } from '../support/cli.js';
import { phoneOpens, pushEnv, subscribe, trustPushService } from '../support/push.js';
import { digestOf, fakeWebm } from '../support/uploads.js';
import { startRunnerApp, type RunnerTestApp } from '../runner/support.js';

describe.each(BACKENDS)('push subscriptions on %s', (kind) => {
  let service: PushServiceStandIn;
  /** A push service the server is not told about. */
  let elsewhere: PushServiceStandIn;
  let untrust: () => void;
  let t: RunnerTestApp;
  let db: Database;
  let session: Session;
  beforeAll(async () => {
    [service, elsewhere] = await Promise.all([startPushService(), startPushService()]);
    untrust = trustPushService(service);
    t = await startRunnerApp(kind, { ...pushEnv(service), PUSH_MAX_PER_LINK: '3', PUSH_MAX_PER_PHONE: '3' });
    db = openDatabase(t.backend.config);
    session = await t.signIn();
  });
  afterAll(async () => {
    await db?.close();
    await t?.close();
    untrust?.();
    await Promise.all([service?.close(), elsewhere?.close()]);
  });

  const count = async (table: string) => Number((await db.all(`SELECT COUNT(*) AS n FROM ${table}`))[0]!.n);
  const state = async (token: string, cookie: string) => (await t.app.inject({ url: `/api/r/${token}/push`, headers: { cookie } })).json();
  const linkOf = async () => (await t.enter(session, undefined, 'Alex')).token;

  it("should keep one subscription per phone and link, answer with the phone's own state, and replace it when asked again", async () => {
    const token = await linkOf();
    const sam = await phoneOpens(t.app, token);
    const jo = await phoneOpens(t.app, token);
    expect(await state(token, sam)).toEqual({ publicKey: expect.any(String), subscribed: false, heard: false, alerts: [] });
    expect((await subscribe(t.app, token, sam, service.subscribe())).statusCode).toBe(200);
    const again = await subscribe(t.app, token, sam, service.subscribe(), { heard: false, lang: 'de' });
    expect(again.json()).toMatchObject({ subscribed: true, heard: false });
    expect(await state(token, jo)).toMatchObject({ subscribed: false });
    expect(Number((await db.all('SELECT COUNT(*) AS n FROM push_subscriptions s JOIN links l ON l.id = s.link_id WHERE s.lang = ?', ['de']))[0]!.n)).toBe(1);

    expect((await t.app.inject({ method: 'DELETE', url: `/api/r/${token}/push`, headers: { cookie: sam } })).statusCode).toBe(204);
    expect(await state(token, sam)).toMatchObject({ subscribed: false });
  });

  it('should refuse an endpoint outside PUSH_HOSTS with a code, save nothing, and never contact it', async () => {
    const token = await linkOf();
    const sam = await phoneOpens(t.app, token);
    const before = await count('push_subscriptions');
    for (const endpoint of [
      elsewhere.subscribe().endpoint,
      `http://${service.host}/push/x`,
      'https://169.254.169.254/latest/meta-data',
      `https://user@${service.host}/push/x`,
    ]) {
      const res = await subscribe(t.app, token, sam, { ...service.subscribe(), endpoint });
      expect(res.statusCode, endpoint).toBe(400);
      expect(res.json().error).toBe('push_endpoint_refused');
    }
    expect(await count('push_subscriptions')).toBe(before);
    expect(elsewhere.requests()).toBe(0);
  });

  it('should refuse keys that make no key agreement, a phone without its cookie, and a body that is not a subscription', async () => {
    const token = await linkOf();
    const sam = await phoneOpens(t.app, token);
    const offCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url');
    const sub = service.subscribe();
    expect((await subscribe(t.app, token, sam, { ...sub, keys: { ...sub.keys, p256dh: offCurve } })).json().error).toBe('invalid_subscription');
    expect((await subscribe(t.app, token, undefined, sub)).json().error).toBe('device_unknown');
    const bad = await t.app.inject({
      method: 'PUT',
      url: `/api/r/${token}/push`,
      headers: { cookie: sam },
      payload: { endpoint: sub.endpoint, lang: 'en', heard: true },
    });
    expect([bad.statusCode, bad.json().error]).toEqual([400, 'bad_request']);
    const huge = await t.app.inject({
      method: 'PUT',
      url: `/api/r/${token}/push`,
      headers: { cookie: sam, 'content-type': 'application/json' },
      payload: 'x'.repeat(10_000),
    });
    expect([huge.statusCode, huge.json().error]).toEqual([413, 'too_large']);
    expect(await state(token, sam)).toMatchObject({ subscribed: false });
  });

  it('should hold a link to PUSH_MAX_PER_LINK phones and a phone to PUSH_MAX_PER_PHONE links, and let a phone already in subscribe again', async () => {
    const token = await linkOf();
    const phones = [];
    for (let i = 0; i < 3; i++) {
      const phone = await phoneOpens(t.app, token);
      expect((await subscribe(t.app, token, phone, service.subscribe())).statusCode).toBe(200);
      phones.push(phone);
    }
    const fourth = await subscribe(t.app, token, await phoneOpens(t.app, token), service.subscribe());
    expect([fourth.statusCode, fourth.json().error]).toEqual([429, 'push_link_full']);
    expect((await subscribe(t.app, token, phones[0]!, service.subscribe())).statusCode).toBe(200);

    const sam = await phoneOpens(t.app, await linkOf());
    const links = [await linkOf(), await linkOf(), await linkOf(), await linkOf()];
    for (const link of links) await phoneOpens(t.app, link, sam);
    for (const link of links.slice(0, 3)) expect((await subscribe(t.app, link, sam, service.subscribe())).statusCode).toBe(200);
    const more = await subscribe(t.app, links[3]!, sam, service.subscribe());
    expect([more.statusCode, more.json().error]).toEqual([429, 'push_phone_full']);
  });

  /** A phone subscribed on a new link, with a marker alert and a push waiting for one of its notes. */
  async function subscribedLink() {
    const entry = await t.enter(session, undefined, 'Alex');
    const sam = await phoneOpens(t.app, entry.token);
    expect((await subscribe(t.app, entry.token, sam, service.subscribe())).statusCode).toBe(200);
    const [sub] = await db.all('SELECT id FROM push_subscriptions WHERE link_id = ?', [linkIdOf(entry.token)]);
    await db.run('INSERT INTO push_alerts (subscription_id, marker, due_at, fired_at, created_at) VALUES (?, ?, ?, NULL, 0)', [
      sub!.id,
      'mi-20',
      Date.now() + 3_600_000,
    ]);
    const noteId = randomUUID();
    const body = fakeWebm();
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/r/${entry.token}/notes/${noteId}?marker=mi-20&from=Sam`,
      payload: body,
      headers: { cookie: sam, 'content-type': 'audio/webm;codecs=opus', 'content-digest': digestOf(body) },
    });
    expect(put.statusCode).toBe(201);
    // Queued for later, as a push the service asked to wait for: it stays in the queue.
    await db.run(
      "INSERT INTO push_deliveries (id, subscription_id, kind, ref, note_id, marker, attempts, due_at, expires_at, locked_until, lease_owner, created_at) VALUES (?, ?, 'heard', ?, ?, 'mi-20', 1, ?, ?, 0, NULL, 0)",
      [`${sub!.id}:heard:${noteId}`, sub!.id, noteId, noteId, Date.now() + 3_600_000, Date.now() + 7_200_000],
    );
    return { entry, sam, subscriptionId: String(sub!.id), noteId };
  }
  const rowsOf = async (subscriptionId: string) => ({
    subscriptions: Number((await db.all('SELECT COUNT(*) AS n FROM push_subscriptions WHERE id = ?', [subscriptionId]))[0]!.n),
    alerts: Number((await db.all('SELECT COUNT(*) AS n FROM push_alerts WHERE subscription_id = ?', [subscriptionId]))[0]!.n),
    deliveries: Number((await db.all('SELECT COUNT(*) AS n FROM push_deliveries WHERE subscription_id = ?', [subscriptionId]))[0]!.n),
  });

  it("should remove a link's subscriptions, alerts and waiting pushes when the operator revokes it", async () => {
    const { entry, subscriptionId } = await subscribedLink();
    expect(await rowsOf(subscriptionId)).toEqual({ subscriptions: 1, alerts: 1, deliveries: 1 });
    const revoked = await runAdmin(t.backend.env, 'revoke-link', `--token=${entry.token}`);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await rowsOf(subscriptionId)).toEqual({ subscriptions: 0, alerts: 0, deliveries: 0 });
  });

  it('should remove the subscriptions of links the runner replaces or stops', async () => {
    const replaced = await subscribedLink();
    expect((await t.call(session, 'POST', `/api/entries/${replaced.entry.id}/link`)).statusCode).toBe(200);
    expect(await rowsOf(replaced.subscriptionId)).toEqual({ subscriptions: 0, alerts: 0, deliveries: 0 });
    const stopped = await subscribedLink();
    expect((await t.call(session, 'DELETE', `/api/entries/${stopped.entry.id}/link`)).statusCode).toBe(204);
    expect(await rowsOf(stopped.subscriptionId)).toEqual({ subscriptions: 0, alerts: 0, deliveries: 0 });
  });

  it('should drop the waiting push of a note the runner removes, and keep the phone subscribed for its other notes', async () => {
    const { subscriptionId, noteId } = await subscribedLink();
    expect((await t.call(session, 'DELETE', `/api/notes/${noteId}`)).statusCode).toBe(204);
    expect(await rowsOf(subscriptionId)).toEqual({ subscriptions: 1, alerts: 1, deliveries: 0 });
  });

  it("should remove every subscription on the runner's links when the account is deleted", async () => {
    const runner = await t.signIn();
    const entry = await t.enter(runner, undefined, 'Kim');
    const sam = await phoneOpens(t.app, entry.token);
    expect((await subscribe(t.app, entry.token, sam, service.subscribe())).statusCode).toBe(200);
    const [sub] = await db.all('SELECT id FROM push_subscriptions WHERE link_id = ?', [linkIdOf(entry.token)]);
    expect((await t.call(runner, 'DELETE', '/api/me')).statusCode).toBe(204);
    expect(await rowsOf(String(sub!.id))).toEqual({ subscriptions: 0, alerts: 0, deliveries: 0 });
  });
});
