/** Owns shares: a keepsake page's token (by its hash) for a whole entry or one note. */
import type { SqlDriver } from './driver.js';
import { toShare } from './rows.js';
import type { Share } from './types.js';

export interface ShareStore {
  create(share: Share & { tokenHash: string }): Promise<void>;
  /** Only the account's own share; false when there is none. */
  remove(accountId: string, shareId: string): Promise<boolean>;
  find(tokenHash: string): Promise<Share | undefined>;
}

const SQL = {
  insert: 'INSERT INTO shares (id, token_hash, account_id, entry_id, note_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  remove: 'DELETE FROM shares WHERE id = ? AND account_id = ?',
  find: 'SELECT id, account_id, entry_id, note_id, created_at FROM shares WHERE token_hash = ?',
} as const;

export function createShareStore(sql: SqlDriver): ShareStore {
  return {
    async create(s) {
      await sql.run(SQL.insert, [s.id, s.tokenHash, s.accountId, s.entryId, s.noteId, s.createdAt]);
    },
    async remove(accountId, shareId) {
      return (await sql.run(SQL.remove, [shareId, accountId])) > 0;
    },
    async find(tokenHash) {
      const [row] = await sql.all(SQL.find, [tokenHash]);
      return row && toShare(row);
    },
  };
}
