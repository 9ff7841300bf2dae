/** Owns recording links, with the `runners` row a link names: the one place their rows are inserted. */
import { randomUUID } from 'node:crypto';
import type { SqlDriver, Statement } from './driver.js';
import { dropPushOfLink } from './push-store.js';
import { RACE_COLUMNS } from './race-store.js';
import { toLink } from './rows.js';
import type { LinkView, NewLink } from './types.js';

export interface LinkStore {
  /** Creates a runner and a link for them in one transaction. */
  create(link: NewLink): Promise<void>;
  /** The link, revoked or not; callers decide what a revoked link may still do. */
  find(linkId: string): Promise<LinkView | undefined>;
  /** False when no such link exists. Revoking twice keeps the first time. Its push subscriptions go with it. */
  revoke(linkId: string, revokedAt: string): Promise<boolean>;
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
  };
}
