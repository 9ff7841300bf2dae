/**
 * Owns the queue of pushes to send (`push_deliveries`), every write to it: the pushes
 * queued, inside the transaction of the store whose change they tell (a first play, ./play-store.ts;
 * alerts fired, ./push-alert-store.ts), and the queue's own work. Each is claimed with a lease, as
 * conversion jobs are, so one server sends it while the others leave it alone; a claim carries what
 * the sender needs (the subscription, the runner's name). Each claim gets a random owner id, so a
 * server whose lease ran out and was taken over can no longer finish or move the push. Claims come
 * in batches, and claims, finishes and retries commit without waiting for the disk (at a race's
 * peak the fsyncs, not the encryption, would hold the sends back): a power cut can at worst undo
 * a finish, and the push is sent again under the same Topic, which the push service replaces.
 */
import type { SqlDriver } from './driver.js';
import { leasedQueue } from './leased-queue.js';
import type { PushKind, PushTimes } from './types.js';

/** A push this server holds the lease of, with what sending it needs. */
export interface ClaimedPush {
  id: string;
  owner: string;
  kind: PushKind;
  /** The note's id (heard) or the marker's (soon). */
  ref: string;
  marker: string;
  /** This claim included. */
  attempts: number;
  /** After this (epoch ms) the push is stale and is dropped unsent. */
  expiresAt: number;
  subscription: {
    id: string;
    endpoint: string;
    p256dh: string;
    auth: string;
    lang: string;
    linkId: string;
    sealedToken: string;
  };
  runnerName: string;
  /** The link was revoked meanwhile: nothing is sent. */
  linkRevoked: boolean;
}

export interface PushQueueStore {
  /** Takes the push due first whose lease has run out, leasing it until now + leaseMs. */
  claim(now: number, leaseMs: number): Promise<ClaimedPush | undefined>;
  /** Takes up to `limit` pushes due first, as claim does, in one transaction. */
  claimMany(now: number, leaseMs: number, limit: number): Promise<ClaimedPush[]>;
  /** Sent or given up: the push leaves the queue (only while the claim is ours). */
  finish(push: ClaimedPush): Promise<void>;
  /** Tried again at `dueAt` (epoch ms), the lease handed back. */
  retryAt(push: ClaimedPush, dueAt: number): Promise<void>;
  /** Pushes waiting or being sent, on every server. */
  waiting(): Promise<number>;
}

/** A delivery's id: one push per subscription, kind and note (or marker), whichever server queues it. */
export const deliveryId = (subscriptionId: string, kind: PushKind, ref: string) => `${subscriptionId}:${kind}:${ref}`;

/** At most this many pushes a claim takes (and subscriptions one detail read names). */
const MAX_CLAIM = 64;

const INSERT_DELIVERY =
  'INSERT INTO push_deliveries (id, subscription_id, kind, ref, note_id, marker, attempts, due_at, expires_at, locked_until, lease_owner, created_at) ';
/** Rows of pushes queued per statement: within both databases' limit on parameters. */
const QUEUE_CHUNK = 200;

/** The queue's lease (./leased-queue.ts): one server sends a push at a time. */
const QUEUE = leasedQueue({ table: 'push_deliveries', id: 'id', until: 'locked_until', owner: 'lease_owner', attempts: 'attempts' });
/** The due pushes, due first. */
const CLAIM_DUE = {
  where: 'due_at <= ?',
  order: 'ORDER BY due_at, id',
  returning: 'id, subscription_id, kind, ref, marker, attempts, expires_at, due_at',
  many: true,
};

const SQL = {
  // The id is deliveryId(s.id, 'heard', n.id), spelled in SQL.
  queueHeard:
    `${INSERT_DELIVERY}SELECT s.id || ':heard:' || n.id, s.id, 'heard', n.id, n.id, ?, 0, ?, ?, 0, NULL, ? ` +
    'FROM notes n JOIN push_subscriptions s ON s.device_id = n.device_id AND s.link_id = n.link_id ' +
    'WHERE n.id = ? AND s.heard = 1 ON CONFLICT (id) DO NOTHING',
  queueSoon: (n: number) =>
    `${INSERT_DELIVERY}VALUES ${Array.from({ length: n }, () => "(?, ?, 'soon', ?, NULL, ?, 0, ?, ?, 0, NULL, ?)").join(', ')} ON CONFLICT (id) DO NOTHING`,
  detail: (n: number) =>
    'SELECT s.id, s.endpoint, s.p256dh, s.auth, s.lang, s.link_id, s.sealed_token, u.display_name, l.revoked_at ' +
    `FROM push_subscriptions s JOIN links l ON l.id = s.link_id JOIN runners u ON u.id = l.runner_id WHERE s.id IN (${Array(n).fill('?').join(', ')})`,
  retryAt: QUEUE.handBack('due_at = ?'),
  drop: 'DELETE FROM push_deliveries WHERE id = ?',
  waiting: 'SELECT COUNT(*) AS n FROM push_deliveries',
} as const;

/**
 * Queues the heard pushes of a note just played for the first time: one to each subscription of the
 * phone it came from on its link, if that subscription asked. Run in the play's own transaction
 * (`tx`, ./play-store.ts), so a play is pushed once, and never for a note of another phone.
 */
export async function queueHeardPushes(tx: SqlDriver, noteId: string, marker: string, { now, expiresAt }: PushTimes): Promise<void> {
  await tx.run(SQL.queueHeard, [marker, now, expiresAt, now, noteId]);
}

/**
 * Queues the pushes of the alerts on `marker` just fired, one per subscription, in the transaction
 * that fired them (`tx`, ./push-alert-store.ts); one already queued is not queued again.
 */
export async function queueAlertPushes(tx: SqlDriver, subscriptionIds: readonly string[], marker: string, { now, expiresAt }: PushTimes): Promise<void> {
  for (let i = 0; i < subscriptionIds.length; i += QUEUE_CHUNK) {
    const chunk = subscriptionIds.slice(i, i + QUEUE_CHUNK);
    await tx.run(
      SQL.queueSoon(chunk.length),
      chunk.flatMap((id) => [deliveryId(id, 'soon', marker), id, marker, marker, now, expiresAt, now]),
    );
  }
}

export function createPushQueueStore(sql: SqlDriver): PushQueueStore {
  const quick = { durable: false } as const;
  async function claimMany(now: number, leaseMs: number, limit: number): Promise<ClaimedPush[]> {
    for (;;) {
      const claimed = await claimOnce(now, leaseMs, limit);
      // Every push taken had lost its subscription meanwhile: look again.
      if (claimed !== 'all_dropped') return claimed;
    }
  }
  async function claimOnce(now: number, leaseMs: number, limit: number): Promise<ClaimedPush[] | 'all_dropped'> {
    const claim = QUEUE.claim(CLAIM_DUE, { now, leaseMs, limit: Math.max(1, Math.min(MAX_CLAIM, Math.floor(limit))) }, [now]);
    const { owner } = claim;
    const rows = (await sql.transaction((tx) => tx.all(claim.sql, claim.params), quick))
      // Due first, as one claim at a time would have taken them (RETURNING keeps no order).
      .sort((a, b) => Number(a.due_at) - Number(b.due_at) || (String(a.id) < String(b.id) ? -1 : 1));
    if (rows.length === 0) return [];
    const ids = [...new Set(rows.map((r) => String(r.subscription_id)))];
    const details = new Map((await sql.all(SQL.detail(ids.length), ids)).map((d) => [String(d.id), d]));
    const claimed: ClaimedPush[] = [];
    for (const row of rows) {
      const detail = details.get(String(row.subscription_id));
      // Its subscription went between the two reads (the cascade takes the push too).
      if (!detail) {
        await sql.run(SQL.drop, [String(row.id)]);
        continue;
      }
      claimed.push({
        id: String(row.id),
        owner,
        kind: String(row.kind) as PushKind,
        ref: String(row.ref),
        marker: String(row.marker),
        attempts: Number(row.attempts),
        expiresAt: Number(row.expires_at),
        subscription: {
          id: String(row.subscription_id),
          endpoint: String(detail.endpoint),
          p256dh: String(detail.p256dh),
          auth: String(detail.auth),
          lang: String(detail.lang),
          linkId: String(detail.link_id),
          sealedToken: String(detail.sealed_token),
        },
        runnerName: String(detail.display_name),
        linkRevoked: detail.revoked_at !== null && detail.revoked_at !== undefined,
      });
    }
    return claimed.length > 0 ? claimed : 'all_dropped';
  }
  return {
    claimMany,
    claim: async (now, leaseMs) => (await claimMany(now, leaseMs, 1))[0],
    async finish(push) {
      await sql.transaction((tx) => tx.run(QUEUE.finish, [push.id, push.owner]), quick);
    },
    async retryAt(push, dueAt) {
      await sql.transaction((tx) => tx.run(SQL.retryAt, [Math.round(dueAt), push.id, push.owner]), quick);
    },
    async waiting() {
      const [row] = await sql.all(SQL.waiting);
      return Number(row?.n ?? 0);
    },
  };
}
