/** Owns runner accounts (one per Apple subject) and their sessions; rotating a session's refresh token is ./refresh-store.ts's. */
import { randomUUID } from 'node:crypto';
import type { SqlDriver } from './driver.js';
import { toAccount } from './rows.js';
import type { Account, NewSession } from './types.js';

export interface AccountStore {
  /** The account for this Apple subject, made on first sign-in. Two first sign-ins at once get the same account. */
  forAppleSub(appleSub: string, now: string): Promise<Account>;
  find(id: string): Promise<Account | undefined>;
  createSession(session: NewSession): Promise<void>;
}

const SQL = {
  findBySub: 'SELECT id, apple_sub, created_at FROM accounts WHERE apple_sub = ?',
  find: 'SELECT id, apple_sub, created_at FROM accounts WHERE id = ?',
  insert: 'INSERT INTO accounts (id, apple_sub, created_at) VALUES (?, ?, ?) ON CONFLICT (apple_sub) DO NOTHING',
  insertSession: 'INSERT INTO sessions (id, account_id, refresh_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
} as const;

export function createAccountStore(sql: SqlDriver): AccountStore {
  return {
    async forAppleSub(appleSub, now) {
      await sql.run(SQL.insert, [randomUUID(), appleSub, now]);
      const [row] = await sql.all(SQL.findBySub, [appleSub]);
      return toAccount(row!);
    },
    async find(id) {
      const [row] = await sql.all(SQL.find, [id]);
      return row && toAccount(row);
    },
    async createSession(s) {
      await sql.run(SQL.insertSession, [s.id, s.accountId, s.refreshHash, s.createdAt, s.expiresAt]);
    },
  };
}
