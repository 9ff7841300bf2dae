/**
 * Migration 6: the race catalogue. Each race gets its city's IANA time zone, its local start
 * (HH:MM) and that start as an instant (ISO 8601, UTC, computed once when the race is written, so
 * listing races needs no time-zone arithmetic), and optionally a course: the whole track (GeoJSON
 * coordinates, for placing positions), the app's simplified copy as served with its strong ETag,
 * its length, and each marker's point (a JSON array: always read and written whole with the
 * course, and small, so the race list reads it without touching the track).
 * The schedule columns are filled by the seed (server/db/migrate.ts) for the nine races of the
 * spec and by `add-race` for the rest; a row has all three or, only between this migration and
 * the seed in the same transaction, none.
 */
export const RACE_CATALOGUE_TABLES = `
  ALTER TABLE races ADD COLUMN time_zone TEXT;
  ALTER TABLE races ADD COLUMN local_start TEXT;
  ALTER TABLE races ADD COLUMN starts_at TEXT;
  ALTER TABLE races ADD COLUMN course_line TEXT;
  ALTER TABLE races ADD COLUMN course_app TEXT;
  ALTER TABLE races ADD COLUMN course_etag TEXT;
  ALTER TABLE races ADD COLUMN course_meters DOUBLE PRECISION;
  ALTER TABLE races ADD COLUMN course_markers TEXT;
  CREATE INDEX races_by_start ON races (starts_at, id)
`;
