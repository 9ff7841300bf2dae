/**
 * "Tell me when Alex is about 10 minutes from Mile 14": a spectator's alert, from the
 * estimate the recorder shows, only while the runner shares progress in a live race. Asked while the
 * marker is further off; fired once, by push, when a position batch brings the estimate within ten
 * minutes; never for a marker passed, nor while sharing is off; refused with a code when there is no
 * estimate, the marker is passed or already near.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/driver.js';
import type { Repository } from '../../../server/db/repository.js';
import { openDatabase } from '../../../server/db/index.js';
import { createMarkerAlerts } from '../../../server/push/alerts.js';
import type { DeclarativePush } from '../../../contract/push.js';
import type { Session } from '../../../contract/runnerApi.js';
import { startPushService, type PushServiceStandIn } from '../../../stand-ins/pushService.js';
import { BACKENDS } from '../support/backends.js';
import { positionAt, startRace } from '../support/live-race.js';
import { phoneOpens, pushEnv, subscribe, trustPushService } from '../support/push.js';
import { UPCOMING } from '../support/races.js';
import { PUBLIC_URL, startRunnerApp, type RunnerTestApp } from '../runner/support.js';

const MILE = 1609.344;
const MINUTE = 60_000;

/** The repository with each store method's calls counted by name ('push.followEstimate'). */
function counted(repo: Repository): { repo: Repository; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const wrapped = Object.fromEntries(
    Object.entries(repo).map(([name, store]) => [
      name,
      typeof store !== 'object'
        ? store
        : Object.fromEntries(
            Object.entries(store as Record<string, unknown>).map(([m, f]) => [
              m,
              typeof f !== 'function'
                ? f
                : (...args: unknown[]) => {
                    calls.set(`${name}.${m}`, (calls.get(`${name}.${m}`) ?? 0) + 1);
                    return (f as (...a: unknown[]) => unknown).apply(store, args);
                  },
            ]),
          ),
    ]),
  );
  return { repo: wrapped as unknown as Repository, calls };
}

describe.each(BACKENDS)('marker alerts on %s', (kind) => {
  let service: PushServiceStandIn;
  let untrust: () => void;
  let t: RunnerTestApp;
  let db: Database;
  let session: Session;
  let start: number;
  beforeAll(async () => {
    service = await startPushService();
    untrust = trustPushService(service);
    t = await startRunnerApp(kind, pushEnv(service));
    db = openDatabase(t.backend.config);
    session = await t.signIn();
    start = await startRace(t.app.repo, UPCOMING.chicago.id, 100);
  });
  afterAll(async () => {
    await db?.close();
    await t?.close();
    untrust?.();
    await service?.close();
  });

  /** Fixes each minute from `fromMinute` to `toMinute` after the start, from `fromMiles` at `minutesPerMile`. */
  const run = (fromMinute: number, toMinute: number, fromMiles: number, minutesPerMile: number) =>
    Array.from({ length: toMinute - fromMinute + 1 }, (_, i) => positionAt((fromMiles + i / minutesPerMile) * MILE, start + (fromMinute + i) * MINUTE));

  /**
   * A runner sharing progress whose first 40 minutes (4 miles at 10 min/mile) are in: it is 60
   * minutes later now, so Mile 14 is expected about 40 minutes from now. A spectator's phone is
   * subscribed on the link.
   */
  async function runnerAndSpectator(name: string) {
    const entry = await t.enter(session, UPCOMING.chicago.id, name);
    expect((await t.call(session, 'PATCH', `/api/entries/${entry.id}`, { shareProgress: true })).statusCode).toBe(200);
    const posted = await t.call(session, 'POST', `/api/entries/${entry.id}/positions`, { positions: run(0, 40, 0, 10) });
    expect(posted.json().progress.lastMarker.id).toBe('mi-4');
    const phone = await phoneOpens(t.app, entry.token);
    const sub = service.subscribe();
    expect((await subscribe(t.app, entry.token, phone, sub, { heard: false, lang: 'de' })).statusCode).toBe(200);
    const ask = (marker: string) => t.app.inject({ method: 'PUT', url: `/api/r/${entry.token}/push/alerts/${marker}`, headers: { cookie: phone } });
    return { entry, phone, sub, ask };
  }
  const noticesTo = (endpoint: string) =>
    service
      .received()
      .filter((p) => p.endpoint === endpoint)
      .map((p) => JSON.parse(p.text) as DeclarativePush);

  it('should push once when a batch brings the runner within about ten minutes of the marker, and never for a marker passed', async () => {
    const { entry, phone, sub, ask } = await runnerAndSpectator('Alex');
    expect((await ask('mi-14')).json()).toMatchObject({ alerts: [{ marker: 'mi-14', sent: false }] });
    expect((await ask('mi-13')).statusCode).toBe(200);
    expect(await createMarkerAlerts(t.app.repo).fireDue(Date.now())).toBe(0);

    // The next hour at 6:40 a mile: 13 miles and a bit, past Mile 13, under a mile from Mile 14.
    const batch = await t.call(session, 'POST', `/api/entries/${entry.id}/positions`, { positions: run(40, 99, 4, 6.5).slice(1) });
    expect(batch.json().progress.lastMarker.id).toBe('mi-13');
    await expect
      .poll(() => noticesTo(sub.endpoint))
      .toEqual([
        {
          web_push: 8030,
          app_badge: 1,
          notification: {
            title: 'Alex ist etwa 10 Minuten von Meile 14 entfernt',
            navigate: `${PUBLIC_URL}/r/${entry.token}`,
            lang: 'de',
            dir: 'auto',
            tag: expect.stringMatching(/^soon:.+:mi-14$/),
            silent: false,
          },
        },
      ]);
    expect(service.received().find((p) => p.endpoint === sub.endpoint)).toMatchObject({ ttl: 600, urgency: 'high' });

    // Fired once; the passed marker's alert is gone unsent.
    expect((await t.app.inject({ url: `/api/r/${entry.token}/push`, headers: { cookie: phone } })).json().alerts).toEqual([{ marker: 'mi-14', sent: true }]);
    const again = await t.call(session, 'POST', `/api/entries/${entry.id}/positions`, { positions: [positionAt(13.2 * MILE, Date.now() - 1000)] });
    expect(again.statusCode).toBe(200);
    expect(await createMarkerAlerts(t.app.repo).fireDue(Date.now())).toBe(0);
    expect(noticesTo(sub.endpoint)).toHaveLength(1);
  });

  it("should follow a batch with one estimate and one write for the link, whatever its phones' alerts, each due the lead before the estimate", async () => {
    const { entry, sub, ask } = await runnerAndSpectator('Robin');
    expect((await ask('mi-14')).statusCode).toBe(200);
    expect((await ask('mi-20')).statusCode).toBe(200);
    const endpoints = [sub.endpoint];
    for (let i = 0; i < 3; i++) {
      const phone = await phoneOpens(t.app, entry.token);
      const other = service.subscribe();
      endpoints.push(other.endpoint);
      expect((await subscribe(t.app, entry.token, phone, other, { heard: false })).statusCode).toBe(200);
      for (const marker of ['mi-14', 'mi-20', 'finish']) {
        const res = await t.app.inject({ method: 'PUT', url: `/api/r/${entry.token}/push/alerts/${marker}`, headers: { cookie: phone } });
        expect(res.statusCode).toBe(200);
      }
    }
    // Ten more minutes in, a little slower: every estimate moves.
    const moved = await t.call(session, 'POST', `/api/entries/${entry.id}/positions`, { positions: run(41, 50, 4.1, 11).slice(1) });
    expect(moved.statusCode).toBe(200);
    const { repo, calls } = counted(t.app.repo);
    await createMarkerAlerts(repo).positionsMoved(entry.id, Date.now());
    expect(Object.fromEntries(calls)).toEqual({
      'push.linksWithOpenAlerts': 1,
      'links.find': 1,
      'progress.sharedThroughLink': 1,
      'push.followEstimate': 1,
    });

    const estimates = (await t.app.inject({ url: `/api/r/${entry.token}` })).json().estimates.markers as Array<{ id: string; at: string }>;
    const expected = (marker: string) => Date.parse(estimates.find((m) => m.id === marker)!.at) - 10 * MINUTE;
    const rows = await db.all(
      'SELECT a.marker, t.due_at FROM push_alerts a JOIN push_subscriptions s ON s.id = a.subscription_id ' +
        `LEFT JOIN push_alert_times t ON t.link_id = s.link_id AND t.marker = a.marker WHERE s.endpoint IN (${endpoints.map(() => '?').join(', ')})`,
      endpoints,
    );
    expect(rows).toHaveLength(2 + 3 * 3);
    expect(rows.map((r) => [String(r.marker), Number(r.due_at)])).toEqual(rows.map((r) => [String(r.marker), expected(String(r.marker))]));
  });

  it('should not fire while the runner does not share progress, and keep the alert for when they do again', async () => {
    const { entry, sub, ask } = await runnerAndSpectator('Kim');
    expect((await ask('mi-14')).statusCode).toBe(200);
    expect((await t.call(session, 'PATCH', `/api/entries/${entry.id}`, { shareProgress: false })).statusCode).toBe(200);
    // Time compressed: the alert is due now.
    await db.run('UPDATE push_alert_times SET due_at = 0 WHERE link_id IN (SELECT link_id FROM push_subscriptions WHERE endpoint = ?)', [sub.endpoint]);
    expect(await createMarkerAlerts(t.app.repo).fireDue(Date.now())).toBe(0);
    expect(Number((await db.all('SELECT COUNT(*) AS n FROM push_deliveries')).at(0)!.n)).toBe(0);
    const [alert] = await db.all(
      'SELECT t.due_at, a.fired_at FROM push_alerts a JOIN push_subscriptions s ON s.id = a.subscription_id ' +
        'LEFT JOIN push_alert_times t ON t.link_id = s.link_id AND t.marker = a.marker WHERE s.endpoint = ?',
      [sub.endpoint],
    );
    expect(alert!.fired_at).toBeNull();
    expect(Number(alert!.due_at)).toBeGreaterThan(Date.now());
    expect(noticesTo(sub.endpoint)).toEqual([]);
  });

  it('should refuse an alert without an estimate, for a marker passed or already near, or without a subscription', async () => {
    const { entry, phone, ask } = await runnerAndSpectator('Jo');
    expect((await ask('mi-3')).json().error).toBe('marker_passed');
    // Mile 5 was due at the 50th minute, ten minutes ago by the estimate: too near for "ten minutes from".
    expect((await ask('mi-5')).json().error).toBe('marker_too_near');
    const km = await ask('km-20');
    expect([km.statusCode, km.json().error]).toEqual([400, 'unknown_marker']);
    const stranger = await phoneOpens(t.app, entry.token);
    expect((await t.app.inject({ method: 'PUT', url: `/api/r/${entry.token}/push/alerts/mi-14`, headers: { cookie: stranger } })).json().error).toBe(
      'push_not_subscribed',
    );
    expect((await t.call(session, 'PATCH', `/api/entries/${entry.id}`, { shareProgress: false })).statusCode).toBe(200);
    const unshared = await ask('mi-14');
    expect([unshared.statusCode, unshared.json().error]).toEqual([409, 'progress_not_shared']);

    // Asked, then no longer wanted.
    expect((await t.call(session, 'PATCH', `/api/entries/${entry.id}`, { shareProgress: true })).statusCode).toBe(200);
    expect((await ask('mi-14')).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/r/${entry.token}/push/alerts/mi-14`, headers: { cookie: phone } })).statusCode).toBe(204);
    expect((await t.app.inject({ url: `/api/r/${entry.token}/push`, headers: { cookie: phone } })).json().alerts).toEqual([]);
  });
});
