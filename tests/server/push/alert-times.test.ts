/**
 * Marker alerts due per link and marker (migration 17): every phone's alert on a link
 * follows one time; the poll fires them in one transaction, each queued once even when two servers
 * fire at once; a time whose alerts all went is dropped when it comes due; and a database from
 * before keeps its waiting alerts' times.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import { applyMigrations, MIGRATIONS } from '../../../server/db/migrate.js';
import { PUSH_TIMES_TABLES } from '../../../server/db/migrations/17-push-times.js';
import { createRepository, type Repository } from '../../../server/db/repository.js';
import { createMarkerAlerts } from '../../../server/push/alerts.js';
import { localSchedule } from '../../../contract/raceClock.js';
import { BACKENDS, createBackend, type TestBackend } from '../support/backends.js';

const HOUR = 3600_000;

describe.each(BACKENDS)('alerts due per link and marker on %s', (kind) => {
  let backend: TestBackend | undefined;
  let db: Database | undefined;
  afterEach(async () => {
    await db?.close();
    await backend?.cleanup();
    db = undefined;
    backend = undefined;
  });

  async function open(migrated = true): Promise<{ repo: Repository; db: Database }> {
    backend = await createBackend(kind);
    db = openDatabase(backend.config);
    const repo = createRepository(db);
    if (migrated) await repo.migrate();
    return { repo, db };
  }

  /** A race that started `startedAgo` ms ago with an entry and its link; the link's id. */
  async function link(repo: Repository, startedAgo: number): Promise<string> {
    const id = `times-${randomUUID().slice(0, 8)}`;
    await repo.races.add({ id, name: `Race ${id}`, units: ['mi'], ...localSchedule(Date.now() - startedAgo, 'UTC'), timezone: 'UTC' });
    const account = await repo.accounts.forAppleSub(id, new Date().toISOString());
    await repo.entries.create({
      id: `entry-${id}`,
      accountId: account.id,
      raceId: id,
      displayName: 'Alex',
      linkId: `link-${id}`,
      createdAt: new Date().toISOString(),
    });
    return `link-${id}`;
  }

  async function phone(repo: Repository, linkId: string): Promise<string> {
    const deviceId = randomUUID();
    expect(
      await repo.push.subscribe(
        {
          deviceId,
          linkId,
          endpoint: `https://push.example/${deviceId}`,
          p256dh: 'p',
          auth: 'a',
          lang: 'en',
          heard: false,
          sealedToken: 's',
          at: Date.now(),
        },
        { perLink: 500, perPhone: 20 },
      ),
    ).toBe('saved');
    return (await repo.push.subscription(deviceId, linkId))!.id;
  }

  const times = async (sql: Database) =>
    (await sql.all('SELECT link_id, marker, due_at FROM push_alert_times ORDER BY link_id, marker')).map((r) => [
      String(r.link_id),
      String(r.marker),
      Number(r.due_at),
    ]);
  const queued = async (sql: Database) =>
    (await sql.all("SELECT subscription_id FROM push_deliveries WHERE kind = 'soon'")).map((r) => String(r.subscription_id)).sort();

  it("should keep one time per link and marker, the latest asked, and fire every phone's alert there once, even from two servers at once", async () => {
    const { repo, db } = await open();
    const linkId = await link(repo, HOUR);
    const phones = await Promise.all(Array.from({ length: 5 }, () => phone(repo, linkId)));
    const at = Date.now();
    for (const [i, id] of phones.entries()) await repo.push.setAlert(id, 'mi-20', at + i * 1000, at);
    await repo.push.setAlert(phones[0]!, 'mi-21', at + 60_000, at);
    expect(await times(db)).toEqual([
      [linkId, 'mi-20', at + 4000],
      [linkId, 'mi-21', at + 60_000],
    ]);
    expect(await repo.push.dueAlerts(at + 4000, 50)).toEqual([{ linkId, marker: 'mi-20', dueAt: at + 4000 }]);

    const fired = await Promise.all([repo.push.fireAlerts(linkId, 'mi-20', at, at + 600_000), repo.push.fireAlerts(linkId, 'mi-20', at, at + 600_000)]);
    expect(fired.sort()).toEqual([0, 5]);
    expect(await queued(db)).toEqual([...phones].sort());
    expect(await times(db)).toEqual([[linkId, 'mi-21', at + 60_000]]);
    expect(await repo.push.alertsOf(phones[1]!, linkId)).toEqual([{ marker: 'mi-20', dueAt: null, firedAt: at }]);

    // Asked again once fired: it stays fired, and no time comes back for it.
    await repo.push.setAlert(phones[1]!, 'mi-20', at + HOUR, at);
    expect(await times(db)).toEqual([[linkId, 'mi-21', at + 60_000]]);
  });

  it('should drop the time of alerts all removed when it comes due, firing nothing', async () => {
    const { repo, db } = await open();
    // A race over: whatever is due on its link goes unsent.
    const linkId = await link(repo, 9 * HOUR);
    const [kept, removed] = [await phone(repo, linkId), await phone(repo, linkId)];
    await repo.push.setAlert(removed, 'mi-20', Date.now() - 1000, Date.now());
    expect(await repo.push.removeAlert(removed, 'mi-20')).toBe(true);
    expect(await times(db)).toHaveLength(1);
    expect(await createMarkerAlerts(repo).fireDue(Date.now())).toBe(0);
    expect(await times(db)).toEqual([]);
    expect(await queued(db)).toEqual([]);

    await repo.push.setAlert(kept, 'mi-21', Date.now() - 1000, Date.now());
    await repo.push.removeAlerts(linkId, 'mi-21');
    expect([await times(db), await repo.push.alertsOf(kept, linkId)]).toEqual([[], []]);
  });

  it('should give the waiting alerts of a database from before their link and marker times, the earliest of each', async () => {
    const { repo, db } = await open(false);
    await db.exclusive((tx) => applyMigrations(tx, MIGRATIONS.slice(0, MIGRATIONS.indexOf(PUSH_TIMES_TABLES))));
    await db.run("INSERT INTO runners (id, display_name, created_at) VALUES ('r1', 'Alex', '2099-01-01T00:00:00Z')");
    await db.run(
      "INSERT INTO races (id, name, race_date, units, time_zone, local_start, starts_at) VALUES ('x-2099', 'X', '2099-10-11', 'mi', 'UTC', '07:30', '2099-10-11T07:30:00.000Z')",
    );
    await db.run("INSERT INTO links (id, runner_id, race_id, created_at) VALUES ('l1', 'r1', 'x-2099', '2099-01-01T00:00:00Z')");
    const sub = (id: string) =>
      db.run(
        "INSERT INTO push_subscriptions (id, device_id, link_id, endpoint, p256dh, auth, lang, heard, sealed_token, created_at, updated_at) VALUES (?, ?, 'l1', 'https://push.example/x', 'p', 'a', 'en', 0, 's', 0, 0)",
        [id, `d-${id}`],
      );
    await sub('s1');
    await sub('s2');
    const alert = (s: string, marker: string, due: number, fired: number | null) =>
      db!.run('INSERT INTO push_alerts (subscription_id, marker, due_at, fired_at, created_at) VALUES (?, ?, ?, ?, 0)', [s, marker, due, fired]);
    await alert('s1', 'mi-20', 5000, null);
    await alert('s2', 'mi-20', 4000, null);
    await alert('s1', 'mi-21', 7000, 100);

    await repo.migrate();
    expect(await times(db)).toEqual([['l1', 'mi-20', 4000]]);
    expect((await db.all('SELECT last_pushed_at FROM push_subscriptions')).map((r) => r.last_pushed_at)).toEqual([null, null]);
    expect(await repo.push.dueAlerts(4000, 50)).toEqual([{ linkId: 'l1', marker: 'mi-20', dueAt: 4000 }]);
  });
});
