/**
 * Owns the schema's history: MIGRATIONS in order, each applied once (its number recorded in
 * schema_migrations), then the races seeded from src/shared/races.ts. Safe to run on every start.
 */
import { RACES } from '../../src/shared/races.js';
import type { Database, SqlDriver } from './driver.js';
import { RECORDER_TABLES } from './migrations/1-recorder.js';
import { RUNNER_APP_TABLES } from './migrations/2-runner-app.js';
import { RESUMABLE_UPLOAD_TABLES } from './migrations/4-resumable-uploads.js';

/** Append-only: never reorder or edit an entry; the index + 1 is the version recorded. */
export const MIGRATIONS: readonly string[] = [
  RECORDER_TABLES,
  RUNNER_APP_TABLES,
  // 3: reserved for b2-abuse's per-link quotas; empty until that branch fills it.
  '',
  RESUMABLE_UPLOAD_TABLES,
];

const SEED_RACE =
  'INSERT INTO races (id, name, race_date, units) VALUES (?, ?, ?, ?) ' +
  'ON CONFLICT (id) DO UPDATE SET name = excluded.name, race_date = excluded.race_date, units = excluded.units';

/** One statement at a time: better-sqlite3 prepares only one, and both drivers then take the same path. */
export const statementsOf = (migration: string): string[] =>
  migration.split(';').map((s) => s.trim()).filter(Boolean);

/** Applies the migrations not yet recorded; returns the versions it applied. */
export async function applyMigrations(tx: SqlDriver, migrations: readonly string[]): Promise<number[]> {
  await tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)');
  const [row] = await tx.all('SELECT MAX(version) AS v FROM schema_migrations');
  const current = Number(row?.v ?? 0);
  const applied: number[] = [];
  for (const [i, migration] of migrations.entries()) {
    if (i + 1 <= current) continue;
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
