/** Migration 4 and the SQL of resumable uploads: one row per unfinished upload, one row per stored part. */

// `offset` and `length` are reserved or awkward words in SQL, hence the upload_ prefixes.
export const UPLOAD_MIGRATION = `
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

/** Both statements of a commit carry the same guard, so in one transaction both apply or neither. */
const HELD_AT = 'note_id = ? AND lease_owner = ? AND upload_offset = ?';

export const UPLOAD_SQL = {
  find: 'SELECT * FROM uploads WHERE note_id = ?',
  create:
    'INSERT INTO uploads (note_id, link_id, marker, sender, content_type, sha256, upload_length, upload_offset, lease_owner, lease_until, created_at, expires_at) ' +
    'VALUES (?, ?, ?, ?, ?, ?, ?, 0, NULL, 0, ?, ?) ON CONFLICT (note_id) DO NOTHING',
  // Takes the lease when it is free or run out; RETURNING says whether this caller got it.
  lease:
    'UPDATE uploads SET lease_owner = ?, lease_until = ? WHERE note_id = ? AND (lease_owner IS NULL OR lease_until < ?) RETURNING upload_offset',
  renew: 'UPDATE uploads SET lease_until = ? WHERE note_id = ? AND lease_owner = ?',
  release: 'UPDATE uploads SET lease_owner = NULL, lease_until = 0 WHERE note_id = ? AND lease_owner = ?',
  setLength: 'UPDATE uploads SET upload_length = ? WHERE note_id = ? AND upload_length IS NULL',
  addPart:
    'INSERT INTO upload_parts (note_id, part_offset, bytes, sha256, blob_key) ' +
    `SELECT note_id, upload_offset, CAST(? AS BIGINT), ?, ? FROM uploads WHERE ${HELD_AT}`,
  advance: `UPDATE uploads SET upload_offset = upload_offset + ? WHERE ${HELD_AT} RETURNING upload_offset`,
  parts: 'SELECT * FROM upload_parts WHERE note_id = ? ORDER BY part_offset',
  deleteParts: 'DELETE FROM upload_parts WHERE note_id = ?',
  deleteUpload: 'DELETE FROM uploads WHERE note_id = ?',
  expired: 'SELECT * FROM uploads WHERE expires_at < ? AND (lease_owner IS NULL OR lease_until < ?) ORDER BY expires_at LIMIT ?',
  pendingBytes: 'SELECT COALESCE(SUM(COALESCE(upload_length, upload_offset)), 0) AS bytes, COUNT(*) AS uploads FROM uploads WHERE link_id = ?',
} as const;
