/** The database schema and seed, in SQL both SQLite and PostgreSQL accept. */
import { RACES } from '../../src/shared/races.js';
import { RUNNER_MIGRATION } from './runner-schema.js';
import { UPLOAD_MIGRATION } from './upload-schema.js';

/** Applied in order; the index + 1 is the schema version recorded in schema_migrations. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE races (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    race_date TEXT NOT NULL,
    units TEXT NOT NULL
  );
  CREATE TABLE runners (
    id TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE links (
    id TEXT PRIMARY KEY,
    runner_id TEXT NOT NULL REFERENCES runners(id),
    race_id TEXT NOT NULL REFERENCES races(id),
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE TABLE notes (
    id TEXT PRIMARY KEY,
    link_id TEXT NOT NULL REFERENCES links(id),
    marker TEXT NOT NULL,
    sender TEXT NOT NULL,
    content_type TEXT NOT NULL,
    bytes BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    original_key TEXT NOT NULL,
    received_at TEXT NOT NULL,
    status TEXT NOT NULL,
    converted_key TEXT,
    duration_ms BIGINT,
    failure_reason TEXT
  );
  CREATE INDEX notes_by_link ON notes (link_id, received_at);
  CREATE TABLE jobs (
    note_id TEXT PRIMARY KEY REFERENCES notes(id),
    attempts INTEGER NOT NULL,
    locked_until BIGINT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX jobs_by_lease ON jobs (locked_until);
  `,
  RUNNER_MIGRATION,
  // 3: reserved for b2-abuse's per-link quotas (merged from its branch); empty until then.
  '',
  UPLOAD_MIGRATION,
];

export const SEED_RACE_SQL =
  'INSERT INTO races (id, name, race_date, units) VALUES (?, ?, ?, ?) ' +
  'ON CONFLICT (id) DO UPDATE SET name = excluded.name, race_date = excluded.race_date, units = excluded.units';

export const seedRaceParams = (): unknown[][] => RACES.map((r) => [r.id, r.name, r.date, r.units.join(',')]);

/** Splits a migration into statements: pg accepts several at once, better-sqlite3's exec too, but keep one path. */
export const statementsOf = (migration: string): string[] =>
  migration.split(';').map((s) => s.trim()).filter(Boolean);

export const SQL = {
  getRace: 'SELECT id, name, race_date, units FROM races WHERE id = ?',
  insertRunner: 'INSERT INTO runners (id, display_name, created_at) VALUES (?, ?, ?)',
  insertLink: 'INSERT INTO links (id, runner_id, race_id, created_at) VALUES (?, ?, ?, ?)',
  findLink:
    'SELECT l.id AS link_id, l.revoked_at, u.display_name, r.id, r.name, r.race_date, r.units ' +
    'FROM links l JOIN runners u ON u.id = l.runner_id JOIN races r ON r.id = l.race_id WHERE l.id = ?',
  revokeLink: 'UPDATE links SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?',
  findNote: 'SELECT * FROM notes WHERE id = ?',
  insertNote:
    'INSERT INTO notes (id, link_id, marker, sender, content_type, bytes, sha256, original_key, received_at, status) ' +
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'received') ON CONFLICT (id) DO NOTHING",
  insertJob: 'INSERT INTO jobs (note_id, attempts, locked_until, created_at) VALUES (?, 0, 0, ?)',
  listNotes: 'SELECT * FROM notes WHERE link_id = ? ORDER BY received_at, id',
  // The inner SELECT picks a candidate; the outer WHERE re-checks the lease, so when two
  // servers race for one job only one UPDATE matches (PostgreSQL re-evaluates it on the locked row).
  claimJob:
    'UPDATE jobs SET locked_until = ?, attempts = attempts + 1 ' +
    'WHERE note_id = (SELECT note_id FROM jobs WHERE locked_until < ? ORDER BY created_at, note_id LIMIT 1) ' +
    'AND locked_until < ? RETURNING note_id, attempts',
  markConverted: "UPDATE notes SET status = 'converted', converted_key = ?, duration_ms = ?, failure_reason = NULL WHERE id = ? RETURNING id",
  markFailed: "UPDATE notes SET status = 'failed', failure_reason = ? WHERE id = ?",
  deleteJob: 'DELETE FROM jobs WHERE note_id = ?',
} as const;
