/**
 * Migration 5: the per-address upload limit counts the last UPLOAD_WINDOW_SECONDS, not a window
 * fixed to the clock. With fixed windows an address could start twice the limit across a window's
 * end (60 before it, 60 after). One row per upload an address started (refusals are not kept),
 * and one lock row per address that serialises its admissions across servers, as link_quota_locks
 * does for links.
 */
export const SLIDING_ADDRESS_LIMIT_TABLES = `
  DROP TABLE address_uploads;
  CREATE TABLE address_upload_starts (
    address TEXT NOT NULL,
    started_at BIGINT NOT NULL
  );
  CREATE INDEX address_upload_starts_by_address ON address_upload_starts (address, started_at);
  CREATE INDEX address_upload_starts_by_time ON address_upload_starts (started_at);
  CREATE TABLE address_quota_locks (
    address TEXT PRIMARY KEY,
    touched_at BIGINT NOT NULL
  );
  CREATE INDEX address_quota_locks_by_time ON address_quota_locks (touched_at)
`;
