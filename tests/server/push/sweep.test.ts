/**
 * Push rows that end: a race's marker alerts go once the race is over; a subscription
 * goes once it has taken no push, nor been saved again by its phone, for SUBSCRIPTION_IDLE_DAYS
 * counted from its race's end at the earliest, with its alerts and waiting pushes. Rows within their
 * life stay. Swept by every server at its start and then hourly.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import type { Repository } from '../../../server/db/repository.js';
import { SUBSCRIPTION_IDLE_DAYS, sweepPush } from '../../../server/push/sweep.js';
import { localSchedule } from '../../../contract/raceClock.js';
import { restartOn, startTestApp, type TestApp } from '../support/app.js';
import { BACKENDS } from '../support/backends.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const IDLE = SUBSCRIPTION_IDLE_DAYS * DAY;

describe.each(BACKENDS)('the push sweep on %s', (kind) => {
  let t: TestApp | undefined;
  let db: Database | undefined;
  afterEach(async () => {
    await db?.close();
    await t?.close();
    db = undefined;
    t = undefined;
  });

  async function open() {
    // The sweeps below count what they remove: no sweep of the server's own (push on) runs beside them.
    t = await startTestApp(kind, { PUSH: 'off' });
    db = openDatabase(t.backend.config);
    return { repo: t.app.repo, db };
  }

  /** A race that started at `startsAt` with one entry and its link; the link's id. */
  async function raceWithLink(repo: Repository, startsAt: number): Promise<string> {
    const id = `sweep-${randomUUID().slice(0, 8)}`;
    await repo.races.add({ id, name: `Race ${id}`, units: ['mi'], ...localSchedule(startsAt, 'UTC'), timezone: 'UTC' });
    const account = await repo.accounts.forAppleSub(id, new Date().toISOString());
    const linkId = `link-${id}`;
    await repo.entries.create({ id: `entry-${id}`, accountId: account.id, raceId: id, displayName: 'Alex', linkId, createdAt: new Date().toISOString() });
    return linkId;
  }

  /** A phone's subscription on the link, saved at `savedAt`, with an alert on Mile 20; its id. */
  async function subscription(repo: Repository, linkId: string, savedAt: number, opts: { pushedAt?: number; queued?: boolean } = {}) {
    const deviceId = randomUUID();
    const saved = await repo.push.subscribe(
      {
        deviceId,
        linkId,
        endpoint: `https://push.example/${deviceId}`,
        p256dh: 'p',
        auth: 'a',
        lang: 'en',
        heard: true,
        sealedToken: 's',
        at: savedAt,
      },
      { perLink: 500, perPhone: 20 },
    );
    expect(saved).toBe('saved');
    const { id } = (await repo.push.subscription(deviceId, linkId))!;
    await repo.push.setAlert(id, 'mi-20', savedAt + HOUR, savedAt);
    if (opts.pushedAt !== undefined) await repo.push.tookPush(id, opts.pushedAt);
    // A push waiting to be sent (its own alert on the finish, fired): it goes with its subscription.
    if (opts.queued) {
      await repo.push.setAlert(id, 'finish', savedAt + HOUR, savedAt);
      expect(await repo.push.fireAlerts(linkId, 'finish', savedAt, savedAt + 600_000)).toBe(1);
    }
    return id;
  }

  const subscriptions = async (sql: Database) => new Set((await sql.all('SELECT id FROM push_subscriptions')).map((r) => String(r.id)));
  const alertsOf = async (sql: Database) => new Set((await sql.all('SELECT subscription_id FROM push_alerts')).map((r) => String(r.subscription_id)));
  const timedLinks = async (sql: Database) => new Set((await sql.all('SELECT link_id FROM push_alert_times')).map((r) => String(r.link_id)));
  const queuedFor = async (sql: Database) => new Set((await sql.all('SELECT subscription_id FROM push_deliveries')).map((r) => String(r.subscription_id)));

  it("should remove a race's alerts once it is over, and keep those of a race live or to come", async () => {
    const { repo, db } = await open();
    const now = Date.now();
    const justOver = await subscription(repo, await raceWithLink(repo, now - 8 * HOUR - 60_000), now - HOUR);
    const firedOver = await subscription(repo, await raceWithLink(repo, now - 9 * HOUR), now - HOUR, { queued: true });
    const liveLink = await raceWithLink(repo, now - 7 * HOUR);
    const live = await subscription(repo, liveLink, now - HOUR);
    const upcomingLink = await raceWithLink(repo, now + 30 * DAY);
    const upcoming = await subscription(repo, upcomingLink, now - 90 * DAY);

    expect(await sweepPush(repo, now)).toEqual({ alerts: 3, subscriptions: 0 });
    expect(await alertsOf(db)).toEqual(new Set([live, upcoming]));
    // When they were due goes with them.
    expect(await timedLinks(db)).toEqual(new Set([liveLink, upcomingLink]));
    // The subscriptions stay: their phones may still hear of notes played after the race.
    expect(await subscriptions(db)).toEqual(new Set([justOver, firedOver, live, upcoming]));
    expect(await sweepPush(repo, now)).toEqual({ alerts: 0, subscriptions: 0 });
  });

  it(`should remove a subscription that took no push and was not saved again for ${SUBSCRIPTION_IDLE_DAYS} days after its race, with its pushes`, async () => {
    const { repo, db } = await open();
    const now = Date.now();
    const longOver = await raceWithLink(repo, now - IDLE - 9 * HOUR);
    const idle = await subscription(repo, longOver, now - IDLE - DAY, { queued: true });
    const pushedLongAgo = await subscription(repo, longOver, now - 90 * DAY, { pushedAt: now - IDLE - 60_000 });
    const pushedLately = await subscription(repo, longOver, now - 90 * DAY, { pushedAt: now - IDLE + HOUR });
    const savedLately = await subscription(repo, longOver, now - IDLE + HOUR);
    // Its race ended within the idle time: kept, however long ago it was saved.
    const recentRace = await subscription(repo, await raceWithLink(repo, now - IDLE + DAY), now - 200 * DAY);
    // Saved months before a race still to come: kept until that race has been over long enough.
    const upcoming = await subscription(repo, await raceWithLink(repo, now + 60 * DAY), now - 200 * DAY);
    expect(await queuedFor(db)).toEqual(new Set([idle]));
    expect(await subscriptions(db)).toEqual(new Set([idle, pushedLongAgo, pushedLately, savedLately, recentRace, upcoming]));

    expect(await sweepPush(repo, now)).toEqual({ alerts: 6, subscriptions: 2 });
    expect(await subscriptions(db)).toEqual(new Set([pushedLately, savedLately, recentRace, upcoming]));
    expect(await queuedFor(db)).toEqual(new Set());
    expect(await alertsOf(db)).toEqual(new Set([upcoming]));
  });

  it('should sweep when a server starts', async () => {
    const { repo, db } = await open();
    const now = Date.now();
    const gone = await subscription(repo, await raceWithLink(repo, now - IDLE - 2 * DAY), now - IDLE - 2 * DAY);
    const kept = await subscription(repo, await raceWithLink(repo, now - HOUR), now - HOUR);
    expect(await subscriptions(db)).toEqual(new Set([gone, kept]));
    const second = await restartOn(t!.backend, { PUSH: 'on' });
    try {
      await expect.poll(() => subscriptions(db)).toEqual(new Set([kept]));
    } finally {
      await second.close();
    }
  });
});
