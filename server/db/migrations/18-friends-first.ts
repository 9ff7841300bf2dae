/**
 * Migration 18: a link's friends come first (server/db/device-store.ts). `device_links.joined_at`
 * (epoch ms) is when the phone came onto the link, so the new phones a link takes in an hour are
 * counted (rows of earlier phones: 0, long ago); `took_part_at` is when it first recorded a note,
 * turned notifications on or asked for an alert there (null: it did nothing yet), so a newcomer
 * pushes only phones that did nothing off a full link. Phones that already sent a note or hold a
 * subscription on the link are marked so here.
 */
export const FRIENDS_FIRST_COLUMNS = `
  ALTER TABLE device_links ADD COLUMN joined_at BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE device_links ADD COLUMN took_part_at BIGINT;
  UPDATE device_links SET took_part_at = opened_at
    WHERE EXISTS (SELECT 1 FROM push_subscriptions s WHERE s.device_id = device_links.device_id AND s.link_id = device_links.link_id)
    OR EXISTS (SELECT 1 FROM notes n WHERE n.link_id = device_links.link_id AND n.device_id = device_links.device_id);
  CREATE INDEX device_links_by_link_joined ON device_links (link_id, joined_at)
`;
