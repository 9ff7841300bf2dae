/** Owns the runner app's rows (accounts, sessions, entries, heard receipts, shares) in either database. */
import { randomUUID } from 'node:crypto';
import type { NoteRow, RaceRow } from '../db/repository.js';
import { toNote, toRace } from '../db/rows.js';
import { RUNNER_SQL as SQL } from '../db/runner-schema.js';
import type { Row, SqlDriver } from './driver.js';

export interface Account {
  id: string;
  appleSub: string;
  createdAt: string;
}

export interface Entry {
  id: string;
  accountId: string;
  /** The `runners` row every link of this entry points at. */
  runnerId: string;
  displayName: string;
  race: RaceRow;
  createdAt: string;
  /** True while a link for friends works. */
  linkActive: boolean;
}

export interface Play {
  playedAt: string;
  marker: string;
}

export interface EntryNote extends NoteRow {
  play: Play | null;
}

export interface OwnedNote extends EntryNote {
  entryId: string;
  accountId: string;
}

export interface Share {
  id: string;
  accountId: string;
  entryId: string;
  /** Null when the whole entry is shared. */
  noteId: string | null;
  createdAt: string;
}

export interface BlobKeys {
  noteId: string;
  originalKey: string;
  convertedKey: string | null;
}

const toAccount = (r: Row): Account => ({ id: String(r.id), appleSub: String(r.apple_sub), createdAt: String(r.created_at) });
const toEntry = (r: Row): Entry => ({
  id: String(r.entry_id),
  accountId: String(r.account_id),
  runnerId: String(r.runner_id),
  displayName: String(r.display_name),
  race: toRace(r),
  createdAt: String(r.entry_created_at),
  linkActive: Number(r.live_links) > 0,
});
const toEntryNote = (r: Row): EntryNote => ({
  ...toNote(r),
  play: r.played_at === null || r.played_at === undefined ? null : { playedAt: String(r.played_at), marker: String(r.played_marker) },
});
const toBlobKeys = (r: Row): BlobKeys => ({
  noteId: String(r.id),
  originalKey: String(r.original_key),
  convertedKey: r.converted_key === null || r.converted_key === undefined ? null : String(r.converted_key),
});
const toShare = (r: Row): Share => ({
  id: String(r.id),
  accountId: String(r.account_id),
  entryId: String(r.entry_id),
  noteId: r.note_id === null || r.note_id === undefined ? null : String(r.note_id),
  createdAt: String(r.created_at),
});

export type RunnerStore = ReturnType<typeof createRunnerStore>;

export function createRunnerStore(sql: SqlDriver) {
  const one = async (query: string, params: unknown[]) => (await sql.all(query, params))[0];

  return {
    /** The account for this Apple subject, made on first sign-in. Two first sign-ins at once get the same account. */
    async accountForAppleSub(appleSub: string, now: string): Promise<Account> {
      await sql.run(SQL.insertAccount, [randomUUID(), appleSub, now]);
      return toAccount((await one(SQL.findAccountBySub, [appleSub]))!);
    },
    async findAccount(id: string): Promise<Account | undefined> {
      const row = await one(SQL.findAccount, [id]);
      return row && toAccount(row);
    },
    async createSession(s: { id: string; accountId: string; refreshHash: string; createdAt: string; expiresAt: string }): Promise<void> {
      await sql.run(SQL.insertSession, [s.id, s.accountId, s.refreshHash, s.createdAt, s.expiresAt]);
    },
    /** Swaps a live refresh token's hash for a new one; undefined when it is unknown, used or expired. */
    async rotateSession(oldHash: string, newHash: string, now: string, expiresAt: string) {
      const row = await one(SQL.rotateSession, [newHash, expiresAt, oldHash, now]);
      return row && { sessionId: String(row.id), accountId: String(row.account_id) };
    },

    async createEntry(e: { id: string; accountId: string; raceId: string; displayName: string; linkId: string; createdAt: string }): Promise<Entry> {
      // The runners row takes the entry's id: one id per entry, whichever table you look in.
      await sql.batch([
        [SQL.insertRunner, [e.id, e.displayName, e.createdAt]],
        [SQL.insertLink, [e.linkId, e.id, e.raceId, e.createdAt]],
        [SQL.insertEntry, [e.id, e.accountId, e.id, e.raceId, e.createdAt]],
      ]);
      return (await this.getEntry(e.accountId, e.id))!;
    },
    async listEntries(accountId: string): Promise<Entry[]> {
      return (await sql.all(SQL.listEntries, [accountId])).map(toEntry);
    },
    /** Only the account's own entry; another runner's entry is as good as missing. */
    async getEntry(accountId: string, entryId: string): Promise<Entry | undefined> {
      const row = await one(SQL.getEntry, [accountId, entryId]);
      return row && toEntry(row);
    },
    async getEntryById(entryId: string): Promise<Entry | undefined> {
      const row = await one(SQL.getEntryById, [entryId]);
      return row && toEntry(row);
    },
    /** Revokes every live link of the entry and adds a new one, atomically. */
    async replaceLink(entry: Entry, linkId: string, now: string): Promise<void> {
      await sql.batch([
        [SQL.revokeEntryLinks, [now, entry.runnerId]],
        [SQL.insertLink, [linkId, entry.runnerId, entry.race.id, now]],
      ]);
    },
    async revokeLinks(entry: Entry, now: string): Promise<number> {
      return sql.run(SQL.revokeEntryLinks, [now, entry.runnerId]);
    },

    async listEntryNotes(entryId: string): Promise<EntryNote[]> {
      return (await sql.all(SQL.listEntryNotes, [entryId])).map(toEntryNote);
    },
    /** A note with the entry and account it belongs to; notes of links made outside the app have none. */
    async findOwnedNote(noteId: string): Promise<OwnedNote | undefined> {
      const row = await one(SQL.findOwnedNote, [noteId]);
      return row && { ...toEntryNote(row), entryId: String(row.entry_id), accountId: String(row.account_id) };
    },
    async findNoteWithPlay(noteId: string): Promise<EntryNote | undefined> {
      const row = await one(SQL.findNoteWithPlay, [noteId]);
      return row && toEntryNote(row);
    },
    /** The first play is the one the sender hears about; later replays keep it. */
    async recordPlay(noteId: string, play: Play): Promise<Play> {
      await sql.run(SQL.insertPlay, [noteId, play.playedAt, play.marker]);
      return (await this.findNoteWithPlay(noteId))!.play!;
    },

    async createShare(s: Share & { tokenHash: string }): Promise<void> {
      await sql.run(SQL.insertShare, [s.id, s.tokenHash, s.accountId, s.entryId, s.noteId, s.createdAt]);
    },
    async deleteShare(accountId: string, shareId: string): Promise<boolean> {
      return (await sql.run(SQL.deleteShare, [shareId, accountId])) > 0;
    },
    async findShare(tokenHash: string): Promise<Share | undefined> {
      const row = await one(SQL.findShare, [tokenHash]);
      return row && toShare(row);
    },

    /** Stops new notes arriving for the account (the first step of deletion). */
    async revokeAccountLinks(accountId: string, now: string): Promise<void> {
      await sql.run(SQL.revokeAccountLinks, [now, accountId]);
    },
    async accountBlobKeys(accountId: string): Promise<BlobKeys[]> {
      return (await sql.all(SQL.accountBlobKeys, [accountId])).map(toBlobKeys);
    },
    /** Every row of the account, in one transaction; returns the files of the notes it deleted. */
    async deleteAccount(accountId: string): Promise<BlobKeys[]> {
      const results = await sql.batch(SQL.deleteAccount.map((statement) => [statement, [accountId]] as const));
      return results.flat().filter((r) => r.original_key !== undefined).map(toBlobKeys);
    },
  };
}
