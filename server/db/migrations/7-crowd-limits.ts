/**
 * Migration 7: limits a crowd passes. The per-address budget counts notes, not attempts: each row
 * now names its note, and one address counts one note once however often a bad link makes the
 * phone retry it (old rows keep a NULL note and count as before until they leave the window). The
 * link's usage is read from an index alone (notes and bytes per link), so checking it inside the
 * note's own transaction costs the same at the 200th note as at the first.
 */
export const CROWD_LIMIT_TABLES = `
  ALTER TABLE address_upload_starts ADD COLUMN note_id TEXT;
  CREATE UNIQUE INDEX address_upload_starts_by_note ON address_upload_starts (address, note_id);
  CREATE INDEX notes_by_link_bytes ON notes (link_id, bytes);
  CREATE INDEX upload_reservations_by_note ON upload_reservations (note_id);
  ALTER TABLE address_quota_locks ADD COLUMN started INTEGER;
  ALTER TABLE link_quota_locks ADD COLUMN notes BIGINT;
  ALTER TABLE link_quota_locks ADD COLUMN bytes BIGINT
`;
