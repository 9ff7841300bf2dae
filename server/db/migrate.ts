/**
 * Owns the schema's history: MIGRATIONS in order, each applied once (its number recorded in
 * schema_migrations), then the races seeded from src/shared/races.ts. Safe to run on every start.
 */
import { RACES } from '../../src/shared/races.js';
import type { Database, SqlDriver } from './driver.js';
import { RECORDER_TABLES } from './migrations/1-recorder.js';
import { RUNNER_APP_TABLES } from './migrations/2-runner-app.js';
import { ABUSE_LIMIT_TABLES } from './migrations/3-abuse-limits.js';
import { RESUMABLE_UPLOAD_TABLES } from './migrations/4-resumable-uploads.js';
import { SLIDING_ADDRESS_LIMIT_TABLES } from './migrations/5-sliding-address-limit.js';
import { PROGRESS_TABLES } from './migrations/10-progress.js';

/** Append-only: never reorder or edit an entry, never leave a gap; the index + 1 is the version recorded. */
export const MIGRATIONS: readonly string[] = [RECORDER_TABLES, RUNNER_APP_TABLES, ABUSE_LIMIT_TABLES, RESUMABLE_UPLOAD_TABLES, SLIDING_ADDRESS_LIMIT_TABLES, PROGRESS_TABLES];

const SEED_RACE =
  'INSERT INTO races (id, name, race_date, units) VALUES (?, ?, ?, ?) ' +
  'ON CONFLICT (id) DO UPDATE SET name = excluded.name, race_date = excluded.race_date, units = excluded.units';

/** One statement at a time: better-sqlite3 prepares only one, and both drivers then take the same path. */
export const statementsOf = (migration: string): string[] =>
  migration.split(';').map((s) => s.trim()).filter(Boolean);

/** Applies the migrations not yet recorded; returns the versions it applied. */
export async function applyMigrations(tx: SqlDriver, migrations: readonly string[]): Promise<number[]> {
  await tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)');
  // Every version not recorded yet, not just those above the highest: a migration that reached
  // main after a later one (parallel branches) is still applied to databases that ran the later one.
  const recorded = new Set((await tx.all('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
  const applied: number[] = [];
  for (const [i, migration] of migrations.entries()) {
    if (recorded.has(i + 1)) continue;
    for (const statement of statementsOf(migration)) await tx.run(statement);
    await tx.run('INSERT INTO schema_migrations (version) VALUES (?)', [i + 1]);
    applied.push(i + 1);
  }
  return applied;
}

/** Brings the schema up to date and the races in line with the code, once across all servers starting together. */
export async function migrate(db: Database): Promise<void> {
  await db.exclusive(async (tx) => {
    await applyMigrations(tx, MIGRATIONS);
    for (const race of RACES) await tx.run(SEED_RACE, [race.id, race.name, race.date, race.units.join(',')]);
  });
}
