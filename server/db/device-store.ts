/**
 * Owns `device_links` (migrations 12, 16 and 18): which links were opened on which phone, each with
 * its token sealed for that phone and link (server/devices/sealed.ts), when the phone came onto the
 * link, last opened it, was last seen at all, and first took part there. A phone is its cookie id's
 * SHA-256 here, never the cookie. Rows end: a phone not seen for the cookie's life goes (sweep).
 *
 * A link's friends come first. A link holds at most `maxPhones` phones and takes at most
 * `perWindow` new ones in any `windowMs`, counted here, in the database, so every server counts
 * together. Past `maxPhones` a newcomer pushes off the phone that did nothing there (no note, no
 * notifications, no alert: took_part_at is null) seen longest ago, never one that took part, and
 * never one that came in the last window (the window's count stays exact). Whoever holds a link can
 * bring phones only at that pace, and they can never push its friends off.
 */
import type { SqlDriver, Statement } from './driver.js';
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

/** How many phones a link holds, and how many new ones it takes in a window of time. */
export interface LinkPhoneLimits {
  maxPhones: number;
  perWindow: number;
  windowMs: number;
}

/**
 * The most phones one link holds: as many as may subscribe to its pushes by default
 * (PUSH_MAX_PER_LINK), far more than a runner's friends.
 */
export const DEVICE_LINK_PHONES_MAX = 500;

/** The window new phones are counted in: an hour. */
export const NEW_PHONES_WINDOW_MS = 3600_000;

/** Whether the phone is on the link now; if not, until when the link takes no new phone (epoch ms), or that it is full of friends. */
export type Joined = { kind: 'on' } | { kind: 'busy'; until: number } | { kind: 'full' };

export interface DeviceStore {
  /**
   * `deviceId` opened the link: a phone on it already is written again (the sealed token and the
   * time) only when it was last REMEMBERED_FOR_MS ago or more (an open recorder asks every minute);
   * a new one comes on within `limits`. The phone counts as seen.
   */
  remember(deviceId: string, linkId: string, sealedToken: string, openedAt: number, limits: LinkPhoneLimits): Promise<Joined>;
  /** The phone was seen (its cookie renewed): its rows live on, written again at most once per REMEMBERED_FOR_MS. */
  seen(deviceId: string, at: number): Promise<void>;
  /** Whether this phone opened this link (and still has it on its list). */
  has(deviceId: string, linkId: string): Promise<boolean>;
  /** The phone recorded a note, turned notifications on or asked for an alert on the link: it is never pushed off by a newcomer. */
  tookPart(deviceId: string, linkId: string, at: number): Promise<void>;
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

const TOOK_PART = 'UPDATE device_links SET took_part_at = ? WHERE device_id = ? AND link_id = ? AND took_part_at IS NULL';

/** The phone took part on the link (tookPart), inside another store's transaction: a note's. */
export const phoneTookPart = (deviceId: string, linkId: string, at: number): Statement => [TOOK_PART, [at, deviceId, linkId]];

const SQL = {
  openedAt: 'SELECT opened_at FROM device_links WHERE device_id = ? AND link_id = ?',
  renew: 'UPDATE device_links SET sealed_token = ?, opened_at = ?, seen_at = ? WHERE device_id = ? AND link_id = ? AND opened_at < ?',
  seen: 'UPDATE device_links SET seen_at = ? WHERE device_id = ? AND seen_at < ?',
  // Racing joins of one link take turns: PostgreSQL holds the link's row until the commit (SQLite's
  // write transactions run alone), and each then counts what the one before it committed.
  holdLink: 'UPDATE links SET revoked_at = revoked_at WHERE id = ?',
  // The link's perWindow-th newest phone: while it came within the window, the window is full.
  nthNewest: 'SELECT joined_at FROM device_links WHERE link_id = ? ORDER BY joined_at DESC LIMIT 1 OFFSET ?',
  phones: 'SELECT COUNT(*) AS n FROM device_links WHERE link_id = ?',
  pushOffIdle:
    'DELETE FROM device_links WHERE link_id = ? AND device_id = (SELECT device_id FROM device_links ' +
    'WHERE link_id = ? AND took_part_at IS NULL AND joined_at <= ? ORDER BY seen_at, device_id LIMIT 1)',
  firstIdleJoin: 'SELECT MIN(joined_at) AS joined_at FROM device_links WHERE link_id = ? AND took_part_at IS NULL',
  join:
    'INSERT INTO device_links (device_id, link_id, sealed_token, opened_at, seen_at, joined_at) VALUES (?, ?, ?, ?, ?, ?) ' +
    'ON CONFLICT (device_id, link_id) DO NOTHING',
  has: 'SELECT 1 AS yes FROM device_links WHERE device_id = ? AND link_id = ?',
  linksOf:
    `SELECT d.link_id, d.sealed_token, d.opened_at, l.revoked_at, u.display_name, ${RACE_COLUMNS} ` +
    'FROM device_links d JOIN links l ON l.id = d.link_id JOIN runners u ON u.id = l.runner_id JOIN races r ON r.id = l.race_id ' +
    'WHERE d.device_id = ? ORDER BY d.opened_at DESC, d.link_id LIMIT ?',
  forget: 'DELETE FROM device_links WHERE device_id = ? AND link_id = ?',
  sweep: 'DELETE FROM device_links WHERE seen_at < ?',
} as const;

/** A new phone comes onto the link within its limits, in the caller's transaction. */
async function join(tx: SqlDriver, row: [deviceId: string, linkId: string, sealedToken: string], at: number, limits: LinkPhoneLimits): Promise<Joined> {
  const linkId = row[1];
  const since = at - limits.windowMs;
  await tx.run(SQL.holdLink, [linkId]);
  const [limiting] = await tx.all(SQL.nthNewest, [linkId, limits.perWindow - 1]);
  if (limiting && Number(limiting.joined_at) > since) return { kind: 'busy', until: Number(limiting.joined_at) + limits.windowMs };
  const [count] = await tx.all(SQL.phones, [linkId]);
  if (Number(count?.n ?? 0) >= limits.maxPhones && (await tx.run(SQL.pushOffIdle, [linkId, linkId, since])) === 0) {
    // Every phone there took part, or those that did not came within the window (they may go once it has passed).
    const [idle] = await tx.all(SQL.firstIdleJoin, [linkId]);
    return idle?.joined_at == null ? { kind: 'full' } : { kind: 'busy', until: Number(idle.joined_at) + limits.windowMs };
  }
  await tx.run(SQL.join, [...row, at, at, at]);
  return { kind: 'on' };
}

export function createDeviceStore(sql: SqlDriver): DeviceStore {
  const seen = async (deviceId: string, at: number) => {
    await sql.run(SQL.seen, [at, deviceId, at - REMEMBERED_FOR_MS]);
  };
  const has = async (deviceId: string, linkId: string) => (await sql.all(SQL.has, [deviceId, linkId])).length > 0;
  return {
    async remember(deviceId, linkId, sealedToken, openedAt, limits) {
      // The common case, a recorder on the link asking again: one read.
      const [row] = await sql.all(SQL.openedAt, [deviceId, linkId]);
      if (row && Number(row.opened_at) >= openedAt - REMEMBERED_FOR_MS) return { kind: 'on' };
      let joined: Joined = { kind: 'on' };
      if (row) await sql.run(SQL.renew, [sealedToken, openedAt, openedAt, deviceId, linkId, openedAt - REMEMBERED_FOR_MS]);
      // A row lost with the machine's power is made again at the phone's next open: no need to wait for the disk.
      else joined = await sql.transaction((tx) => join(tx, [deviceId, linkId, sealedToken], openedAt, limits), { durable: false });
      if (joined.kind === 'on') await seen(deviceId, openedAt);
      return joined;
    },
    seen,
    has,
    async tookPart(deviceId, linkId, at) {
      await sql.run(...phoneTookPart(deviceId, linkId, at));
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
