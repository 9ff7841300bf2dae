/**
 * Owns Web Push's standing rows (migration 13): the VAPID key pair kept for every server, each
 * phone's subscription for a link, and a spectator's marker alerts. The queue of pushes to send is
 * ./push-queue-store.ts's; what a push says and when it goes is server/push's.
 */
import { randomUUID } from 'node:crypto';
import type { SqlDriver, Statement } from './driver.js';
import type { Row } from './types.js';

/** The pair as kept: the private key sealed (server/push/keys.ts), never in the clear. */
export interface StoredVapidKeys {
  publicKey: string;
  sealedPrivateKey: string;
}

/** A phone's push subscription for one link. Times are epoch ms. */
export interface PushSubscriptionRow {
  id: string;
  /** The device cookie's hash (server/devices). */
  deviceId: string;
  linkId: string;
  endpoint: string;
  /** The browser's P-256 key and auth secret (base64url), for RFC 8291. */
  p256dh: string;
  auth: string;
  /** The language its notices speak. */
  lang: string;
  /** Whether it asked to hear when its notes are played. */
  heard: boolean;
  /** The link's token, sealed, so a notice can open that recorder. */
  sealedToken: string;
  createdAt: number;
  updatedAt: number;
}

export type NewPushSubscription = Omit<PushSubscriptionRow, 'id' | 'createdAt' | 'updatedAt'> & { at: number };

export interface PushAlertRow {
  marker: string;
  /** When the estimate says the runner is the alert's lead from the marker (epoch ms). */
  dueAt: number;
  /** When it was fired, or null while it waits. */
  firedAt: number | null;
}

/** An alert still waiting, with where it belongs. */
export interface OpenAlert {
  subscriptionId: string;
  linkId: string;
  marker: string;
  dueAt: number;
}

export interface PushLimits {
  /** Phones with a subscription on one link. */
  perLink: number;
  /** Links one phone holds a subscription for. */
  perPhone: number;
}

export type SubscribeOutcome = 'saved' | 'link_full' | 'phone_full';

export interface PushStore {
  keys(): Promise<StoredVapidKeys | undefined>;
  /** Keeps `keys` unless a pair is kept already; resolves to the pair kept (the first server's wins). */
  keepKeys(keys: StoredVapidKeys, at: number): Promise<StoredVapidKeys>;
  /** This phone's subscription for the link, with its alerts. */
  subscription(deviceId: string, linkId: string): Promise<(PushSubscriptionRow & { alerts: PushAlertRow[] }) | undefined>;
  /** Saves this phone's subscription for the link: replaced in place, or added within the limits. */
  subscribe(sub: NewPushSubscription, limits: PushLimits): Promise<SubscribeOutcome>;
  /** Turns it off: the subscription, its alerts and its pushes not yet sent. False when there was none. */
  unsubscribe(deviceId: string, linkId: string): Promise<boolean>;
  /** Forgets every subscription on an endpoint the push service said is gone; resolves to how many. */
  forgetEndpoint(endpoint: string): Promise<number>;
  /** Asks for an alert (again): a waiting one takes the new due time, a fired one stays fired. */
  setAlert(subscriptionId: string, marker: string, dueAt: number, at: number): Promise<void>;
  removeAlert(subscriptionId: string, marker: string): Promise<boolean>;
  /** The links of an entry (its runner's) with a waiting alert. */
  linksWithOpenAlerts(entryId: string): Promise<string[]>;
  /**
   * The link's waiting alerts follow a new estimate, in one transaction: those on a marker in `due`
   * take its due time (one statement for them all), the others (markers passed) go. An empty `due`
   * removes them all.
   */
  followEstimate(linkId: string, due: ReadonlyMap<string, number>): Promise<void>;
  /** Waiting alerts due by `now`, the earliest first, at most `limit`. */
  dueAlerts(now: number, limit: number): Promise<OpenAlert[]>;
  moveAlert(subscriptionId: string, marker: string, dueAt: number): Promise<void>;
  /**
   * Marks a waiting alert fired and queues its push, in one transaction: false when it was fired
   * (by another server) or removed meanwhile, and nothing is queued.
   */
  fireAlert(subscriptionId: string, marker: string, now: number, expiresAt: number): Promise<boolean>;
  /** The push service took a push for this subscription at `at` (epoch ms): it is alive. */
  tookPush(subscriptionId: string, at: number): Promise<void>;
  /**
   * Removes what can no longer be of use (server/push/sweep.ts): the alerts (waiting or fired) of
   * races that started before `raceStartedBefore` (an ISO instant: over), and the subscriptions of
   * races that started before `idleRaceStartedBefore` that neither took a push nor were saved by
   * their phone since `idleSince` (epoch ms). Resolves to how many of each went.
   */
  sweep(cutoffs: PushSweepCutoffs): Promise<{ alerts: number; subscriptions: number }>;
}

export interface PushSweepCutoffs {
  raceStartedBefore: string;
  idleRaceStartedBefore: string;
  idleSince: number;
}

/** A delivery's id: one push per subscription, kind and note (or marker), whichever server queues it. */
export const deliveryId = (subscriptionId: string, kind: PushKind, ref: string) => `${subscriptionId}:${kind}:${ref}`;

export type PushKind = 'heard' | 'soon';

const INSERT_DELIVERY =
  'INSERT INTO push_deliveries (id, subscription_id, kind, ref, note_id, marker, attempts, due_at, expires_at, locked_until, lease_owner, created_at) ';

/**
 * The heard pushes of a note just played for the first time: one to each subscription of the phone
 * it came from on its link, if that subscription asked. Run in the play's own transaction
 * (server/db/play-store.ts), so a play is pushed once, and never for a note of another phone.
 */
export const queueHeardPushes = (noteId: string, marker: string, now: number, expiresAt: number): Statement => [
  `${INSERT_DELIVERY}SELECT s.id || ':heard:' || n.id, s.id, 'heard', n.id, n.id, ?, 0, ?, ?, 0, NULL, ? ` +
    'FROM notes n JOIN push_subscriptions s ON s.device_id = n.device_id AND s.link_id = n.link_id ' +
    'WHERE n.id = ? AND s.heard = 1 ON CONFLICT (id) DO NOTHING',
  [marker, now, expiresAt, now, noteId],
];

/** Revoking one link takes its subscriptions (and so their alerts and pushes) with it. */
export const dropPushOfLink = (linkId: string): Statement => ['DELETE FROM push_subscriptions WHERE link_id = ?', [linkId]];

const REVOKED_LINKS_OF = (runners: string) =>
  `DELETE FROM push_subscriptions WHERE link_id IN (SELECT id FROM links WHERE revoked_at IS NOT NULL AND runner_id IN (${runners}))`;

/** After a runner's links were revoked (the app asked for a new link): the revoked ones' subscriptions go. */
export const dropPushOfRevokedLinks = (runnerId: string): Statement => [REVOKED_LINKS_OF('?'), [runnerId]];

/** After an account's links were revoked (its deletion): their subscriptions go. */
export const dropPushOfAccountLinks = (accountId: string): Statement => [REVOKED_LINKS_OF('SELECT runner_id FROM entries WHERE account_id = ?'), [accountId]];

const SQL = {
  keys: 'SELECT public_key, sealed_private_key FROM push_keys WHERE id = 1',
  keepKeys: 'INSERT INTO push_keys (id, public_key, sealed_private_key, created_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
  subscription: 'SELECT * FROM push_subscriptions WHERE device_id = ? AND link_id = ?',
  alerts: 'SELECT marker, due_at, fired_at FROM push_alerts WHERE subscription_id = ? ORDER BY created_at, marker',
  replace:
    'UPDATE push_subscriptions SET endpoint = ?, p256dh = ?, auth = ?, lang = ?, heard = ?, sealed_token = ?, updated_at = ? WHERE device_id = ? AND link_id = ?',
  // The counts and the insert in one statement: two servers at once may each pass by one, no more.
  add:
    'INSERT INTO push_subscriptions (id, device_id, link_id, endpoint, p256dh, auth, lang, heard, sealed_token, created_at, updated_at) ' +
    'SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE (SELECT COUNT(*) FROM push_subscriptions WHERE link_id = ?) < ? ' +
    'AND (SELECT COUNT(*) FROM push_subscriptions WHERE device_id = ?) < ? ON CONFLICT (device_id, link_id) DO NOTHING',
  linkCount: 'SELECT COUNT(*) AS n FROM push_subscriptions WHERE link_id = ?',
  unsubscribe: 'DELETE FROM push_subscriptions WHERE device_id = ? AND link_id = ?',
  forgetEndpoint: 'DELETE FROM push_subscriptions WHERE endpoint = ?',
  setAlert:
    'INSERT INTO push_alerts (subscription_id, marker, due_at, fired_at, created_at) VALUES (?, ?, ?, NULL, ?) ' +
    'ON CONFLICT (subscription_id, marker) DO UPDATE SET due_at = excluded.due_at WHERE push_alerts.fired_at IS NULL',
  removeAlert: 'DELETE FROM push_alerts WHERE subscription_id = ? AND marker = ?',
  linksWithOpenAlerts:
    'SELECT l.id FROM entries e JOIN links l ON l.runner_id = e.runner_id WHERE e.id = ? AND EXISTS (' +
    'SELECT 1 FROM push_subscriptions s JOIN push_alerts a ON a.subscription_id = s.id WHERE s.link_id = l.id AND a.fired_at IS NULL) ORDER BY l.id',
  dueAlerts:
    'SELECT a.subscription_id, s.link_id, a.marker, a.due_at FROM push_alerts a JOIN push_subscriptions s ON s.id = a.subscription_id ' +
    'WHERE a.due_at <= ? AND a.fired_at IS NULL ORDER BY a.due_at, a.subscription_id, a.marker LIMIT ?',
  moveAlert: 'UPDATE push_alerts SET due_at = ? WHERE subscription_id = ? AND marker = ? AND fired_at IS NULL',
  fireAlert: 'UPDATE push_alerts SET fired_at = ? WHERE subscription_id = ? AND marker = ? AND fired_at IS NULL',
  tookPush: 'UPDATE push_subscriptions SET last_pushed_at = ? WHERE id = ?',
  sweepAlerts:
    'DELETE FROM push_alerts WHERE subscription_id IN (SELECT s.id FROM push_subscriptions s JOIN links l ON l.id = s.link_id ' +
    'JOIN races r ON r.id = l.race_id WHERE r.starts_at < ?)',
  sweepSubscriptions:
    'DELETE FROM push_subscriptions WHERE link_id IN (SELECT l.id FROM links l JOIN races r ON r.id = l.race_id WHERE r.starts_at < ?) ' +
    'AND updated_at < ? AND (last_pushed_at IS NULL OR last_pushed_at < ?)',
  queueAlert: `${INSERT_DELIVERY}VALUES (?, ?, 'soon', ?, NULL, ?, 0, ?, ?, 0, NULL, ?) ON CONFLICT (id) DO NOTHING`,
} as const;

const WAITING_OF_LINK = 'fired_at IS NULL AND subscription_id IN (SELECT id FROM push_subscriptions WHERE link_id = ?)';

/** What followEstimate runs: the passed markers' alerts removed, then every other one's due time set by one CASE. */
function followEstimateStatements(linkId: string, due: ReadonlyMap<string, number>): Statement[] {
  const markers = [...due.keys()];
  if (markers.length === 0) return [[`DELETE FROM push_alerts WHERE ${WAITING_OF_LINK}`, [linkId]]];
  const list = markers.map(() => '?').join(', ');
  // CAST: PostgreSQL gives a bare parameter in a CASE the type text, which a BIGINT column refuses.
  const cases = markers.map(() => 'WHEN ? THEN CAST(? AS BIGINT)').join(' ');
  const times = markers.flatMap((m) => [m, Math.round(due.get(m)!)]);
  return [
    [`DELETE FROM push_alerts WHERE ${WAITING_OF_LINK} AND marker NOT IN (${list})`, [linkId, ...markers]],
    [
      // An alert whose time did not move is not written (a steady runner moves few): no dead row left behind on PostgreSQL.
      `UPDATE push_alerts SET due_at = CASE marker ${cases} END WHERE ${WAITING_OF_LINK} AND marker IN (${list}) AND due_at <> CASE marker ${cases} END`,
      [...times, linkId, ...markers, ...times],
    ],
  ];
}

const toSubscription = (r: Row): PushSubscriptionRow => ({
  id: String(r.id),
  deviceId: String(r.device_id),
  linkId: String(r.link_id),
  endpoint: String(r.endpoint),
  p256dh: String(r.p256dh),
  auth: String(r.auth),
  lang: String(r.lang),
  heard: Number(r.heard) === 1,
  sealedToken: String(r.sealed_token),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const toOpenAlert = (r: Row): OpenAlert => ({
  subscriptionId: String(r.subscription_id), linkId: String(r.link_id), marker: String(r.marker), dueAt: Number(r.due_at),
});

export function createPushStore(sql: SqlDriver): PushStore {
  const keys = async () => {
    const [row] = await sql.all(SQL.keys);
    return row && { publicKey: String(row.public_key), sealedPrivateKey: String(row.sealed_private_key) };
  };
  return {
    keys,
    async keepKeys(pair, at) {
      await sql.run(SQL.keepKeys, [pair.publicKey, pair.sealedPrivateKey, at]);
      return (await keys())!;
    },
    async subscription(deviceId, linkId) {
      const [row] = await sql.all(SQL.subscription, [deviceId, linkId]);
      if (!row) return undefined;
      const sub = toSubscription(row);
      const alerts = (await sql.all(SQL.alerts, [sub.id])).map((a) => ({
        marker: String(a.marker), dueAt: Number(a.due_at), firedAt: a.fired_at === null || a.fired_at === undefined ? null : Number(a.fired_at),
      }));
      return { ...sub, alerts };
    },
    async subscribe(s, limits) {
      const heard = s.heard ? 1 : 0;
      if ((await sql.run(SQL.replace, [s.endpoint, s.p256dh, s.auth, s.lang, heard, s.sealedToken, s.at, s.deviceId, s.linkId])) > 0) return 'saved';
      const added = await sql.run(SQL.add, [
        randomUUID(), s.deviceId, s.linkId, s.endpoint, s.p256dh, s.auth, s.lang, heard, s.sealedToken, s.at, s.at,
        s.linkId, limits.perLink, s.deviceId, limits.perPhone,
      ]);
      if (added > 0) return 'saved';
      // Not added: a limit, or another request of this phone added it meanwhile (then it is there).
      if ((await sql.all(SQL.subscription, [s.deviceId, s.linkId])).length > 0) return 'saved';
      const [count] = await sql.all(SQL.linkCount, [s.linkId]);
      return Number(count?.n ?? 0) >= limits.perLink ? 'link_full' : 'phone_full';
    },
    async unsubscribe(deviceId, linkId) {
      return (await sql.run(SQL.unsubscribe, [deviceId, linkId])) > 0;
    },
    forgetEndpoint: (endpoint) => sql.run(SQL.forgetEndpoint, [endpoint]),
    async setAlert(subscriptionId, marker, dueAt, at) {
      await sql.run(SQL.setAlert, [subscriptionId, marker, Math.round(dueAt), at]);
    },
    async removeAlert(subscriptionId, marker) {
      return (await sql.run(SQL.removeAlert, [subscriptionId, marker])) > 0;
    },
    async linksWithOpenAlerts(entryId) {
      return (await sql.all(SQL.linksWithOpenAlerts, [entryId])).map((r) => String(r.id));
    },
    async followEstimate(linkId, due) {
      await sql.batch(followEstimateStatements(linkId, due));
    },
    async dueAlerts(now, limit) {
      return (await sql.all(SQL.dueAlerts, [now, limit])).map(toOpenAlert);
    },
    async moveAlert(subscriptionId, marker, dueAt) {
      await sql.run(SQL.moveAlert, [Math.round(dueAt), subscriptionId, marker]);
    },
    fireAlert(subscriptionId, marker, now, expiresAt) {
      return sql.transaction(async (tx) => {
        if ((await tx.run(SQL.fireAlert, [now, subscriptionId, marker])) === 0) return false;
        await tx.run(SQL.queueAlert, [deliveryId(subscriptionId, 'soon', marker), subscriptionId, marker, marker, now, expiresAt, now]);
        return true;
      });
    },
    async tookPush(subscriptionId, at) {
      await sql.run(SQL.tookPush, [at, subscriptionId]);
    },
    async sweep({ raceStartedBefore, idleRaceStartedBefore, idleSince }) {
      const alerts = await sql.run(SQL.sweepAlerts, [raceStartedBefore]);
      // Their alerts and waiting pushes go with them (ON DELETE CASCADE).
      const subscriptions = await sql.run(SQL.sweepSubscriptions, [idleRaceStartedBefore, idleSince, idleSince]);
      return { alerts, subscriptions };
    },
  };
}
