/**
 * Migration 16: the device cookie becomes a key only this server issues
 * (server/devices/cookie.ts), and a device link's token is sealed for its phone and link
 * (server/devices/sealed.ts). What the cookie of migration 12 named cannot be trusted: any
 * well-formed value was adopted, so a phone's id may have been planted by someone else. And a
 * migration cannot re-seal (it never sees SESSION_SECRET). So the rows it made go: every phone's
 * list (refilled as it opens its links again; the recorder does at every load), and every push
 * subscription with its alerts and queued pushes (a planted id's subscription would go on receiving
 * the notices of notes sent under it; a phone turns notifications on again). `seen_at` (epoch ms)
 * is when the phone was last seen, on all its rows: a phone unseen for the cookie's 400 days goes.
 */
export const DEVICE_KEY_TABLES = `
  DELETE FROM push_deliveries;
  DELETE FROM push_alerts;
  DELETE FROM push_subscriptions;
  DELETE FROM device_links;
  ALTER TABLE device_links ADD COLUMN seen_at BIGINT NOT NULL DEFAULT 0;
  CREATE INDEX device_links_by_seen ON device_links (seen_at);
  DROP INDEX device_links_by_link;
  CREATE INDEX device_links_by_link_seen ON device_links (link_id, seen_at, device_id)
`;
