/**
 * Migration 15: the race catalogue's history. Every edit-race and remove-race leaves a
 * row: the race's id, when (ISO 8601, UTC), who ran it (user@host of the CLI), what it did
 * ('edited' or 'removed') and the race's fields before and after (JSON; no `after` for a removal).
 * It is the operator's audit trail (`npm run admin -- race-history`), and a removal in it keeps the
 * seed (server/db/migrate.ts) from bringing one of the spec's nine races back at the next start.
 * No foreign key: a removed race's history stays. Ids are random (UUID text): both databases.
 */
export const RACE_CHANGE_TABLES = `
  CREATE TABLE race_changes (
    id TEXT PRIMARY KEY,
    race_id TEXT NOT NULL,
    changed_at TEXT NOT NULL,
    changed_by TEXT NOT NULL,
    action TEXT NOT NULL,
    before_json TEXT NOT NULL,
    after_json TEXT
  );
  CREATE INDEX race_changes_by_race ON race_changes (race_id, changed_at)
`;
