/**
 * Owns Web Push's standing rows (migrations 13 and 17): the VAPID key pair kept for every server,
 * each phone's subscription for a link (and when it last took a push; counted against the link's
 * limit only while its phone is on the link), and, by way of
 * ./push-alert-store.ts, spectators' marker alerts; and when they end (the sweep). The queue of pushes to send, and
 * every write to it, is ./push-queue-store.ts's (a subscription that goes takes its pushes along: ON DELETE CASCADE);
 * what a push says and when it goes is server/push's.
 */
import { randomUUID } from 'node:crypto';
import type { SqlDriver, Statement } from './driver.js';
import { createPushAlertStore, type PushAlertRow, type PushAlertStore } from './push-alert-store.js';
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

export interface PushLimits {
  /** Phones with a subscription on one link. */
  perLink: number;
  /** Links one phone holds a subscription for. */
  perPhone: number;
}

export type SubscribeOutcome = 'saved' | 'link_full' | 'phone_full';

export type { OpenAlert, PushAlertRow } from './push-alert-store.js';

/** The subscriptions' and keys' part here; the alerts' in ./push-alert-store.ts. */
export interface PushStore extends PushAlertStore {
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

/** Revoking one link takes its subscriptions (and so their alerts and pushes) with it. */
export const dropPushOfLink = (linkId: string): Statement => ['DELETE FROM push_subscriptions WHERE link_id = ?', [linkId]];

const REVOKED_LINKS_OF = (runners: string) =>
  `DELETE FROM push_subscriptions WHERE link_id IN (SELECT id FROM links WHERE revoked_at IS NOT NULL AND runner_id IN (${runners}))`;

/** After a runner's links were revoked (the app asked for a new link): the revoked ones' subscriptions go. */
export const dropPushOfRevokedLinks = (runnerId: string): Statement => [REVOKED_LINKS_OF('?'), [runnerId]];

/** After an account's links were revoked (its deletion): their subscriptions go. */
export const dropPushOfAccountLinks = (accountId: string): Statement => [REVOKED_LINKS_OF('SELECT runner_id FROM entries WHERE account_id = ?'), [accountId]];

/**
 * The link's subscriptions that count against PUSH_MAX_PER_LINK: those of phones on the link
 * (server/db/device-store.ts). A phone that left it (taken off its list, or unseen for the cookie's
 * life) holds no place: its subscription may still take pushes, but never keeps a friend out.
 */
const ON_LINK = 'FROM push_subscriptions s JOIN device_links d ON d.device_id = s.device_id AND d.link_id = s.link_id WHERE s.link_id = ?';

const SQL = {
  keys: 'SELECT public_key, sealed_private_key FROM push_keys WHERE id = 1',
  keepKeys: 'INSERT INTO push_keys (id, public_key, sealed_private_key, created_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
  subscription: 'SELECT * FROM push_subscriptions WHERE device_id = ? AND link_id = ?',
  replace:
    'UPDATE push_subscriptions SET endpoint = ?, p256dh = ?, auth = ?, lang = ?, heard = ?, sealed_token = ?, updated_at = ? WHERE device_id = ? AND link_id = ?',
  // The counts and the insert in one statement: two servers at once may each pass by one, no more.
  add:
    'INSERT INTO push_subscriptions (id, device_id, link_id, endpoint, p256dh, auth, lang, heard, sealed_token, created_at, updated_at) ' +
    `SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE (SELECT COUNT(*) ${ON_LINK}) < ? ` +
    'AND (SELECT COUNT(*) FROM push_subscriptions WHERE device_id = ?) < ? ON CONFLICT (device_id, link_id) DO NOTHING',
  linkCount: `SELECT COUNT(*) AS n ${ON_LINK}`,
  unsubscribe: 'DELETE FROM push_subscriptions WHERE device_id = ? AND link_id = ?',
  forgetEndpoint: 'DELETE FROM push_subscriptions WHERE endpoint = ?',
  tookPush: 'UPDATE push_subscriptions SET last_pushed_at = ? WHERE id = ?',
  sweepSubscriptions:
    'DELETE FROM push_subscriptions WHERE link_id IN (SELECT l.id FROM links l JOIN races r ON r.id = l.race_id WHERE r.starts_at < ?) ' +
    'AND updated_at < ? AND (last_pushed_at IS NULL OR last_pushed_at < ?)',
} as const;

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

export function createPushStore(sql: SqlDriver): PushStore {
  const alertStore = createPushAlertStore(sql);
  const keys = async () => {
    const [row] = await sql.all(SQL.keys);
    return row && { publicKey: String(row.public_key), sealedPrivateKey: String(row.sealed_private_key) };
  };
  return {
    ...alertStore,
    keys,
    async keepKeys(pair, at) {
      await sql.run(SQL.keepKeys, [pair.publicKey, pair.sealedPrivateKey, at]);
      return (await keys())!;
    },
    async subscription(deviceId, linkId) {
      const [row] = await sql.all(SQL.subscription, [deviceId, linkId]);
      if (!row) return undefined;
      const sub = toSubscription(row);
      const alerts = await alertStore.alertsOf(sub.id, linkId);
      return { ...sub, alerts };
    },
    async subscribe(s, limits) {
      const heard = s.heard ? 1 : 0;
      if ((await sql.run(SQL.replace, [s.endpoint, s.p256dh, s.auth, s.lang, heard, s.sealedToken, s.at, s.deviceId, s.linkId])) > 0) return 'saved';
      const added = await sql.run(SQL.add, [
        randomUUID(),
        s.deviceId,
        s.linkId,
        s.endpoint,
        s.p256dh,
        s.auth,
        s.lang,
        heard,
        s.sealedToken,
        s.at,
        s.at,
        s.linkId,
        limits.perLink,
        s.deviceId,
        limits.perPhone,
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
    async tookPush(subscriptionId, at) {
      await sql.run(SQL.tookPush, [at, subscriptionId]);
    },
    async sweep({ raceStartedBefore, idleRaceStartedBefore, idleSince }) {
      const alerts = await alertStore.sweepAlerts(raceStartedBefore);
      // Their alerts and waiting pushes go with them (ON DELETE CASCADE).
      const subscriptions = await sql.run(SQL.sweepSubscriptions, [idleRaceStartedBefore, idleSince, idleSince]);
      return { alerts, subscriptions };
    },
  };
}
