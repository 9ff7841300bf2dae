/**
 * Owns `device_links` (migrations 12 and 16): which links were opened on which phone, each with its
 * token sealed for that phone and link (server/devices/sealed.ts), when the phone last opened it and
 * when the phone was last seen at all. A phone is its cookie id's SHA-256 here, never the cookie.
 * Rows end: a phone not seen for the cookie's life goes (sweep), and a link keeps its
 * DEVICE_LINK_PHONES_MAX phones seen last.
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

/**
 * The most phones one link keeps (those seen last): as many as may subscribe to its pushes by
 * default (PUSH_MAX_PER_LINK), far more than a runner's friends. Past it the phone seen longest
 * ago goes rather than the new one being refused: whoever filled a link with phones would otherwise
 * keep its real friends out of their list and notifications for the cookie's life, while a phone
 * that goes gets its row back the next time it opens the link (the recorder does at every load).
 */
export const DEVICE_LINK_PHONES_MAX = 500;

export interface DeviceStore {
  /**
   * Remembers that `deviceId` opened the link (again): the sealed token and the time are the latest,
   * unless it was remembered less than REMEMBERED_FOR_MS before (an open recorder asks every minute).
   * The phone counts as seen; past `maxPhones` on the link, the phones seen longest ago go.
   */
  remember(deviceId: string, linkId: string, sealedToken: string, openedAt: number, maxPhones?: number): Promise<void>;
  /** The phone was seen (its cookie renewed): its rows live on, written again at most once per REMEMBERED_FOR_MS. */
  seen(deviceId: string, at: number): Promise<void>;
  /** Whether this phone opened this link (and still has it on its list). */
  has(deviceId: string, linkId: string): Promise<boolean>;
  /** The links this phone opened, the latest `limit` (DEVICE_LIST_MAX) first (revoked ones too: the caller says so). */
  linksOf(deviceId: string, limit?: number): Promise<DeviceLink[]>;
  /** Takes a link off this phone's list; false when it was not on it. */
  forget(deviceId: string, linkId: string): Promise<boolean>;
  /** Removes the rows of phones not seen since `before`; how many went. */
  sweep(before: number): Promise<number>;
}

/**
 * How long a phone's link is taken as freshly opened: an open recorder page asks for its link every
 * minute of a live race, and a row written each time would put every phone at the venue on the
 * database's writer. A phone's list is ordered by when it last opened a link: an hour's grain is plenty.
 */
export const REMEMBERED_FOR_MS = 3600_000;

const SQL = {
  remember:
    'INSERT INTO device_links (device_id, link_id, sealed_token, opened_at, seen_at) VALUES (?, ?, ?, ?, ?) ' +
    'ON CONFLICT (device_id, link_id) DO UPDATE SET sealed_token = excluded.sealed_token, opened_at = excluded.opened_at, seen_at = excluded.seen_at ' +
    'WHERE device_links.opened_at < ?',
  seen: 'UPDATE device_links SET seen_at = ? WHERE device_id = ? AND seen_at < ?',
  // The phones past the link's newest `max` (by when seen, then id): strictly older than the max-th.
  trim:
    'DELETE FROM device_links WHERE link_id = ? AND (seen_at, device_id) < ' +
    '(SELECT seen_at, device_id FROM device_links WHERE link_id = ? ORDER BY seen_at DESC, device_id DESC LIMIT 1 OFFSET ?)',
  has: 'SELECT 1 AS yes FROM device_links WHERE device_id = ? AND link_id = ?',
  linksOf:
    `SELECT d.link_id, d.sealed_token, d.opened_at, l.revoked_at, u.display_name, ${RACE_COLUMNS} ` +
    'FROM device_links d JOIN links l ON l.id = d.link_id JOIN runners u ON u.id = l.runner_id JOIN races r ON r.id = l.race_id ' +
    'WHERE d.device_id = ? ORDER BY d.opened_at DESC, d.link_id LIMIT ?',
  forget: 'DELETE FROM device_links WHERE device_id = ? AND link_id = ?',
  sweep: 'DELETE FROM device_links WHERE seen_at < ?',
} as const;

export function createDeviceStore(sql: SqlDriver): DeviceStore {
  const seen = async (deviceId: string, at: number) => {
    await sql.run(SQL.seen, [at, deviceId, at - REMEMBERED_FOR_MS]);
  };
  return {
    async remember(deviceId, linkId, sealedToken, openedAt, maxPhones = DEVICE_LINK_PHONES_MAX) {
      // Nothing written: the row was written (and the phone seen) less than REMEMBERED_FOR_MS ago.
      if ((await sql.run(SQL.remember, [deviceId, linkId, sealedToken, openedAt, openedAt, openedAt - REMEMBERED_FOR_MS])) === 0) return;
      await seen(deviceId, openedAt);
      await sql.run(SQL.trim, [linkId, linkId, maxPhones - 1]);
    },
    seen,
    async has(deviceId, linkId) {
      return (await sql.all(SQL.has, [deviceId, linkId])).length > 0;
    },
    async linksOf(deviceId, limit = DEVICE_LIST_MAX) {
      return (await sql.all(SQL.linksOf, [deviceId, limit])).map((r) => ({ ...toLink(r), sealedToken: String(r.sealed_token), openedAt: Number(r.opened_at) }));
    },
    async forget(deviceId, linkId) {
      return (await sql.run(SQL.forget, [deviceId, linkId])) > 0;
    },
    sweep: (before) => sql.run(SQL.sweep, [before]),
  };
}
