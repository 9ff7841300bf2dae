/**
 * "Alex heard your note at Mile 20", told by Web Push: when the runner's app reports a
 * note played, the server pushes to the subscription of the phone the note came from on that link,
 * through a loopback push service that checks the signature and decrypts the body as a browser
 * would. The report never waits for it; another friend's note is never pushed to this phone; a gone
 * subscription is forgotten; a busy service is tried again as it asks, a bounded number of times;
 * and two servers send each push once.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import type { DeclarativePush } from '../../../contract/push.js';
import { startPushService, type PushServiceStandIn } from '../../../stand-ins/pushService.js';
import { restartOn } from '../support/app.js';
import { BACKENDS } from '../support/backends.js';
import { phoneOpens, pushEnv, subscribe, trustPushService } from '../support/push.js';
import { digestOf, fakeWebm } from '../support/uploads.js';
import { PUBLIC_URL, startRunnerApp, type RunnerTestApp } from '../runner/support.js';
import type { Session } from '../../../contract/runnerApi.js';

describe.each(BACKENDS)('pushes of heard notes on %s', (kind) => {
  let service: PushServiceStandIn;
  let untrust: () => void;
  let t: RunnerTestApp;
  let db: Database;
  let session: Session;
  beforeAll(async () => {
    service = await startPushService();
    untrust = trustPushService(service);
    t = await startRunnerApp(kind, { ...pushEnv(service), METRICS: 'on' });
    db = openDatabase(t.backend.config);
    session = await t.signIn();
  });
  afterAll(async () => {
    await db?.close();
    await t?.close();
    untrust?.();
    await service?.close();
  });

  /** A friend's phone sends a note through the link; its id. */
  async function sendFrom(app: FastifyInstance, cookie: string, token: string, marker = 'mi-20'): Promise<string> {
    const noteId = randomUUID();
    const body = fakeWebm();
    const res = await app.inject({
      method: 'PUT',
      url: `/api/r/${token}/notes/${noteId}?marker=${marker}&from=Sam`,
      payload: body,
      headers: { cookie, 'content-type': 'audio/webm;codecs=opus', 'content-digest': digestOf(body) },
    });
    expect(res.statusCode, res.body).toBe(201);
    return noteId;
  }

  const played = async (noteId: string, marker = 'mi-20') => {
    const res = await t.call(session, 'POST', `/api/notes/${noteId}/played`, { playedAt: new Date().toISOString(), marker });
    expect(res.statusCode, res.body).toBe(200);
  };
  const noticesTo = (endpoint: string) =>
    service
      .received()
      .filter((p) => p.endpoint === endpoint)
      .map((p) => JSON.parse(p.text) as DeclarativePush);
  const metric = async (line: string) => {
    const text = (await t.app.inject({ url: '/metrics' })).body;
    return Number(new RegExp(`^${line.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  };
  /** The one queued push, as the queue holds it. */
  const queued = async () =>
    (await db.all('SELECT attempts, due_at, locked_until FROM push_deliveries')).map((r) => ({
      attempts: Number(r.attempts),
      dueAt: Number(r.due_at),
      locked: Number(r.locked_until) > 0,
    }));
  /** Time compressed: the queued pushes are due now, and the worker looks. */
  const dueNow = async () => {
    await db.run('UPDATE push_deliveries SET due_at = 0');
    t.app.push.played();
  };

  it("should push to the sender's phone when its note is played, naming the note and the marker, never waiting for the push service", async () => {
    const entry = await t.enter(session, undefined, 'Alex');
    const sam = await phoneOpens(t.app, entry.token);
    const sub = service.subscribe();
    const res = await subscribe(t.app, entry.token, sam, sub, { lang: 'fr' });
    expect(res.json()).toEqual({ publicKey: expect.stringMatching(/^[A-Za-z0-9_-]{87}$/), subscribed: true, heard: true, lang: 'fr', alerts: [] });
    const noteId = await sendFrom(t.app, sam, entry.token);

    let answer!: () => void;
    service.script(sub.endpoint, { status: 201, after: new Promise<void>((resolve) => (answer = resolve)) });
    await played(noteId, 'mi-20');
    // The report was answered while the push service still holds the push.
    await expect.poll(() => service.requests()).toBeGreaterThan(0);
    expect(noticesTo(sub.endpoint)).toEqual([]);
    answer();

    await expect
      .poll(() => noticesTo(sub.endpoint))
      .toEqual([
        {
          web_push: 8030,
          notification: {
            title: 'Alex a entendu votre message au mille 20',
            navigate: `${PUBLIC_URL}/r/${entry.token}`,
            lang: 'fr',
            dir: 'auto',
            tag: `heard:${noteId}`,
            silent: false,
          },
          app_badge: 1,
        },
      ]);
    const [push] = service.received();
    expect(push).toMatchObject({ ttl: 6 * 3600, urgency: 'normal', topic: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) });
    await expect.poll(() => queued()).toEqual([]);
    // Counted once the subscription's last push is written (server/push/deliveries.ts), after the queue row goes.
    await expect.poll(() => metric('milenotes_push_sent_total')).toBeGreaterThanOrEqual(1);
    // Taken by the push service: the subscription is alive, and the push sweep keeps it (server/push/sweep.ts).
    const pushedAt = async () => (await db.all('SELECT last_pushed_at FROM push_subscriptions WHERE endpoint = ?', [sub.endpoint]))[0]?.last_pushed_at;
    await expect.poll(async () => Number(await pushedAt())).toBeGreaterThan(Date.now() - 60_000);

    // The app reporting the same play again tells nobody twice.
    await played(noteId, 'mi-20');
    expect(await queued()).toEqual([]);
  });

  it("should never push another friend's note on the same link, nor a note of a phone that asked for nothing", async () => {
    const entry = await t.enter(session, undefined, 'Alex');
    const sam = await phoneOpens(t.app, entry.token);
    const jo = await phoneOpens(t.app, entry.token);
    const sub = service.subscribe();
    expect((await subscribe(t.app, entry.token, sam, sub)).statusCode).toBe(200);
    const samNote = await sendFrom(t.app, sam, entry.token);
    const joNote = await sendFrom(t.app, jo, entry.token);

    await played(joNote);
    // Queued with the play or not at all: nothing is.
    expect(await queued()).toEqual([]);
    await played(samNote);
    await expect.poll(() => noticesTo(sub.endpoint).map((n) => n.notification.tag)).toEqual([`heard:${samNote}`]);

    // Turned off: later plays of this phone's notes are not pushed either.
    const later = await sendFrom(t.app, sam, entry.token);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/r/${entry.token}/push`, headers: { cookie: sam } })).statusCode).toBe(204);
    await played(later);
    expect(await queued()).toEqual([]);
  });

  it('should forget every subscription on an endpoint the push service says is gone (410)', async () => {
    const [first, second] = [await t.enter(session, undefined, 'Alex'), await t.enter(session, undefined, 'Alex')];
    const sam = await phoneOpens(t.app, first.token);
    await phoneOpens(t.app, second.token, sam);
    // One browser, one endpoint, whichever link it subscribed on.
    const sub = service.subscribe();
    for (const { token } of [first, second]) expect((await subscribe(t.app, token, sam, sub)).statusCode).toBe(200);
    const gone = await metric('milenotes_push_gone_total');
    service.script(sub.endpoint, { status: 410 });

    await played(await sendFrom(t.app, sam, first.token));
    await expect.poll(() => metric('milenotes_push_gone_total')).toBe(gone + 1);
    for (const { token } of [first, second]) {
      expect((await t.app.inject({ url: `/api/r/${token}/push`, headers: { cookie: sam } })).json()).toMatchObject({ subscribed: false });
    }
    expect(await queued()).toEqual([]);
  });

  it('should try a busy push service again no sooner than its Retry-After, and send then', async () => {
    const entry = await t.enter(session, undefined, 'Alex');
    const sam = await phoneOpens(t.app, entry.token);
    const sub = service.subscribe();
    expect((await subscribe(t.app, entry.token, sam, sub)).statusCode).toBe(200);
    service.script(sub.endpoint, { status: 429, retryAfter: '120' });
    const noteId = await sendFrom(t.app, sam, entry.token);
    const before = Date.now();
    await played(noteId);

    await expect.poll(() => queued()).toEqual([{ attempts: 1, dueAt: expect.any(Number), locked: false }]);
    const [waiting] = await queued();
    expect(waiting!.dueAt).toBeGreaterThanOrEqual(before + 120_000);
    expect(waiting!.dueAt).toBeLessThan(Date.now() + 121_000);

    await dueNow();
    await expect.poll(() => noticesTo(sub.endpoint).map((n) => n.notification.tag)).toEqual([`heard:${noteId}`]);
    await expect.poll(() => queued()).toEqual([]);
  });

  it('should give a push up after five failed attempts, each later than the one before', async () => {
    const entry = await t.enter(session, undefined, 'Alex');
    const sam = await phoneOpens(t.app, entry.token);
    const sub = service.subscribe();
    expect((await subscribe(t.app, entry.token, sam, sub)).statusCode).toBe(200);
    service.script(sub.endpoint, ...Array.from({ length: 5 }, () => ({ status: 503 })));
    const gaveUp = await metric('milenotes_push_failed_total{reason="gave_up"}');
    await played(await sendFrom(t.app, sam, entry.token));

    const waits: number[] = [];
    for (let attempt = 1; attempt < 5; attempt++) {
      await expect.poll(() => queued()).toEqual([{ attempts: attempt, dueAt: expect.any(Number), locked: false }]);
      waits.push((await queued())[0]!.dueAt - Date.now());
      await dueNow();
    }
    await expect.poll(() => metric('milenotes_push_failed_total{reason="gave_up"}')).toBe(gaveUp + 1);
    expect(await queued()).toEqual([]);
    expect(noticesTo(sub.endpoint)).toEqual([]);
    // Never taken: nothing says the subscription is alive (the push sweep may take it once idle long enough).
    expect((await db.all('SELECT last_pushed_at FROM push_subscriptions WHERE endpoint = ?', [sub.endpoint]))[0]?.last_pushed_at).toBeNull();
    for (let i = 1; i < waits.length; i++) expect(waits[i]!).toBeGreaterThan(waits[i - 1]!);
  });

  it('should drop unsent a push that went stale waiting (past its TTL)', async () => {
    const entry = await t.enter(session, undefined, 'Alex');
    const sam = await phoneOpens(t.app, entry.token);
    const sub = service.subscribe();
    expect((await subscribe(t.app, entry.token, sam, sub)).statusCode).toBe(200);
    service.script(sub.endpoint, { status: 503 });
    const expired = await metric('milenotes_push_failed_total{reason="expired"}');
    await played(await sendFrom(t.app, sam, entry.token));
    await expect.poll(() => queued()).toEqual([{ attempts: 1, dueAt: expect.any(Number), locked: false }]);
    // Hours pass: the push's life (its TTL) is over before its next try.
    await db.run('UPDATE push_deliveries SET expires_at = ?', [Date.now() - 1]);
    await dueNow();
    await expect.poll(() => metric('milenotes_push_failed_total{reason="expired"}')).toBe(expired + 1);
    expect(await queued()).toEqual([]);
    expect(noticesTo(sub.endpoint)).toEqual([]);
  });

  it('should send each push once when two servers share the queue', async () => {
    const other = await restartOn(t.backend, { ...pushEnv(service) });
    try {
      const entry = await t.enter(session, undefined, 'Alex');
      const sam = await phoneOpens(t.app, entry.token);
      const sub = service.subscribe();
      expect((await subscribe(other, entry.token, sam, sub)).statusCode).toBe(200);
      const notes = [];
      for (let i = 0; i < 12; i++) notes.push(await sendFrom(i % 2 ? other : t.app, sam, entry.token));
      // Every play reported, half through each server, each waking its own worker; both claim from one queue.
      await Promise.all(
        notes.map(async (noteId, i) => {
          const res = await (i % 2 ? other : t.app).inject({
            method: 'POST',
            url: `/api/notes/${noteId}/played`,
            headers: { authorization: `Bearer ${session.accessToken}` },
            payload: { playedAt: new Date().toISOString(), marker: 'mi-20' },
          });
          expect(res.statusCode).toBe(200);
        }),
      );
      await expect.poll(() => noticesTo(sub.endpoint).length).toBe(notes.length);
      await expect.poll(() => queued()).toEqual([]);
      expect(
        noticesTo(sub.endpoint)
          .map((n) => n.notification.tag)
          .sort(),
      ).toEqual(notes.map((n) => `heard:${n}`).sort());
    } finally {
      await other.close();
    }
  });
});
