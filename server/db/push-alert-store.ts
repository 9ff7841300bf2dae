/**
 * Owns spectators' marker alerts (migrations 13 and 17): each phone's asks (`push_alerts`: waiting,
 * or fired once) and when the alerts of one link on one marker are due (`push_alert_times`, one row
 * however many phones asked, since they all follow that link's runner). A position batch writes a
 * link's times, never each alert; the poll fires a link's alerts on a marker in one transaction.
 * Every waiting alert has its time row (made with the ask); a time row whose alerts all went is
 * dropped when it comes due. Part of the push store (./push-store.ts); the pushes a firing queues are
 * the queue's (./push-queue-store.ts).
 */
import type { SqlDriver, Statement } from './driver.js';
import { queueAlertPushes } from './push-queue-store.js';

export interface PushAlertRow {
  marker: string;
  /** When the estimate says the runner is the alert's lead from the marker (epoch ms); null once fired. */
  dueAt: number | null;
  /** When it was fired, or null while it waits. */
  firedAt: number | null;
}

/** The waiting alerts of one link on one marker, due at one time. */
export interface OpenAlert {
  linkId: string;
  marker: string;
  dueAt: number;
}

export interface PushAlertStore {
  /** Asks for an alert (again): a waiting one, and every other on the link and marker, take the new due time; a fired one stays fired. */
  setAlert(subscriptionId: string, marker: string, dueAt: number, at: number): Promise<void>;
  removeAlert(subscriptionId: string, marker: string): Promise<boolean>;
  /** A subscription's alerts, the first asked first. */
  alertsOf(subscriptionId: string, linkId: string): Promise<PushAlertRow[]>;
  /** The links of an entry (its runner's) with alerts waiting. */
  linksWithOpenAlerts(entryId: string): Promise<string[]>;
  /**
   * The link's waiting alerts follow a new estimate, in one transaction: those on a marker in `due`
   * take its due time (one row per marker, written by one statement), the others (markers passed) go.
   * An empty `due` removes them all.
   */
  followEstimate(linkId: string, due: ReadonlyMap<string, number>): Promise<void>;
  /** Alerts due by `now`, by link and marker, the earliest first, at most `limit`. */
  dueAlerts(now: number, limit: number): Promise<OpenAlert[]>;
  /** The link's alerts on the marker are due at `dueAt` instead. */
  moveAlerts(linkId: string, marker: string, dueAt: number): Promise<void>;
  /**
   * Marks the link's waiting alerts on the marker fired and queues their pushes, in one transaction;
   * resolves to how many. Alerts another server fired meanwhile are not queued again.
   */
  fireAlerts(linkId: string, marker: string, now: number, expiresAt: number): Promise<number>;
  /** The link's waiting alerts on the marker go unsent (passed, race over, link revoked). */
  removeAlerts(linkId: string, marker: string): Promise<void>;
  /** The alerts (waiting or fired) of races that started before `startedBefore` (ISO): over. Resolves to how many. */
  sweepAlerts(startedBefore: string): Promise<number>;
}

const WAITING_OF_LINK = 'fired_at IS NULL AND subscription_id IN (SELECT id FROM push_subscriptions WHERE link_id = ?)';
const RACES_OVER = 'SELECT l.id FROM links l JOIN races r ON r.id = l.race_id WHERE r.starts_at < ?';

const SQL = {
  setAlert:
    'INSERT INTO push_alerts (subscription_id, marker, due_at, fired_at, created_at) VALUES (?, ?, ?, NULL, ?) ' +
    'ON CONFLICT (subscription_id, marker) DO UPDATE SET due_at = excluded.due_at WHERE push_alerts.fired_at IS NULL',
  setTime:
    'INSERT INTO push_alert_times (link_id, marker, due_at) SELECT s.link_id, ?, ? FROM push_subscriptions s ' +
    'JOIN push_alerts a ON a.subscription_id = s.id AND a.marker = ? WHERE s.id = ? AND a.fired_at IS NULL ' +
    'ON CONFLICT (link_id, marker) DO UPDATE SET due_at = excluded.due_at',
  removeAlert: 'DELETE FROM push_alerts WHERE subscription_id = ? AND marker = ?',
  alertsOf:
    'SELECT a.marker, a.fired_at, t.due_at FROM push_alerts a LEFT JOIN push_alert_times t ON t.link_id = ? AND t.marker = a.marker ' +
    'WHERE a.subscription_id = ? ORDER BY a.created_at, a.marker',
  linksWithOpenAlerts:
    'SELECT DISTINCT t.link_id FROM entries e JOIN links l ON l.runner_id = e.runner_id JOIN push_alert_times t ON t.link_id = l.id WHERE e.id = ? ORDER BY t.link_id',
  timesOf: 'SELECT marker FROM push_alert_times WHERE link_id = ?',
  dueAlerts: 'SELECT link_id, marker, due_at FROM push_alert_times WHERE due_at <= ? ORDER BY due_at, link_id, marker LIMIT ?',
  moveAlerts: 'UPDATE push_alert_times SET due_at = ? WHERE link_id = ? AND marker = ?',
  fireAlerts: `UPDATE push_alerts SET fired_at = ? WHERE ${WAITING_OF_LINK} AND marker = ? RETURNING subscription_id`,
  removeAlerts: `DELETE FROM push_alerts WHERE ${WAITING_OF_LINK} AND marker = ?`,
  removeTime: 'DELETE FROM push_alert_times WHERE link_id = ? AND marker = ?',
  sweepAlerts: `DELETE FROM push_alerts WHERE subscription_id IN (SELECT s.id FROM push_subscriptions s WHERE s.link_id IN (${RACES_OVER}))`,
  sweepTimes: `DELETE FROM push_alert_times WHERE link_id IN (${RACES_OVER})`,
} as const;

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** What followEstimate runs, knowing the markers the link has times for. */
function followStatements(linkId: string, timed: readonly string[], due: ReadonlyMap<string, number>): Statement[] {
  const passed = timed.filter((m) => !due.has(m));
  const ahead = timed.filter((m) => due.has(m));
  const statements: Statement[] = [];
  if (passed.length > 0) {
    statements.push([`DELETE FROM push_alerts WHERE ${WAITING_OF_LINK} AND marker IN (${marks(passed.length)})`, [linkId, ...passed]]);
    statements.push([`DELETE FROM push_alert_times WHERE link_id = ? AND marker IN (${marks(passed.length)})`, [linkId, ...passed]]);
  }
  if (ahead.length > 0) {
    // CAST: PostgreSQL gives a bare parameter in a CASE the type text, which a BIGINT column refuses.
    const cases = ahead.map(() => 'WHEN ? THEN CAST(? AS BIGINT)').join(' ');
    statements.push([
      `UPDATE push_alert_times SET due_at = CASE marker ${cases} END WHERE link_id = ? AND marker IN (${marks(ahead.length)})`,
      [...ahead.flatMap((m) => [m, Math.round(due.get(m)!)]), linkId, ...ahead],
    ]);
  }
  return statements;
}

export function createPushAlertStore(sql: SqlDriver): PushAlertStore {
  return {
    async setAlert(subscriptionId, marker, dueAt, at) {
      const due = Math.round(dueAt);
      await sql.batch([
        [SQL.setAlert, [subscriptionId, marker, due, at]],
        [SQL.setTime, [marker, due, marker, subscriptionId]],
      ]);
    },
    async removeAlert(subscriptionId, marker) {
      return (await sql.run(SQL.removeAlert, [subscriptionId, marker])) > 0;
    },
    async alertsOf(subscriptionId, linkId) {
      return (await sql.all(SQL.alertsOf, [linkId, subscriptionId])).map((a) => {
        const firedAt = a.fired_at === null || a.fired_at === undefined ? null : Number(a.fired_at);
        return { marker: String(a.marker), dueAt: firedAt === null && a.due_at !== null && a.due_at !== undefined ? Number(a.due_at) : null, firedAt };
      });
    },
    async linksWithOpenAlerts(entryId) {
      return (await sql.all(SQL.linksWithOpenAlerts, [entryId])).map((r) => String(r.link_id));
    },
    async followEstimate(linkId, due) {
      await sql.transaction(async (tx) => {
        const timed = (await tx.all(SQL.timesOf, [linkId])).map((r) => String(r.marker));
        for (const [query, params] of followStatements(linkId, timed, due)) await tx.run(query, params);
      });
    },
    async dueAlerts(now, limit) {
      return (await sql.all(SQL.dueAlerts, [now, limit])).map((r) => ({ linkId: String(r.link_id), marker: String(r.marker), dueAt: Number(r.due_at) }));
    },
    async moveAlerts(linkId, marker, dueAt) {
      await sql.run(SQL.moveAlerts, [Math.round(dueAt), linkId, marker]);
    },
    fireAlerts(linkId, marker, now, expiresAt) {
      return sql.transaction(async (tx) => {
        // The time first: an ask landing meanwhile waits for it, then makes its own.
        await tx.run(SQL.removeTime, [linkId, marker]);
        // Only the alerts this statement marked: those another server fired are its to queue.
        const fired = (await tx.all(SQL.fireAlerts, [now, linkId, marker])).map((r) => String(r.subscription_id));
        await queueAlertPushes(tx, fired, marker, { now, expiresAt });
        return fired.length;
      });
    },
    async removeAlerts(linkId, marker) {
      await sql.batch([
        [SQL.removeTime, [linkId, marker]],
        [SQL.removeAlerts, [linkId, marker]],
      ]);
    },
    async sweepAlerts(startedBefore) {
      await sql.run(SQL.sweepTimes, [startedBefore]);
      return sql.run(SQL.sweepAlerts, [startedBefore]);
    },
  };
}
