/** Owns the operator's questions to the database: is the schema current, what time is it there, how long is the conversion queue. */
import type { SqlDriver } from './driver.js';
import { REQUIRED_VERSIONS } from './migrate.js';

export interface OpsStore {
  /** Answers only when the database does; throws otherwise. True when every migration is applied. */
  migrationsApplied(): Promise<boolean>;
  /** Every migration version recorded, lowest first (the preflight looks for ones this code does not know). */
  migrationVersions(): Promise<number[]>;
  /**
   * The database's own clock (CURRENT_TIMESTAMP): PostgreSQL's host, to the millisecond; SQLite's is
   * this process's own, to the second.
   */
  databaseNow(): Promise<Date>;
  /** Notes waiting for conversion or being converted. */
  queueDepth(): Promise<number>;
}

export function createOpsStore(sql: SqlDriver): OpsStore {
  return {
    async migrationsApplied() {
      // Every version recorded, not just the highest: a migration merged late may fill a gap.
      const recorded = new Set((await sql.all('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
      return REQUIRED_VERSIONS.every((v) => recorded.has(v));
    },
    async migrationVersions() {
      return (await sql.all('SELECT version FROM schema_migrations ORDER BY version')).map((r) => Number(r.version));
    },
    async databaseNow() {
      const [row] = await sql.all('SELECT CURRENT_TIMESTAMP AS now');
      const now = row?.now;
      // PostgreSQL's driver gives a Date; SQLite gives its UTC text, 'YYYY-MM-DD HH:MM:SS'.
      return now instanceof Date ? now : new Date(`${String(now).replace(' ', 'T')}Z`);
    },
    async queueDepth() {
      const [row] = await sql.all('SELECT COUNT(*) AS n FROM jobs');
      return Number(row?.n ?? 0);
    },
  };
}
