/** Owns deleting a runner's account from the database: its links revoked, its notes' files listed, then every row of it in one transaction. */
import type { SqlDriver } from './driver.js';
import { dropPushOfAccountLinks } from './push-store.js';
import { toBlobKeys } from './rows.js';
import type { BlobKeys } from './types.js';

export interface DeletionStore {
  /** Stops new notes arriving for the account (the first step of deletion); its links' push subscriptions go. */
  revokeLinks(accountId: string, now: string): Promise<void>;
  blobKeys(accountId: string): Promise<BlobKeys[]>;
  /** Every row of the account, in one transaction; returns the files of the notes it deleted. */
  deleteAccount(accountId: string): Promise<BlobKeys[]>;
}

/** Everything of one account: notes reached through the account's entries. */
const ACCOUNT_NOTE_IDS = 'SELECT n.id FROM notes n JOIN links l ON l.id = n.link_id JOIN entries e ON e.runner_id = l.runner_id WHERE e.account_id = ?';
const ACCOUNT_RUNNER_IDS = 'SELECT runner_id FROM entries WHERE account_id = ?';

const SQL = {
  revokeLinks: `UPDATE links SET revoked_at = ? WHERE revoked_at IS NULL AND runner_id IN (${ACCOUNT_RUNNER_IDS})`,
  blobKeys: `SELECT n.id, n.original_key, n.converted_key FROM notes n WHERE n.id IN (${ACCOUNT_NOTE_IDS})`,
  /** Children first, so foreign keys hold at every step; deleting the runners rows cascades to entries. */
  deleteAccount: [
    `DELETE FROM note_plays WHERE note_id IN (${ACCOUNT_NOTE_IDS})`,
    `DELETE FROM jobs WHERE note_id IN (${ACCOUNT_NOTE_IDS})`,
    'DELETE FROM shares WHERE account_id = ?',
    // RETURNING: a note that slipped in after the files were listed still gets its files deleted.
    `DELETE FROM notes WHERE id IN (${ACCOUNT_NOTE_IDS}) RETURNING id, original_key, converted_key`,
    `DELETE FROM links WHERE runner_id IN (${ACCOUNT_RUNNER_IDS})`,
    `DELETE FROM runners WHERE id IN (${ACCOUNT_RUNNER_IDS})`,
    'DELETE FROM sessions WHERE account_id = ?',
    'DELETE FROM accounts WHERE id = ?',
  ],
} as const;

export function createDeletionStore(sql: SqlDriver): DeletionStore {
  return {
    async revokeLinks(accountId, now) {
      await sql.batch([[SQL.revokeLinks, [now, accountId]], dropPushOfAccountLinks(accountId)]);
    },
    async blobKeys(accountId) {
      return (await sql.all(SQL.blobKeys, [accountId])).map(toBlobKeys);
    },
    async deleteAccount(accountId) {
      const results = await sql.batch(SQL.deleteAccount.map((statement) => [statement, [accountId]] as const));
      return results
        .flat()
        .filter((r) => r.original_key !== undefined)
        .map(toBlobKeys);
    },
  };
}
