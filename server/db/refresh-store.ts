/**
 * Owns refresh-token rotation with reuse detection (RFC 9700, section 4.14.2): the session row
 * holds the live token's hash, used_refresh_tokens the hashes it had before. A used hash coming
 * back means two parties hold the family; the whole session (the family) is then revoked, except
 * a retry within the grace whose successor is still the live token: that is a phone whose answer
 * was lost, and it is told the same successor again (RFC 9700 leaves room for this grace).
 */
import type { SqlDriver } from './driver.js';

export type Rotation =
  | { kind: 'rotated'; sessionId: string; accountId: string; rotatedAt: string }
  /** A retry within the grace: the caller answers with the same tokens as at `rotatedAt`. */
  | { kind: 'replayed'; sessionId: string; accountId: string; rotatedAt: string }
  /** The token was used before: the session is gone now, for its holder and the thief alike. */
  | { kind: 'reused'; sessionId: string }
  | { kind: 'refused' };

export interface RefreshStore {
  /**
   * `newHash` is the hash of the old token's successor, which the caller derives from the old
   * token (so a retry names the same one and no usable token is ever stored). A token used
   * again within `graceMs` of its first use, while its successor is still unused, is replayed.
   */
  rotate(oldHash: string, newHash: string, now: string, expiresAt: string, graceMs: number): Promise<Rotation>;
}

const SQL = {
  // One UPDATE both checks and replaces the hash, so two uses of one token cannot both win.
  rotate: 'UPDATE sessions SET refresh_hash = ?, expires_at = ? WHERE refresh_hash = ? AND expires_at > ? RETURNING id, account_id',
  // Written in the rotation's transaction, so no rotation goes unrecorded.
  remember: 'INSERT INTO used_refresh_tokens (hash, session_id, used_at) VALUES (?, ?, ?)',
  usedBy:
    'SELECT u.session_id, u.used_at, s.account_id, s.refresh_hash, s.expires_at FROM used_refresh_tokens u ' +
    'JOIN sessions s ON s.id = u.session_id WHERE u.hash = ?',
  // used_refresh_tokens rows go with the session (ON DELETE CASCADE).
  revoke: 'DELETE FROM sessions WHERE id = ?',
} as const;

export function createRefreshStore(sql: SqlDriver): RefreshStore {
  return {
    async rotate(oldHash, newHash, now, expiresAt, graceMs) {
      const row = await sql.transaction(async (tx) => {
        const [rotated] = await tx.all(SQL.rotate, [newHash, expiresAt, oldHash, now]);
        if (rotated) await tx.run(SQL.remember, [oldHash, rotated.id, now]);
        return rotated;
      });
      if (row) return { kind: 'rotated', sessionId: String(row.id), accountId: String(row.account_id), rotatedAt: now };
      const [used] = await sql.all(SQL.usedBy, [oldHash]);
      if (!used) return { kind: 'refused' };
      const sessionId = String(used.session_id);
      const rotatedAt = String(used.used_at);
      // Only while the successor is unused: once it was used, the answer did arrive, and this is a copy.
      const lostAnswer = used.refresh_hash === newHash && Date.parse(now) - Date.parse(rotatedAt) <= graceMs && String(used.expires_at) > now;
      if (lostAnswer) return { kind: 'replayed', sessionId, accountId: String(used.account_id), rotatedAt };
      await sql.run(SQL.revoke, [sessionId]);
      return { kind: 'reused', sessionId };
    },
  };
}
