/** Owns the SQLite database file (better-sqlite3): WAL, synchronous=FULL so a commit survives power loss. */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { sqliteDriver } from '../runner/driver.js';
import { createRunnerStore } from '../runner/store.js';
import { createUploadStore } from './upload-store.js';
import type { NewNote, Repository } from './repository.js';
import { toLink, toNote, toRace } from './rows.js';
import { MIGRATIONS, SEED_RACE_SQL, SQL, seedRaceParams, statementsOf } from './schema.js';

type Row = Record<string, unknown>;

export function createSqliteRepository(file: string): Repository {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // The CLI and the server may open the same file; wait for a lock instead of failing.
  db.pragma('busy_timeout = 5000');

  const get = (sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) as Row | undefined;
  const run = (sql: string, ...params: unknown[]) => db.prepare(sql).run(...params);

  const insertNote = db.transaction((n: Parameters<Repository['insertNote']>[0]) => {
    const result = run(SQL.insertNote, n.id, n.linkId, n.marker, n.from, n.contentType, n.bytes, n.sha256, n.originalKey, n.receivedAt);
    if (result.changes === 0) return false;
    run(SQL.insertJob, n.id, n.receivedAt);
    return true;
  });

  // Group commit: inserts that arrive in the same turn of the event loop share one transaction,
  // so one WAL fsync covers many notes. better-sqlite3 blocks while it syncs, so under load the
  // next batch gathers by itself.
  type PendingInsert = { note: NewNote; resolve: (inserted: boolean) => void; reject: (err: unknown) => void };
  let pending: PendingInsert[] = [];
  const insertBatch = db.transaction((notes: NewNote[]) => notes.map((n) => insertNote(n)));
  const flushInserts = () => {
    const batch = pending;
    pending = [];
    try {
      insertBatch.immediate(batch.map((p) => p.note)).forEach((inserted, i) => batch[i]!.resolve(inserted));
    } catch {
      // One failing row must not fail the others: retry each in its own transaction.
      for (const p of batch) {
        try {
          p.resolve(insertNote.immediate(p.note));
        } catch (err) {
          p.reject(err);
        }
      }
    }
  };

  return {
    runner: createRunnerStore(sqliteDriver(db)),
    uploads: createUploadStore(sqliteDriver(db)),
    async migrate() {
      db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)');
      db.transaction(() => {
        const row = get('SELECT MAX(version) AS v FROM schema_migrations');
        const current = Number(row?.v ?? 0);
        MIGRATIONS.forEach((migration, i) => {
          if (i + 1 <= current) return;
          for (const statement of statementsOf(migration)) db.exec(statement);
          run('INSERT INTO schema_migrations (version) VALUES (?)', i + 1);
        });
        for (const params of seedRaceParams()) run(SEED_RACE_SQL, ...params);
      }).immediate();
    },
    async close() {
      db.close();
    },
    async getRace(id) {
      const row = get(SQL.getRace, id);
      return row && toRace(row);
    },
    async createLink({ linkId, runnerName, raceId, createdAt }) {
      db.transaction(() => {
        const runnerId = randomUUID();
        run(SQL.insertRunner, runnerId, runnerName, createdAt);
        run(SQL.insertLink, linkId, runnerId, raceId, createdAt);
      })();
    },
    async findLink(linkId) {
      const row = get(SQL.findLink, linkId);
      return row && toLink(row);
    },
    async revokeLink(linkId, revokedAt) {
      return run(SQL.revokeLink, revokedAt, linkId).changes > 0;
    },
    async findNote(id) {
      const row = get(SQL.findNote, id);
      return row && toNote(row);
    },
    insertNote(note) {
      return new Promise<boolean>((resolve, reject) => {
        if (pending.push({ note, resolve, reject }) === 1) setImmediate(flushInserts);
      });
    },
    async listNotes(linkId) {
      return (db.prepare(SQL.listNotes).all(linkId) as Row[]).map(toNote);
    },
    async claimJob(now, leaseMs) {
      const row = get(SQL.claimJob, now + leaseMs, now, now);
      return row && { noteId: String(row.note_id), attempts: Number(row.attempts) };
    },
    async markConverted(noteId, convertedKey, durationMs) {
      return db.transaction(() => {
        const updated = db.prepare(SQL.markConverted).get(convertedKey, durationMs, noteId);
        run(SQL.deleteJob, noteId);
        return updated !== undefined;
      })();
    },
    async markFailed(noteId, reason) {
      db.transaction(() => {
        run(SQL.markFailed, reason, noteId);
        run(SQL.deleteJob, noteId);
      })();
    },
  };
}
