/** Owns a runner's race entries: each entry's `runners` row and links, and the notes that came through them. */
import type { SqlDriver } from './driver.js';
import { ENTRY_SQL as SQL } from './entry-sql.js';
import { insertLink, insertRunner } from './link-store.js';
import { dropPushOfRevokedLinks } from './push-store.js';
import { toEntry, toEntryNote } from './rows.js';
import type { Entry, EntryNote, NewEntry, OwnedNote } from './types.js';

export interface EntryToSync {
  id: string;
  runnerId: string;
  raceStartsAt: string;
  /** The number of the latest change to its notes (0 before any). */
  changeSeq: number;
}

export interface EntryStore {
  /** The entry, its runners row and its first link, in one transaction. */
  create(entry: NewEntry): Promise<Entry>;
  list(accountId: string): Promise<Entry[]>;
  /** Only the account's own entry; another runner's entry is as good as missing. */
  get(accountId: string, entryId: string): Promise<Entry | undefined>;
  getById(entryId: string): Promise<Entry | undefined>;
  /** Only the account's own entry, as the app's sync needs it: its runners row, its race's start, its latest change. */
  toSync(accountId: string, entryId: string): Promise<EntryToSync | undefined>;
  /** Revokes every live link of the entry and adds a new one, atomically; the revoked links' push subscriptions go. */
  replaceLink(entry: Entry, linkId: string, now: string): Promise<void>;
  /** Revokes every live link of the entry (their push subscriptions go); resolves to how many there were. */
  revokeLinks(entry: Entry, now: string): Promise<number>;

  /** Every note that came through any of the entry's links, with its play. */
  notes(entryId: string): Promise<EntryNote[]>;
  /** A note with the entry and account it belongs to; notes of links made outside the app have none. */
  findOwnedNote(noteId: string): Promise<OwnedNote | undefined>;
}

export function createEntryStore(sql: SqlDriver): EntryStore {
  const one = async (query: string, params: unknown[]) => (await sql.all(query, params))[0];
  const get = async (accountId: string, entryId: string) => {
    const row = await one(SQL.getEntry, [accountId, entryId]);
    return row && toEntry(row);
  };

  return {
    async create(e) {
      // The runners row takes the entry's id: one id per entry, whichever table you look in.
      await sql.batch([
        insertRunner(e.id, e.displayName, e.createdAt),
        insertLink(e.linkId, e.id, e.raceId, e.createdAt),
        [SQL.insertEntry, [e.id, e.accountId, e.id, e.raceId, e.createdAt]],
      ]);
      return (await get(e.accountId, e.id))!;
    },
    async list(accountId) {
      return (await sql.all(SQL.listEntries, [accountId])).map(toEntry);
    },
    get,
    async getById(entryId) {
      const row = await one(SQL.getEntryById, [entryId]);
      return row && toEntry(row);
    },
    async toSync(accountId, entryId) {
      const row = await one(SQL.getEntryToSync, [accountId, entryId]);
      return row && { id: String(row.entry_id), runnerId: String(row.runner_id), raceStartsAt: String(row.starts_at), changeSeq: Number(row.change_seq ?? 0) };
    },
    async replaceLink(entry, linkId, now) {
      await sql.batch([
        [SQL.revokeEntryLinks, [now, entry.runnerId]],
        dropPushOfRevokedLinks(entry.runnerId),
        insertLink(linkId, entry.runnerId, entry.race.id, now),
      ]);
    },
    async revokeLinks(entry, now) {
      const [revoked] = await sql.batch([[`${SQL.revokeEntryLinks} RETURNING id`, [now, entry.runnerId]], dropPushOfRevokedLinks(entry.runnerId)]);
      return revoked!.length;
    },

    async notes(entryId) {
      return (await sql.all(SQL.listEntryNotes, [entryId])).map(toEntryNote);
    },
    async findOwnedNote(noteId) {
      const row = await one(SQL.findOwnedNote, [noteId]);
      return row && { ...toEntryNote(row), entryId: String(row.entry_id), accountId: String(row.account_id) };
    },
  };
}
