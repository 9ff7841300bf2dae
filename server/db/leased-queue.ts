/**
 * Owns the SQL shape of a leased queue, the same for every table that hands work to one server at
 * a time (conversion jobs, pushes to send, resumable uploads): a row is free while its lease has
 * run out (`until < now`), a claim takes it with a fresh random owner until now + lease, and every
 * later write (renew, finish, hand back, retry) matches only while that owner still holds it.
 * So when two servers race for a row only one UPDATE matches (PostgreSQL re-evaluates the outer
 * WHERE on the locked row), and a server whose lease ran out and was taken over writes nothing.
 * Each table keeps its own columns and meaning; only the shape is here, in the SQL both databases take.
 */
import { randomUUID } from 'node:crypto';

/** A leased table's columns. */
export interface LeasedTable {
  table: string;
  /** The row's key. */
  id: string;
  /** Epoch ms the lease runs to; 0 when handed back. */
  until: string;
  owner: string;
  /** Counted up by each claim, when the table counts attempts. */
  attempts?: string;
}

/** Which free rows a claim may take, in what order, and what it returns. */
export interface ClaimShape {
  /** An extra condition on the candidates (its `?`s come before the lease's). */
  where?: string;
  /** ORDER BY of the candidates (its `?`s come after the lease's). */
  order?: string;
  /** Columns the claim returns. */
  returning: string;
  /** Take up to LIMIT rows (`IN`) rather than one (`=`). */
  many?: boolean;
}

export interface ClaimAt {
  now: number;
  leaseMs: number;
  /** At most this many rows (1 unless the shape takes many). */
  limit?: number;
  /** The owner to write; a fresh random one by default. */
  owner?: string;
}

/** One claim's statement: the SQL and the parameters it is run with. */
export interface Claim {
  sql: string;
  params: unknown[];
  /** The owner this claim writes: only its later writes match the rows it took. */
  owner: string;
}

export interface LeasedQueueSql {
  /**
   * Takes free rows (up to `limit`) for a fresh owner until now + leaseMs. `whereParams` and
   * `orderParams` fill the shape's own `?`s.
   */
  claim(shape: ClaimShape, at: ClaimAt, whereParams?: unknown[], orderParams?: unknown[]): Claim;
  /** Extends the lease to the given time: [sql, (until, id, owner)]; matches only while it is ours and not handed back. */
  renew: string;
  /** A condition that holds only while `owner` holds the row's lease: (id, owner). */
  held: string;
  /** Deletes the row while the lease is ours: (id, owner). */
  finish: string;
  /** Hands the lease back at once (`set`: other columns changed with it, their `?`s first): (..., id, owner). */
  handBack(set?: string): string;
  /** Free rows matching `where` (its `?`s first, then now): a read that claims nothing. */
  free(where: string, order: string): string;
}

export function leasedQueue(t: LeasedTable): LeasedQueueSql {
  const counted = t.attempts ? `${t.attempts} = ${t.attempts} + 1, ` : '';
  return {
    claim(shape, at, whereParams = [], orderParams = []) {
      const owner = at.owner ?? randomUUID();
      const where = shape.where ? `${shape.where} AND ` : '';
      const pick = `SELECT ${t.id} FROM ${t.table} WHERE ${where}${t.until} < ? ${shape.order ?? ''} LIMIT ?`;
      const sql =
        `UPDATE ${t.table} SET ${t.until} = ?, ${counted}${t.owner} = ? ` +
        `WHERE ${t.id} ${shape.many ? 'IN' : '='} (${pick}) AND ${t.until} < ? RETURNING ${shape.returning}`;
      const { now, leaseMs, limit = 1 } = at;
      return { sql, owner, params: [now + leaseMs, owner, ...whereParams, now, ...orderParams, limit, now] };
    },
    // A lease that ran out but was not taken by anyone is still ours; one handed back (until 0) is not.
    renew: `UPDATE ${t.table} SET ${t.until} = ? WHERE ${t.id} = ? AND ${t.owner} = ? AND ${t.until} > 0`,
    held: `EXISTS (SELECT 1 FROM ${t.table} WHERE ${t.id} = ? AND ${t.owner} = ? AND ${t.until} > 0)`,
    finish: `DELETE FROM ${t.table} WHERE ${t.id} = ? AND ${t.owner} = ?`,
    handBack: (set) => `UPDATE ${t.table} SET ${set ? `${set}, ` : ''}${t.until} = 0, ${t.owner} = NULL WHERE ${t.id} = ? AND ${t.owner} = ?`,
    free: (where, order) => `SELECT * FROM ${t.table} WHERE ${where} AND ${t.until} < ? ${order}`,
  };
}
