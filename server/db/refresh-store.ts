/**
 * Owns refresh-token rotation with reuse detection (RFC 9700, section 4.14.2): the session row
 * holds the live token's hash, used_refresh_tokens the hashes it had before. A used hash coming
 * back means two parties hold the family; the whole session (the family) is then revoked.
 */
import type { SqlDriver } from './driver.js';

export type Rotation =
  | { kind: 'rotated'; sessionId: string; accountId: string }
  /** The token was used before: the session is gone now, for its holder and the thief alike. */
  | { kind: 'reused'; sessionId: string }
  | { kind: 'refused' };

export interface RefreshStore {
  rotate(oldHash: string, newHash: string, now: string, expiresAt: string): Promise<Rotation>;
}

const SQL = {
  // One UPDATE both checks and replaces the hash, so two uses of one token cannot both win.
  rotate: 'UPDATE sessions SET refresh_hash = ?, expires_at = ? WHERE refresh_hash = ? AND expires_at > ? RETURNING id, account_id',
  // Written in the same transaction, keyed by the new hash's row, so no rotation goes unrecorded.
  remember: 'INSERT INTO used_refresh_tokens (hash, session_id, used_at) SELECT ?, id, ? FROM sessions WHERE refresh_hash = ?',
  usedBy: 'SELECT session_id FROM used_refresh_tokens WHERE hash = ?',
  // used_refresh_tokens rows go with the session (ON DELETE CASCADE).
  revoke: 'DELETE FROM sessions WHERE id = ?',
} as const;

export function createRefreshStore(sql: SqlDriver): RefreshStore {
  return {
    async rotate(oldHash, newHash, now, expiresAt) {
      const [rotated] = await sql.batch([
        [SQL.rotate, [newHash, expiresAt, oldHash, now]],
        [SQL.remember, [oldHash, now, newHash]],
      ]);
      const row = rotated?.[0];
      if (row) return { kind: 'rotated', sessionId: String(row.id), accountId: String(row.account_id) };
      const [used] = await sql.all(SQL.usedBy, [oldHash]);
      if (!used) return { kind: 'refused' };
      const sessionId = String(used.session_id);
      await sql.run(SQL.revoke, [sessionId]);
      return { kind: 'reused', sessionId };
    },
  };
}
