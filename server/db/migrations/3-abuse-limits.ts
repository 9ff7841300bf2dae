/**
 * Migration 3: limits against abuse, counted in the database so they hold across servers.
 * Upload reservations (room held on a link while a note streams in), one lock row per link that
 * serialises reservations, upload counts per address and time window, and the refresh-token
 * hashes a session has already used (so a second use is recognised as theft, not as unknown).
 */
export const ABUSE_LIMIT_TABLES = `
  CREATE TABLE upload_reservations (
    id TEXT PRIMARY KEY,
    link_id TEXT NOT NULL,
    note_id TEXT NOT NULL,
    bytes BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX upload_reservations_by_link ON upload_reservations (link_id, expires_at);
  CREATE INDEX upload_reservations_by_expiry ON upload_reservations (expires_at);
  CREATE TABLE link_quota_locks (
    link_id TEXT PRIMARY KEY,
    touched_at BIGINT NOT NULL
  );
  CREATE TABLE address_uploads (
    address TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    uploads INTEGER NOT NULL,
    PRIMARY KEY (address, window_start)
  );
  CREATE INDEX address_uploads_by_window ON address_uploads (window_start);
  CREATE TABLE used_refresh_tokens (
    hash TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    used_at TEXT NOT NULL
  );
  CREATE INDEX used_refresh_tokens_by_session ON used_refresh_tokens (session_id)
`;
