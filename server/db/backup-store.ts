/**
 * Owns the database's side of a PostgreSQL backup and restore: the server's major version (which
 * pg_dump and pg_restore must match), a snapshot that pg_dump and our own reads share, so the
 * objects copied are exactly those the dump's rows name, and whether a database is empty.
 */
import { createBlobRefStore, type BlobRefStore } from './blob-refs-store.js';
import type { Database, SqlDriver } from './driver.js';

/** The server's major version (15 for 15.14). */
export async function serverMajorVersion(db: SqlDriver): Promise<number> {
  const [row] = await db.all('SHOW server_version_num');
  return Math.floor(Number(row?.server_version_num) / 10_000);
}

/** Up to `limit` tables, views or sequences outside PostgreSQL's own schemas: none on a database just made with CREATE DATABASE. */
export async function userRelations(db: SqlDriver, limit = 5): Promise<string[]> {
  const rows = await db.all(
    'SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace ' +
      "WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema') " +
      "AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' ORDER BY 1, 2 LIMIT ?",
    [limit],
  );
  return rows.map((r) => `${String(r.schema)}.${String(r.name)}`);
}

/**
 * Runs `work` inside a read-only repeatable-read transaction whose snapshot it exports: `work`
 * hands the snapshot's name to pg_dump (--snapshot) and reads the same rows through `refs`.
 * The snapshot lives as long as the transaction, so `work` must be done with both before returning.
 */
export function withExportedSnapshot<T>(db: Database, work: (snapshot: string, refs: BlobRefStore) => Promise<T>): Promise<T> {
  if (db.kind !== 'postgres') throw new Error('An exported snapshot is PostgreSQL only.');
  return db.transaction(async (tx) => {
    await tx.run('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const [row] = await tx.all('SELECT pg_export_snapshot() AS snapshot');
    return work(String(row!.snapshot), createBlobRefStore(tx));
  });
}
