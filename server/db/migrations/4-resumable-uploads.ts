/**
 * Migration 4: resumable note uploads. One row per unfinished upload (its offset, length and the
 * append lease), one row per stored part (a blob each, joined when the upload completes).
 * `offset` and `length` are reserved or awkward words in SQL, hence the upload_ prefixes.
 */
export const RESUMABLE_UPLOAD_TABLES = `
  CREATE TABLE uploads (
    note_id TEXT PRIMARY KEY,
    link_id TEXT NOT NULL REFERENCES links(id),
    marker TEXT NOT NULL,
    sender TEXT NOT NULL,
    content_type TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    upload_length BIGINT,
    upload_offset BIGINT NOT NULL,
    lease_owner TEXT,
    lease_until BIGINT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX uploads_by_expiry ON uploads (expires_at);
  CREATE INDEX uploads_by_link ON uploads (link_id);
  CREATE TABLE upload_parts (
    note_id TEXT NOT NULL REFERENCES uploads(note_id),
    part_offset BIGINT NOT NULL,
    bytes BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    blob_key TEXT NOT NULL,
    PRIMARY KEY (note_id, part_offset)
  );
`;
