/**
 * Owns the schema's history: MIGRATIONS in order, each applied once (its number recorded in
 * schema_migrations), then the nine races of the spec seeded (./seed-races.ts). Safe to run on every start.
 */
import { raceStartsAt } from '../../contract/raceClock.js';
import type { Database, SqlDriver } from './driver.js';
import { RECORDER_TABLES } from './migrations/1-recorder.js';
import { RUNNER_APP_TABLES } from './migrations/2-runner-app.js';
import { ABUSE_LIMIT_TABLES } from './migrations/3-abuse-limits.js';
import { RESUMABLE_UPLOAD_TABLES } from './migrations/4-resumable-uploads.js';
import { SLIDING_ADDRESS_LIMIT_TABLES } from './migrations/5-sliding-address-limit.js';
import { RACE_CATALOGUE_TABLES } from './migrations/6-race-catalogue.js';
import { CROWD_LIMIT_TABLES } from './migrations/7-crowd-limits.js';
import { NOTE_CHANGE_TABLES } from './migrations/8-note-changes.js';
import { CONVERSION_LEASE_AND_DIGEST_COLUMNS } from './migrations/9-conversion-lease-and-digest.js';
import { PROGRESS_TABLES } from './migrations/10-progress.js';
import { CONVERSION_DEADLINE_COLUMNS } from './migrations/11-conversion-deadlines.js';
import { DEVICE_TABLES } from './migrations/12-devices.js';
import { PUSH_TABLES } from './migrations/13-push.js';
import { RACE_IMAGE_COLUMNS } from './migrations/14-race-images.js';
import { RACE_CHANGE_TABLES } from './migrations/15-race-changes.js';
import { DEVICE_KEY_TABLES } from './migrations/16-device-keys.js';
import { SEED_RACES } from './seed-races.js';
import { PUSH_TIMES_TABLES } from './migrations/17-push-times.js';
import { FRIENDS_FIRST_COLUMNS } from './migrations/18-friends-first.js';
import { ON_PHONE_COLUMNS } from './migrations/19-on-phone.js';

/**
 * What stands in MIGRATIONS for a number assigned to a branch not merged yet (as 13 did for push).
 * Never recorded as applied: a database that ran main meanwhile still gets the real migration when
 * the branch brings it into that place.
 */
export const PLACEHOLDER = '';

/** Append-only: never reorder or edit an entry, never leave a gap; the index + 1 is the version recorded. */
export const MIGRATIONS: readonly string[] = [
  RECORDER_TABLES,
  RUNNER_APP_TABLES,
  ABUSE_LIMIT_TABLES,
  RESUMABLE_UPLOAD_TABLES,
  SLIDING_ADDRESS_LIMIT_TABLES,
  RACE_CATALOGUE_TABLES,
  CROWD_LIMIT_TABLES,
  NOTE_CHANGE_TABLES,
  CONVERSION_LEASE_AND_DIGEST_COLUMNS,
  PROGRESS_TABLES,
  CONVERSION_DEADLINE_COLUMNS,
  DEVICE_TABLES,
  PUSH_TABLES,
  RACE_IMAGE_COLUMNS,
  RACE_CHANGE_TABLES,
  DEVICE_KEY_TABLES,
  PUSH_TIMES_TABLES,
  FRIENDS_FIRST_COLUMNS,
  ON_PHONE_COLUMNS,
];

/** The versions a database must have recorded to be current: every one but the placeholders. */
export const REQUIRED_VERSIONS: readonly number[] = MIGRATIONS.flatMap((m, i) => (m === PLACEHOLDER ? [] : [i + 1]));

/**
 * A seed race is written whole once: on a new database, or on one whose row predates the catalogue
 * (migration 6: no time zone yet). After that the row is the operator's (a course they set, say)
 * and a start never overwrites it.
 */
const SEED_RACE =
  'INSERT INTO races (id, name, race_date, units, time_zone, local_start, starts_at) VALUES (?, ?, ?, ?, ?, ?, ?) ' +
  'ON CONFLICT (id) DO UPDATE SET name = excluded.name, race_date = excluded.race_date, units = excluded.units, ' +
  'time_zone = excluded.time_zone, local_start = excluded.local_start, starts_at = excluded.starts_at WHERE races.time_zone IS NULL';

const REMOVED_RACES = "SELECT DISTINCT race_id FROM race_changes WHERE action = 'removed'";

/** One statement at a time: better-sqlite3 prepares only one, and both drivers then take the same path. */
export const statementsOf = (migration: string): string[] =>
  migration
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean);

/** Applies the migrations not yet recorded; returns the versions it applied. */
export async function applyMigrations(tx: SqlDriver, migrations: readonly string[]): Promise<number[]> {
  await tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)');
  // Every version not recorded yet, not just those above the highest: a migration that reached
  // main after a later one (parallel branches) is still applied to databases that ran the later one.
  const recorded = new Set((await tx.all('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
  const applied: number[] = [];
  for (const [i, migration] of migrations.entries()) {
    if (recorded.has(i + 1) || migration === PLACEHOLDER) continue;
    for (const statement of statementsOf(migration)) await tx.run(statement);
    await tx.run('INSERT INTO schema_migrations (version) VALUES (?)', [i + 1]);
    applied.push(i + 1);
  }
  return applied;
}

/** Brings the schema up to date and seeds the spec's races, once across all servers starting together. */
export async function migrate(db: Database): Promise<void> {
  await db.exclusive(async (tx) => {
    await applyMigrations(tx, MIGRATIONS);
    // A seed race the operator removed (remove-race) stays removed.
    const removed = new Set((await tx.all(REMOVED_RACES)).map((r) => String(r.race_id)));
    for (const race of SEED_RACES.filter((r) => !removed.has(r.id))) {
      const startsAt = raceStartsAt(race.date, race.start, race.timeZone);
      await tx.run(SEED_RACE, [race.id, race.name, race.date, race.units.join(','), race.timeZone, race.start, startsAt]);
    }
  });
}
