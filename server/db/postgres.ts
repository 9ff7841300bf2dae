/** Owns the PostgreSQL connection pool (pg); the same SQL as SQLite with `?` turned into `$n`. */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { postgresDriver } from '../runner/driver.js';
import { createRunnerStore } from '../runner/store.js';
import { createUploadStore } from './upload-store.js';
import type { Repository } from './repository.js';
import { toLink, toNote, toRace } from './rows.js';
import { MIGRATIONS, SEED_RACE_SQL, SQL, seedRaceParams, statementsOf } from './schema.js';

type Row = Record<string, unknown>;
type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** `?` -> `$1`, `$2`, ... Our SQL has no `?` inside string literals. */
export function toPg(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** An arbitrary constant that serialises migrations when several servers start at once. */
const MIGRATION_LOCK = 7_031_626;

export function createPostgresRepository(connectionString: string): Repository {
  const pool = new pg.Pool({ connectionString, max: 10 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});

  const query = async (q: Queryable, sql: string, params: unknown[] = []) => (await q.query(toPg(sql), params)).rows as Row[];

  async function inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  return {
    runner: createRunnerStore(postgresDriver(pool)),
    uploads: createUploadStore(postgresDriver(pool)),
    async migrate() {
      await inTransaction(async (c) => {
        await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)');
        const [row] = await query(c, 'SELECT MAX(version) AS v FROM schema_migrations');
        const current = Number(row?.v ?? 0);
        for (const [i, migration] of MIGRATIONS.entries()) {
          if (i + 1 <= current) continue;
          for (const statement of statementsOf(migration)) await c.query(statement);
          await query(c, 'INSERT INTO schema_migrations (version) VALUES (?)', [i + 1]);
        }
        for (const params of seedRaceParams()) await query(c, SEED_RACE_SQL, params);
      });
    },
    async close() {
      await pool.end();
    },
    async getRace(id) {
      const [row] = await query(pool, SQL.getRace, [id]);
      return row && toRace(row);
    },
    async createLink({ linkId, runnerName, raceId, createdAt }) {
      await inTransaction(async (c) => {
        const runnerId = randomUUID();
        await query(c, SQL.insertRunner, [runnerId, runnerName, createdAt]);
        await query(c, SQL.insertLink, [linkId, runnerId, raceId, createdAt]);
      });
    },
    async findLink(linkId) {
      const [row] = await query(pool, SQL.findLink, [linkId]);
      return row && toLink(row);
    },
    async revokeLink(linkId, revokedAt) {
      const result = await pool.query(toPg(SQL.revokeLink), [revokedAt, linkId]);
      return (result.rowCount ?? 0) > 0;
    },
    async findNote(id) {
      const [row] = await query(pool, SQL.findNote, [id]);
      return row && toNote(row);
    },
    async insertNote(n) {
      return inTransaction(async (c) => {
        const result = await c.query(toPg(SQL.insertNote), [n.id, n.linkId, n.marker, n.from, n.contentType, n.bytes, n.sha256, n.originalKey, n.receivedAt]);
        if ((result.rowCount ?? 0) === 0) return false;
        await query(c, SQL.insertJob, [n.id, n.receivedAt]);
        return true;
      });
    },
    async listNotes(linkId) {
      return (await query(pool, SQL.listNotes, [linkId])).map(toNote);
    },
    async claimJob(now, leaseMs) {
      const [row] = await query(pool, SQL.claimJob, [now + leaseMs, now, now]);
      return row && { noteId: String(row.note_id), attempts: Number(row.attempts) };
    },
    async markConverted(noteId, convertedKey, durationMs) {
      return inTransaction(async (c) => {
        const updated = await query(c, SQL.markConverted, [convertedKey, durationMs, noteId]);
        await query(c, SQL.deleteJob, [noteId]);
        return updated.length > 0;
      });
    },
    async markFailed(noteId, reason) {
      await inTransaction(async (c) => {
        await query(c, SQL.markFailed, [reason, noteId]);
        await query(c, SQL.deleteJob, [noteId]);
      });
    },
  };
}
