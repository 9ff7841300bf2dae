/** Owns the runner app's rows: accounts, sessions, entries (and their links), heard receipts, shares, account deletion. */
import { randomUUID } from 'node:crypto';
import type { SqlDriver } from './driver.js';
import { insertLink, insertRunner } from './link-store.js';
import { toAccount, toBlobKeys, toEntry, toEntryNote, toShare } from './rows.js';
import { RUNNER_SQL as SQL } from './runner-sql.js';
import type { Account, BlobKeys, Entry, EntryNote, NewEntry, NewSession, OwnedNote, Play, RotatedSession, Share } from './types.js';

export interface RunnerStore {
  /** The account for this Apple subject, made on first sign-in. Two first sign-ins at once get the same account. */
  accountForAppleSub(appleSub: string, now: string): Promise<Account>;
  findAccount(id: string): Promise<Account | undefined>;
  createSession(session: NewSession): Promise<void>;
  /** Swaps a live refresh token's hash for a new one; undefined when it is unknown, used or expired. */
  rotateSession(oldHash: string, newHash: string, now: string, expiresAt: string): Promise<RotatedSession | undefined>;

  /** The entry, its runners row and its first link, in one transaction. */
  createEntry(entry: NewEntry): Promise<Entry>;
  listEntries(accountId: string): Promise<Entry[]>;
  /** Only the account's own entry; another runner's entry is as good as missing. */
  getEntry(accountId: string, entryId: string): Promise<Entry | undefined>;
  getEntryById(entryId: string): Promise<Entry | undefined>;
  /** Revokes every live link of the entry and adds a new one, atomically. */
  replaceLink(entry: Entry, linkId: string, now: string): Promise<void>;
  /** Revokes every live link of the entry; resolves to how many there were. */
  revokeLinks(entry: Entry, now: string): Promise<number>;

  listEntryNotes(entryId: string): Promise<EntryNote[]>;
  /** A note with the entry and account it belongs to; notes of links made outside the app have none. */
  findOwnedNote(noteId: string): Promise<OwnedNote | undefined>;
  findNoteWithPlay(noteId: string): Promise<EntryNote | undefined>;
  /** The first play is the one the sender hears about; later replays keep it. */
  recordPlay(noteId: string, play: Play): Promise<Play>;

  createShare(share: Share & { tokenHash: string }): Promise<void>;
  deleteShare(accountId: string, shareId: string): Promise<boolean>;
  findShare(tokenHash: string): Promise<Share | undefined>;

  /** Stops new notes arriving for the account (the first step of deletion). */
  revokeAccountLinks(accountId: string, now: string): Promise<void>;
  accountBlobKeys(accountId: string): Promise<BlobKeys[]>;
  /** Every row of the account, in one transaction; returns the files of the notes it deleted. */
  deleteAccount(accountId: string): Promise<BlobKeys[]>;
}

export function createRunnerStore(sql: SqlDriver): RunnerStore {
  const one = async (query: string, params: unknown[]) => (await sql.all(query, params))[0];
  const getEntry = async (accountId: string, entryId: string) => {
    const row = await one(SQL.getEntry, [accountId, entryId]);
    return row && toEntry(row);
  };
  const findNoteWithPlay = async (noteId: string) => {
    const row = await one(SQL.findNoteWithPlay, [noteId]);
    return row && toEntryNote(row);
  };

  return {
    async accountForAppleSub(appleSub, now) {
      await sql.run(SQL.insertAccount, [randomUUID(), appleSub, now]);
      return toAccount((await one(SQL.findAccountBySub, [appleSub]))!);
    },
    async findAccount(id) {
      const row = await one(SQL.findAccount, [id]);
      return row && toAccount(row);
    },
    async createSession(s) {
      await sql.run(SQL.insertSession, [s.id, s.accountId, s.refreshHash, s.createdAt, s.expiresAt]);
    },
    async rotateSession(oldHash, newHash, now, expiresAt) {
      const row = await one(SQL.rotateSession, [newHash, expiresAt, oldHash, now]);
      return row && { sessionId: String(row.id), accountId: String(row.account_id) };
    },

    async createEntry(e) {
      // The runners row takes the entry's id: one id per entry, whichever table you look in.
      await sql.batch([
        insertRunner(e.id, e.displayName, e.createdAt),
        insertLink(e.linkId, e.id, e.raceId, e.createdAt),
        [SQL.insertEntry, [e.id, e.accountId, e.id, e.raceId, e.createdAt]],
      ]);
      return (await getEntry(e.accountId, e.id))!;
    },
    async listEntries(accountId) {
      return (await sql.all(SQL.listEntries, [accountId])).map(toEntry);
    },
    getEntry,
    async getEntryById(entryId) {
      const row = await one(SQL.getEntryById, [entryId]);
      return row && toEntry(row);
    },
    async replaceLink(entry, linkId, now) {
      await sql.batch([
        [SQL.revokeEntryLinks, [now, entry.runnerId]],
        insertLink(linkId, entry.runnerId, entry.race.id, now),
      ]);
    },
    async revokeLinks(entry, now) {
      return sql.run(SQL.revokeEntryLinks, [now, entry.runnerId]);
    },

    async listEntryNotes(entryId) {
      return (await sql.all(SQL.listEntryNotes, [entryId])).map(toEntryNote);
    },
    async findOwnedNote(noteId) {
      const row = await one(SQL.findOwnedNote, [noteId]);
      return row && { ...toEntryNote(row), entryId: String(row.entry_id), accountId: String(row.account_id) };
    },
    findNoteWithPlay,
    async recordPlay(noteId, play) {
      await sql.run(SQL.insertPlay, [noteId, play.playedAt, play.marker]);
      return (await findNoteWithPlay(noteId))!.play!;
    },

    async createShare(s) {
      await sql.run(SQL.insertShare, [s.id, s.tokenHash, s.accountId, s.entryId, s.noteId, s.createdAt]);
    },
    async deleteShare(accountId, shareId) {
      return (await sql.run(SQL.deleteShare, [shareId, accountId])) > 0;
    },
    async findShare(tokenHash) {
      const row = await one(SQL.findShare, [tokenHash]);
      return row && toShare(row);
    },

    async revokeAccountLinks(accountId, now) {
      await sql.run(SQL.revokeAccountLinks, [now, accountId]);
    },
    async accountBlobKeys(accountId) {
      return (await sql.all(SQL.accountBlobKeys, [accountId])).map(toBlobKeys);
    },
    async deleteAccount(accountId) {
      const results = await sql.batch(SQL.deleteAccount.map((statement) => [statement, [accountId]] as const));
      return results.flat().filter((r) => r.original_key !== undefined).map(toBlobKeys);
    },
  };
}
