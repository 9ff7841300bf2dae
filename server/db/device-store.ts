/**
 * Owns `device_links` (migration 12): which links were opened on which phone, each with its token
 * sealed (server/devices/sealed.ts). A phone is its cookie's SHA-256 here, never the cookie.
 */
import type { SqlDriver } from './driver.js';
import { RACE_COLUMNS } from './race-store.js';
import { toLink } from './rows.js';
import type { LinkView } from './types.js';

/** A link as a phone opened it: the link, its sealed token, and when the phone last opened it (epoch ms). */
export interface DeviceLink extends LinkView {
  sealedToken: string;
  openedAt: number;
}

/**
 * The most links one phone's list gives back (the latest opened): a list a person reads on a phone,
 * and a bound on what one request reads however many links a cookie was used with.
 */
export const DEVICE_LIST_MAX = 100;

export interface DeviceStore {
  /**
   * Remembers that `deviceId` opened the link (again): the sealed token and the time are the latest,
   * unless it was remembered less than REMEMBERED_FOR_MS before (an open recorder asks every minute).
   */
  remember(deviceId: string, linkId: string, sealedToken: string, openedAt: number): Promise<void>;
  /** The links this phone opened, the latest `limit` (DEVICE_LIST_MAX) first (revoked ones too: the caller says so). */
  linksOf(deviceId: string, limit?: number): Promise<DeviceLink[]>;
  /** Takes a link off this phone's list; false when it was not on it. */
  forget(deviceId: string, linkId: string): Promise<boolean>;
}

/**
 * How long a phone's link is taken as freshly opened: an open recorder page asks for its link every
 * minute of a live race, and a row written each time would put every phone at the venue on the
 * database's writer. A phone's list is ordered by when it last opened a link: an hour's grain is plenty.
 */
export const REMEMBERED_FOR_MS = 3600_000;

const SQL = {
  remember:
    'INSERT INTO device_links (device_id, link_id, sealed_token, opened_at) VALUES (?, ?, ?, ?) ' +
    'ON CONFLICT (device_id, link_id) DO UPDATE SET sealed_token = excluded.sealed_token, opened_at = excluded.opened_at WHERE device_links.opened_at < ?',
  linksOf:
    `SELECT d.link_id, d.sealed_token, d.opened_at, l.revoked_at, u.display_name, ${RACE_COLUMNS} ` +
    'FROM device_links d JOIN links l ON l.id = d.link_id JOIN runners u ON u.id = l.runner_id JOIN races r ON r.id = l.race_id ' +
    'WHERE d.device_id = ? ORDER BY d.opened_at DESC, d.link_id LIMIT ?',
  forget: 'DELETE FROM device_links WHERE device_id = ? AND link_id = ?',
} as const;

export function createDeviceStore(sql: SqlDriver): DeviceStore {
  return {
    async remember(deviceId, linkId, sealedToken, openedAt) {
      await sql.run(SQL.remember, [deviceId, linkId, sealedToken, openedAt, openedAt - REMEMBERED_FOR_MS]);
    },
    async linksOf(deviceId, limit = DEVICE_LIST_MAX) {
      return (await sql.all(SQL.linksOf, [deviceId, limit])).map((r) => ({ ...toLink(r), sealedToken: String(r.sealed_token), openedAt: Number(r.opened_at) }));
    },
    async forget(deviceId, linkId) {
      return (await sql.run(SQL.forget, [deviceId, linkId])) > 0;
    },
  };
}
