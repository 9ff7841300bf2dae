/**
 * Migration 12: the phones friends record on. A phone is named by an opaque cookie
 * (server/devices/cookie.ts); the database keeps only its SHA-256 (`device_id`), as it keeps link
 * tokens, so a leaked database names no phone's cookie. `device_links` remembers which links were
 * opened on a phone, with the link's token sealed under the session secret (server/devices/sealed.ts)
 * so the installed app, which on iPhone starts with the site's cookies and nothing else, can be
 * given its recorders again; `opened_at` (epoch ms) is the last time. `notes.device_id` and
 * `uploads.device_id` name the phone a note came from (null before this migration, or without the
 * cookie): whom to tell when that note is heard, and never another friend on the same link.
 */
export const DEVICE_TABLES = `
  CREATE TABLE device_links (
    device_id TEXT NOT NULL,
    link_id TEXT NOT NULL REFERENCES links(id) ON DELETE CASCADE,
    sealed_token TEXT NOT NULL,
    opened_at BIGINT NOT NULL,
    PRIMARY KEY (device_id, link_id)
  );
  CREATE INDEX device_links_by_link ON device_links (link_id);
  ALTER TABLE notes ADD COLUMN device_id TEXT;
  ALTER TABLE uploads ADD COLUMN device_id TEXT
`;
