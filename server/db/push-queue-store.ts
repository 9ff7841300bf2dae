/**
 * Owns the queue of pushes to send (`push_deliveries`, migration 13): each claimed with a lease, as
 * conversion jobs are, so one server sends it while the others leave it alone; a claim carries what
 * the sender needs (the subscription, the runner's name). Each claim gets a random owner id, so a
 * server whose lease ran out and was taken over can no longer finish or move the push.
 */
import { randomUUID } from 'node:crypto';
import type { PushKind } from './push-store.js';
import type { SqlDriver } from './driver.js';

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
  /** Sent or given up: the push leaves the queue (only while the claim is ours). */
  finish(push: ClaimedPush): Promise<void>;
  /** Tried again at `dueAt` (epoch ms), the lease handed back. */
  retryAt(push: ClaimedPush, dueAt: number): Promise<void>;
  /** Pushes waiting or being sent, on every server. */
  waiting(): Promise<number>;
}

const SQL = {
  // The inner SELECT picks a candidate; the outer WHERE re-checks the lease, so when two servers
  // race for one push only one UPDATE matches (PostgreSQL re-evaluates it on the locked row).
  claim:
    'UPDATE push_deliveries SET locked_until = ?, attempts = attempts + 1, lease_owner = ? ' +
    'WHERE id = (SELECT id FROM push_deliveries WHERE due_at <= ? AND locked_until < ? ORDER BY due_at, id LIMIT 1) ' +
    'AND locked_until < ? RETURNING id, subscription_id, kind, ref, marker, attempts, expires_at',
  detail:
    'SELECT s.endpoint, s.p256dh, s.auth, s.lang, s.link_id, s.sealed_token, u.display_name, l.revoked_at ' +
    'FROM push_subscriptions s JOIN links l ON l.id = s.link_id JOIN runners u ON u.id = l.runner_id WHERE s.id = ?',
  finish: 'DELETE FROM push_deliveries WHERE id = ? AND lease_owner = ?',
  retryAt: 'UPDATE push_deliveries SET due_at = ?, locked_until = 0, lease_owner = NULL WHERE id = ? AND lease_owner = ?',
  drop: 'DELETE FROM push_deliveries WHERE id = ?',
  waiting: 'SELECT COUNT(*) AS n FROM push_deliveries',
} as const;

export function createPushQueueStore(sql: SqlDriver): PushQueueStore {
  return {
    async claim(now, leaseMs) {
      for (;;) {
        const owner = randomUUID();
        const [row] = await sql.all(SQL.claim, [now + leaseMs, owner, now, now, now]);
        if (!row) return undefined;
        const [detail] = await sql.all(SQL.detail, [String(row.subscription_id)]);
        // Its subscription went between the two reads (the cascade takes the push too): the next one.
        if (!detail) {
          await sql.run(SQL.drop, [String(row.id)]);
          continue;
        }
        return {
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
        };
      }
    },
    async finish(push) {
      await sql.run(SQL.finish, [push.id, push.owner]);
    },
    async retryAt(push, dueAt) {
      await sql.run(SQL.retryAt, [Math.round(dueAt), push.id, push.owner]);
    },
    async waiting() {
      const [row] = await sql.all(SQL.waiting);
      return Number(row?.n ?? 0);
    },
  };
}
