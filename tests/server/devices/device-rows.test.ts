/**
 * Device rows end: a phone not seen for the cookie's 400 days goes, swept on every
 * server. A link holds DEVICE_LINK_PHONES_MAX phones, friends first: a newcomer pushes off the phone
 * that did nothing there seen longest ago (it comes back by opening the link), never one that
 * recorded, turned notifications on or asked for an alert; and it takes so many new phones an hour.
 * A token sealed for one phone's row opens nothing in another phone's. Migration 16 drops the rows
 * the adoptable cookie of migration 12 made, and migration 18 marks the phones that already took
 * part, on both databases.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import { applyMigrations, MIGRATIONS } from '../../../server/db/migrate.js';
import { DEVICE_KEY_TABLES } from '../../../server/db/migrations/16-device-keys.js';
import { FRIENDS_FIRST_COLUMNS } from '../../../server/db/migrations/18-friends-first.js';
import { createRepository } from '../../../server/db/repository.js';
import { DEVICE_LINK_PHONES_MAX, NEW_PHONES_WINDOW_MS } from '../../../server/db/device-store.js';
import { LOCAL_DEVICE_COOKIE } from '../../../server/devices/cookie.js';
import { createDevices, DEVICE_LIFE_MS, startDeviceSweep } from '../../../server/devices/index.js';
import { linkIdOf } from '../../../server/links.js';
import type { HomeScreenLinks } from '../../../contract/homeScreenApi.js';
import { BACKENDS, createBackend, type TestBackend } from '../support/backends.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { makeLink } from '../support/uploads.js';
import { deviceCookieOf } from './cookies.js';

const DAY = 24 * 3600_000;
const LIMITS = { maxPhones: DEVICE_LINK_PHONES_MAX, perWindow: 100, windowMs: NEW_PHONES_WINDOW_MS };

describe.each(BACKENDS)('device rows on %s', (kind) => {
  let t: TestApp;
  let db: Database;
  beforeAll(async () => {
    t = await startTestApp(kind);
    db = openDatabase(t.backend.config);
  });
  afterAll(async () => {
    await db.close();
    await t.close();
  });

  const devices = () => createDevices(t.app.repo, t.backend.config.auth.sessionSecret, { publicUrl: t.backend.config.publicUrl, newPhonesPerHour: 100 });
  const phonesOf = async (linkId: string) =>
    (await db.all('SELECT device_id FROM device_links WHERE link_id = ? ORDER BY device_id', [linkId])).map((r) => String(r.device_id));

  it('should sweep the rows of phones not seen for 400 days, and keep a phone seen since, whenever it opened its links', async () => {
    const linkId = linkIdOf(await makeLink(t.app.repo));
    const now = Date.now();
    const [gone, kept, seen] = [`gone-${randomUUID()}`, `kept-${randomUUID()}`, `seen-${randomUUID()}`];
    await t.app.repo.devices.remember(gone, linkId, 'sealed', now - DEVICE_LIFE_MS - DAY, LIMITS);
    await t.app.repo.devices.remember(kept, linkId, 'sealed', now - DEVICE_LIFE_MS + DAY, LIMITS);
    await t.app.repo.devices.remember(seen, linkId, 'sealed', now - DEVICE_LIFE_MS - DAY, LIMITS);
    // The installed app read its list a day ago: the phone is seen, though it opened the link long before.
    await t.app.repo.devices.seen(seen, now - DAY);
    expect(await devices().sweep(now)).toBeGreaterThanOrEqual(1);
    expect(await phonesOf(linkId)).toEqual([kept, seen].sort());
  });

  it('should sweep on its own, every everyMs of the server’s device sweep', async () => {
    const linkId = linkIdOf(await makeLink(t.app.repo));
    await t.app.repo.devices.remember(`old-${randomUUID()}`, linkId, 'sealed', Date.now() - DEVICE_LIFE_MS - DAY, LIMITS);
    const stop = startDeviceSweep(devices(), 20, t.app.log);
    try {
      await expect.poll(() => phonesOf(linkId), { timeout: 5_000 }).toEqual([]);
    } finally {
      await stop();
    }
  });

  it("should push off a full link's phone that did nothing there, seen longest ago, for a new one", async () => {
    const linkId = linkIdOf(await makeLink(t.app.repo));
    const at = Date.now() - 10 * DAY;
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((p) => `${p}-${randomUUID()}`) as [string, string, string, string];
    const three = { ...LIMITS, maxPhones: 3 };
    await t.app.repo.devices.remember(a, linkId, 'sealed', at, three);
    await t.app.repo.devices.remember(b, linkId, 'sealed', at + DAY, three);
    await t.app.repo.devices.remember(c, linkId, 'sealed', at + 2 * DAY, three);
    await t.app.repo.devices.seen(a, at + 3 * DAY);
    expect(await t.app.repo.devices.remember(d, linkId, 'sealed', at + 4 * DAY, three)).toEqual({ kind: 'on' });
    expect(await phonesOf(linkId)).toEqual([a, c, d].sort());
    // The phone pushed off opens the link again, and is in; the one seen longest ago now goes.
    await t.app.repo.devices.remember(b, linkId, 'sealed', at + 5 * DAY, three);
    expect(await phonesOf(linkId)).toEqual([a, b, d].sort());
  });

  it('should never push off a phone that took part, and tell a newcomer when every phone there did', async () => {
    const linkId = linkIdOf(await makeLink(t.app.repo));
    const at = Date.now() - 10 * DAY;
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((p) => `${p}-${randomUUID()}`) as [string, string, string, string, string];
    const three = { ...LIMITS, maxPhones: 3 };
    for (const [i, phone] of [a, b, c].entries()) await t.app.repo.devices.remember(phone, linkId, 'sealed', at + i * DAY, three);
    // a recorded (or asked to be told) and has not been seen since: it stays, the idle b goes.
    await t.app.repo.devices.tookPart(a, linkId, at + 3 * DAY);
    expect(await t.app.repo.devices.remember(d, linkId, 'sealed', at + 4 * DAY, three)).toEqual({ kind: 'on' });
    expect(await phonesOf(linkId)).toEqual([a, c, d].sort());
    for (const phone of [c, d]) await t.app.repo.devices.tookPart(phone, linkId, at + 5 * DAY);
    expect(await t.app.repo.devices.remember(e, linkId, 'sealed', at + 6 * DAY, three)).toEqual({ kind: 'full' });
    expect(await phonesOf(linkId)).toEqual([a, c, d].sort());
    expect(await t.app.repo.devices.has(e, linkId)).toBe(false);
  });

  it('should take at most perWindow new phones in any window, say when the next may come, and never push off one of the window', async () => {
    const linkId = linkIdOf(await makeLink(t.app.repo));
    const [a, b, c] = ['a', 'b', 'c'].map((p) => `${p}-${randomUUID()}`) as [string, string, string];
    const two = { ...LIMITS, maxPhones: 2, perWindow: 2 };
    const at = Date.now() - 10 * DAY;
    const minute = (m: number) => at + m * 60_000;
    expect(await t.app.repo.devices.remember(a, linkId, 'sealed', minute(0), two)).toEqual({ kind: 'on' });
    await t.app.repo.devices.tookPart(a, linkId, minute(1));
    expect(await t.app.repo.devices.remember(b, linkId, 'sealed', minute(10), two)).toEqual({ kind: 'on' });
    // Two new phones in the hour: the next may come when the first of them is an hour old.
    expect(await t.app.repo.devices.remember(c, linkId, 'sealed', minute(20), two)).toEqual({ kind: 'busy', until: minute(60) });
    // A phone on the link opens it again whatever the window holds.
    expect(await t.app.repo.devices.remember(b, linkId, 'sealed', minute(30), two)).toEqual({ kind: 'on' });
    // The window has room again, but the link is full: a took part, and the idle b came within the hour.
    expect(await t.app.repo.devices.remember(c, linkId, 'sealed', minute(65), two)).toEqual({ kind: 'busy', until: minute(70) });
    expect(await phonesOf(linkId)).toEqual([a, b].sort());
    expect(await t.app.repo.devices.remember(c, linkId, 'sealed', minute(70), two)).toEqual({ kind: 'on' });
    expect(await phonesOf(linkId)).toEqual([a, c].sort());
  });

  it("should open nothing from a sealed token copied into another phone's row", async () => {
    const token = await makeLink(t.app.repo, 'chicago-2025', 'Alex');
    const linkId = linkIdOf(token);
    const victim = deviceCookieOf((await t.app.inject({ url: `/api/r/${token}` })).headers['set-cookie'])!.value;
    const attacker = deviceCookieOf((await t.app.inject({ url: `/api/r/${await makeLink(t.app.repo, 'chicago-2025', 'Kim')}` })).headers['set-cookie'])!.value;
    const list = async (value: string) => t.app.inject({ url: '/api/device/links', headers: { cookie: `${LOCAL_DEVICE_COOKIE}=${value}` } });
    expect((await list(victim)).json<HomeScreenLinks>().links.map((l) => l.token)).toEqual([token]);
    // Someone who can write rows, but has no SESSION_SECRET, puts the victim's sealed token under the attacker's phone.
    const [row] = await db.all('SELECT sealed_token, opened_at FROM device_links WHERE link_id = ?', [linkId]);
    const [mine] = await db.all(
      'SELECT device_id FROM device_links WHERE link_id <> ? AND device_id NOT IN (SELECT device_id FROM device_links WHERE link_id = ?) ORDER BY opened_at DESC LIMIT 1',
      [linkId, linkId],
    );
    await db.run('INSERT INTO device_links (device_id, link_id, sealed_token, opened_at, seen_at) VALUES (?, ?, ?, ?, ?)', [
      mine!.device_id,
      linkId,
      row!.sealed_token,
      Date.now() + 1,
      Date.now(),
    ]);
    await db.run('UPDATE device_links SET sealed_token = ? WHERE device_id = ? AND link_id <> ?', [row!.sealed_token, mine!.device_id, linkId]);
    const answer = await list(attacker);
    expect(answer.statusCode).toBe(200);
    expect(answer.json<HomeScreenLinks>().links).toEqual([]);
    expect(answer.body).not.toContain(token);
  });
});

describe.each(BACKENDS)('migration 16 on %s', (kind) => {
  let backend: TestBackend;
  let db: Database;
  afterEach(async () => {
    await db.close();
    await backend.cleanup();
  });

  it('should drop the device links and push subscriptions the adoptable cookie made, and let phones open links again', async () => {
    backend = await createBackend(kind);
    db = openDatabase(backend.config);
    await db.exclusive((tx) => applyMigrations(tx, MIGRATIONS.slice(0, MIGRATIONS.indexOf(DEVICE_KEY_TABLES))));
    await db.run("INSERT INTO races (id, name, race_date, units) VALUES ('chicago-2025', 'Chicago Marathon', '2025-10-12', 'mi')");
    await db.run("INSERT INTO runners (id, display_name, created_at) VALUES ('r1', 'Alex', '2025-10-01T00:00:00Z')");
    await db.run("INSERT INTO links (id, runner_id, race_id, created_at) VALUES ('l1', 'r1', 'chicago-2025', '2025-10-01T00:00:00Z')");
    await db.run("INSERT INTO device_links (device_id, link_id, sealed_token, opened_at) VALUES ('planted', 'l1', 'sealed-by-link-only', 1)");
    await db.run(
      "INSERT INTO push_subscriptions (id, device_id, link_id, endpoint, p256dh, auth, lang, heard, sealed_token, created_at, updated_at) VALUES ('s1', 'planted', 'l1', 'https://push.example/x', 'k', 'a', 'en', 1, 'sealed', 1, 1)",
    );
    await db.run("INSERT INTO push_alerts (subscription_id, marker, due_at, fired_at, created_at) VALUES ('s1', 'mi-13', 1, NULL, 1)");
    await db.run(
      "INSERT INTO push_deliveries (id, subscription_id, kind, ref, note_id, marker, attempts, due_at, expires_at, locked_until, lease_owner, created_at) VALUES ('s1:alert:mi-13', 's1', 'alert', 'mi-13', NULL, 'mi-13', 0, 1, 2, 0, NULL, 1)",
    );

    const repo = createRepository(db);
    await repo.migrate();
    const count = async (table: string) => Number((await db.all(`SELECT COUNT(*) AS n FROM ${table}`))[0]!.n);
    expect([await count('device_links'), await count('push_subscriptions'), await count('push_alerts'), await count('push_deliveries')]).toEqual([0, 0, 0, 0]);
    expect(await repo.links.find('l1')).toMatchObject({ runnerName: 'Alex' });
    await repo.devices.remember('phone', 'l1', 'sealed', 5, LIMITS);
    expect(await repo.devices.has('phone', 'l1')).toBe(true);
  });
});

describe.each(BACKENDS)('migration 18 on %s', (kind) => {
  let backend: TestBackend;
  let db: Database;
  afterEach(async () => {
    await db.close();
    await backend.cleanup();
  });

  it('should count the phones that already sent a note or hold a subscription on a link among its friends, and every earlier phone as come long ago', async () => {
    backend = await createBackend(kind);
    db = openDatabase(backend.config);
    await db.exclusive((tx) => applyMigrations(tx, MIGRATIONS.slice(0, MIGRATIONS.indexOf(FRIENDS_FIRST_COLUMNS))));
    await db.run("INSERT INTO races (id, name, race_date, units) VALUES ('chicago-2025', 'Chicago Marathon', '2025-10-12', 'mi')");
    await db.run("INSERT INTO runners (id, display_name, created_at) VALUES ('r1', 'Alex', '2025-10-01T00:00:00Z')");
    for (const link of ['l1', 'l2'])
      await db.run("INSERT INTO links (id, runner_id, race_id, created_at) VALUES (?, 'r1', 'chicago-2025', '2025-10-01T00:00:00Z')", [link]);
    for (const [device, link] of [
      ['sender', 'l1'],
      ['sender', 'l2'],
      ['subscriber', 'l1'],
      ['idle', 'l1'],
    ]) {
      await db.run('INSERT INTO device_links (device_id, link_id, sealed_token, opened_at, seen_at) VALUES (?, ?, ?, 7, 7)', [device, link, 'sealed']);
    }
    await db.run(
      "INSERT INTO notes (id, link_id, marker, sender, content_type, bytes, sha256, original_key, received_at, status, device_id) VALUES ('n1', 'l1', 'mi-13', 'Sam', 'audio/webm', 1, 'x', 'k', '2025-10-01T00:00:00Z', 'received', 'sender')",
    );
    await db.run(
      "INSERT INTO push_subscriptions (id, device_id, link_id, endpoint, p256dh, auth, lang, heard, sealed_token, created_at, updated_at) VALUES ('s1', 'subscriber', 'l1', 'https://push.example/x', 'k', 'a', 'en', 1, 'sealed', 1, 1)",
    );

    await createRepository(db).migrate();
    const rows = await db.all('SELECT device_id, link_id, joined_at, took_part_at FROM device_links ORDER BY device_id, link_id');
    expect(rows.map((r) => [r.device_id, r.link_id, Number(r.joined_at), r.took_part_at === null ? null : Number(r.took_part_at)])).toEqual([
      ['idle', 'l1', 0, null],
      ['sender', 'l1', 0, 7],
      ['sender', 'l2', 0, null],
      ['subscriber', 'l1', 0, 7],
    ]);
  });
});
