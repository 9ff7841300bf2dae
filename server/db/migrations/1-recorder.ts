/** Migration 1: races, runners, their recording links, the notes sent through them and the conversion jobs. */
export const RECORDER_TABLES = `
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
`;
