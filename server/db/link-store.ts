/** Owns recording links, with the `runners` row a link names: the one place their rows are inserted. */
import { randomUUID } from 'node:crypto';
import type { SqlDriver, Statement } from './driver.js';
import { ENTRY_SQL } from './entry-sql.js';
import { dropPushOfLink, dropPushOfRevokedLinks } from './push-store.js';
import { RACE_COLUMNS } from './race-store.js';
import { toLink, toLinkListing } from './rows.js';
import type { LinkListing, LinkView, NewLink } from './types.js';

export interface LinkStore {
  /** Creates a runner and a link for them in one transaction. */
  create(link: NewLink): Promise<void>;
  /** The link, revoked or not; callers decide what a revoked link may still do. */
  find(linkId: string): Promise<LinkView | undefined>;
  /** False when no such link exists. Revoking twice keeps the first time. Its push subscriptions go with it. */
  revoke(linkId: string, revokedAt: string): Promise<boolean>;
  /** The links of one race, or of every race, for the operator: by race, runner and age, oldest first. */
  list(raceId?: string): Promise<LinkListing[]>;
  /** The ids of the links whose id starts with `prefix` (lower-case hex), at most two: one names a link, two say it is ambiguous. */
  idsStartingWith(prefix: string): Promise<string[]>;
  /**
   * A new link (`newLinkId`) for the runner of `linkId`, on the same race, as the app's "new link"
   * does: every live link of that runner is revoked with its push subscriptions, in one transaction.
   * False when there is no such link.
   */
  replace(linkId: string, newLinkId: string, now: string): Promise<boolean>;
}

export const insertRunner = (id: string, displayName: string, createdAt: string): Statement => [
  'INSERT INTO runners (id, display_name, created_at) VALUES (?, ?, ?)',
  [id, displayName, createdAt],
];

export const insertLink = (linkId: string, runnerId: string, raceId: string, createdAt: string): Statement => [
  'INSERT INTO links (id, runner_id, race_id, created_at) VALUES (?, ?, ?, ?)',
  [linkId, runnerId, raceId, createdAt],
];

const FIND_LINK =
  `SELECT l.id AS link_id, l.revoked_at, u.display_name, ${RACE_COLUMNS} ` +
  'FROM links l JOIN runners u ON u.id = l.runner_id JOIN races r ON r.id = l.race_id WHERE l.id = ?';
const REVOKE_LINK = 'UPDATE links SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?';
const LISTED_LINKS =
  'SELECT l.id AS link_id, l.runner_id, l.created_at, l.revoked_at, u.display_name, r.id AS race_id, r.name AS race_name, ' +
  '(SELECT COUNT(*) FROM notes n WHERE n.link_id = l.id) AS notes, ' +
  '(SELECT COUNT(*) FROM entries e WHERE e.runner_id = l.runner_id) AS entries ' +
  'FROM links l JOIN runners u ON u.id = l.runner_id JOIN races r ON r.id = l.race_id';
const LISTED_ORDER = 'ORDER BY r.starts_at, r.id, u.display_name, l.created_at, l.id';

export function createLinkStore(sql: SqlDriver): LinkStore {
  return {
    async create({ linkId, runnerName, raceId, createdAt }) {
      // A link made outside the runner's app gets a runners row of its own, keyed by the link.
      const runnerId = randomUUID();
      await sql.batch([insertRunner(runnerId, runnerName, createdAt), insertLink(linkId, runnerId, raceId, createdAt)]);
    },
    async find(linkId) {
      const [row] = await sql.all(FIND_LINK, [linkId]);
      return row && toLink(row);
    },
    async revoke(linkId, revokedAt) {
      const [revoked] = await sql.batch([[`${REVOKE_LINK} RETURNING id`, [revokedAt, linkId]], dropPushOfLink(linkId)]);
      return revoked!.length > 0;
    },
    async list(raceId) {
      const rows = raceId ? await sql.all(`${LISTED_LINKS} WHERE l.race_id = ? ${LISTED_ORDER}`, [raceId]) : await sql.all(`${LISTED_LINKS} ${LISTED_ORDER}`);
      return rows.map(toLinkListing);
    },
    async idsStartingWith(prefix) {
      const rows = await sql.all('SELECT id FROM links WHERE id LIKE ? ORDER BY id LIMIT 2', [`${prefix}%`]);
      return rows.map((r) => String(r.id));
    },
    async replace(linkId, newLinkId, now) {
      // A link's runner and race never change, so they are read before the transaction.
      const [link] = await sql.all('SELECT runner_id, race_id FROM links WHERE id = ?', [linkId]);
      if (!link) return false;
      const runnerId = String(link.runner_id);
      await sql.batch([
        [ENTRY_SQL.revokeEntryLinks, [now, runnerId]],
        dropPushOfRevokedLinks(runnerId),
        insertLink(newLinkId, runnerId, String(link.race_id), now),
      ]);
      return true;
    },
  };
}
