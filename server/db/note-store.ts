/**
 * Owns the notes friends send: each row is inserted with its conversion job, or not at all; the
 * changes the runner's app syncs by (migration 8: added, converted, removed, each numbered per
 * entry); and a runner's removal of a note, which leaves its id behind and nothing else.
 */
import type { Database, SqlDriver } from './driver.js';
import { phoneTookPart } from './device-store.js';
import { DeadlinesOutdated, enqueueJob } from './job-store.js';
import { bumpRunnerOfNote, noteChanged, NOTE_CHANGES_CHANNEL, signalRunnerOfNote } from './note-change-sql.js';
import { NOTE_WITH_PLAY_COLUMNS, PLAY_JOIN } from './play-store.js';
import { toBlobKeys, toEntryNote, toNote } from './rows.js';
import type { BlobKeys, EntryNote, NoteRow, QueuedNote } from './types.js';

/** What changed in one entry's notes after a number, up to `seq` (the number to ask after next). */
export interface NoteChanges {
  seq: number;
  /** Notes added or whose state changed, as they are now, oldest first. */
  notes: EntryNote[];
  /** Ids of the notes removed. */
  removed: string[];
  /** The start of the entry's race, read with the number (the operator may move it); undefined for a link made outside the app. */
  raceStartsAt?: string;
}

export interface NoteStore {
  find(id: string): Promise<NoteRow | undefined>;
  /**
   * Inserts the note and its conversion job (due as `note.deadline` says) in one transaction. False if
   * the id was taken (by a note, or a removed one); DeadlinesOutdated, and nothing written, if the race's start moved since.
   */
  insert(note: QueuedNote): Promise<boolean>;
  /** The notes that came through one link, oldest first. */
  ofLink(linkId: string): Promise<NoteRow[]>;

  /** The changes after `after` up to the latest one, read as of the latest one read first. */
  changesSince(runnerId: string, after: number): Promise<NoteChanges>;
  /** Deletes the note's rows (its play, job and one-note shares too), leaving its removal; resolves to its files, undefined if it was not there. */
  remove(noteId: string, now: string): Promise<BlobKeys | undefined>;
  /** The runners row a removed note belonged to, so a repeated removal can answer as the first. */
  removedFrom(noteId: string): Promise<string | undefined>;
  /** Records that the runner's app has the note's audio in full, at `at`; the first time is kept. */
  markOnPhone(noteId: string, at: string): Promise<void>;
  /** Calls `onChange` with the runners row id of every committed change, from any server; `onGap` when some may have been missed. */
  listenForChanges(onChange: (runnerId: string) => void, onGap: () => void): Promise<() => Promise<void>>;
}

const SQL = {
  find: 'SELECT * FROM notes WHERE id = ?',
  /** A removed note's id is never a note again (a sender's retry after the runner removed it). */
  insert:
    'INSERT INTO notes (id, link_id, marker, sender, content_type, bytes, sha256, original_key, received_at, device_id, status) ' +
    "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'received' WHERE NOT EXISTS (SELECT 1 FROM note_removals WHERE note_id = ?) ON CONFLICT (id) DO NOTHING",
  ofLink: 'SELECT * FROM notes WHERE link_id = ? ORDER BY received_at, id',
  latestChangeAndStart:
    'SELECT u.change_seq, r.starts_at FROM runners u LEFT JOIN entries e ON e.runner_id = u.id LEFT JOIN races r ON r.id = e.race_id WHERE u.id = ?',
  changedNotes:
    `SELECT ${NOTE_WITH_PLAY_COLUMNS} FROM notes n JOIN links l ON l.id = n.link_id ${PLAY_JOIN} ` +
    'WHERE l.runner_id = ? AND n.change_seq > ? AND n.change_seq <= ? ORDER BY n.received_at, n.id',
  removedNotes: 'SELECT note_id FROM note_removals WHERE runner_id = ? AND change_seq > ? AND change_seq <= ? ORDER BY change_seq',
  recordRemoval:
    'INSERT INTO note_removals (note_id, runner_id, change_seq, removed_at) ' +
    'SELECT n.id, l.runner_id, r.change_seq, ? FROM notes n JOIN links l ON l.id = n.link_id JOIN runners r ON r.id = l.runner_id WHERE n.id = ?',
  /** Children first, so foreign keys hold at every step; a share of this one note goes with it. */
  deleteNote: [
    'DELETE FROM note_plays WHERE note_id = ?',
    'DELETE FROM jobs WHERE note_id = ?',
    'DELETE FROM shares WHERE note_id = ?',
    'DELETE FROM notes WHERE id = ? RETURNING id, original_key, converted_key',
  ],
  removedFrom: 'SELECT runner_id FROM note_removals WHERE note_id = ?',
  markOnPhone: 'UPDATE notes SET on_phone_at = ? WHERE id = ? AND on_phone_at IS NULL',
  /** The start of the race a link records for, as the note's transaction reads it. */
  raceStart: 'SELECT r.starts_at FROM links l JOIN races r ON r.id = l.race_id WHERE l.id = ?',
} as const;

/**
 * The note, its conversion job and its change for the runner's app, in one transaction (or inside
 * the caller's: the quota store takes a note in the transaction that counts it). False if the id was
 * taken. The job is due as `n.deadline` says (server/races/note-deadlines.ts works it out); when the
 * race's start it was worked out from is no longer the race's, DeadlinesOutdated rolls it all back.
 */
export function insertNote(sql: SqlDriver, n: QueuedNote): Promise<boolean> {
  return sql.transaction(async (tx) => {
    const inserted = await tx.run(SQL.insert, [
      n.id,
      n.linkId,
      n.marker,
      n.from,
      n.contentType,
      n.bytes,
      n.sha256,
      n.originalKey,
      n.receivedAt,
      n.deviceId ?? null,
      n.id,
    ]);
    if (inserted === 0) return false;
    // The race's start is read after the note's row is written, never before: a race being moved holds
    // off writers of notes (race-store's edit), so this reads the start the edit leaves, or the edit waits
    // for this job and moves it with the others. A link gone since has no race: its job is due as given.
    const [race] = await tx.all(SQL.raceStart, [n.linkId]);
    if (race && Date.parse(String(race.starts_at)) !== n.deadline.raceStartsAt) throw new DeadlinesOutdated([n.id]);
    await tx.run(...enqueueJob(n.id, n.receivedAt, n.deadline));
    for (const statement of noteChanged(n.id)) await tx.all(...statement);
    // A phone that recorded for the link is one of its friends: no newcomer pushes it off.
    if (n.deviceId) await tx.run(...phoneTookPart(n.deviceId, n.linkId, Date.parse(n.receivedAt)));
    return true;
  });
}

export function createNoteStore(db: Database): NoteStore {
  return {
    async find(id) {
      const [row] = await db.all(SQL.find, [id]);
      return row && toNote(row);
    },
    insert: (n) => insertNote(db, n),
    async ofLink(linkId) {
      return (await db.all(SQL.ofLink, [linkId])).map(toNote);
    },

    async changesSince(runnerId, after) {
      // The latest number first: every change up to it is committed (the counter's row lock
      // orders them), so reading up to it misses nothing and the next ask starts right after.
      const [row] = await db.all(SQL.latestChangeAndStart, [runnerId]);
      const seq = row ? Number(row.change_seq) : 0;
      const start = row?.starts_at === null || row?.starts_at === undefined ? {} : { raceStartsAt: String(row.starts_at) };
      if (seq <= after) return { seq, notes: [], removed: [], ...start };
      const notes = (await db.all(SQL.changedNotes, [runnerId, after, seq])).map(toEntryNote);
      const removed = (await db.all(SQL.removedNotes, [runnerId, after, seq])).map((r) => String(r.note_id));
      return { seq, notes, removed, ...start };
    },
    remove(noteId, now) {
      return db.transaction(async (tx) => {
        if (!(await tx.all(SQL.find, [noteId]))[0]) return undefined;
        await tx.all(...bumpRunnerOfNote(noteId));
        await tx.run(SQL.recordRemoval, [now, noteId]);
        await tx.all(...signalRunnerOfNote(noteId));
        let deleted: BlobKeys | undefined;
        for (const statement of SQL.deleteNote) {
          const [row] = await tx.all(statement, [noteId]);
          if (row) deleted = toBlobKeys(row);
        }
        return deleted;
      });
    },
    async removedFrom(noteId) {
      const [row] = await db.all(SQL.removedFrom, [noteId]);
      return row && String(row.runner_id);
    },
    async markOnPhone(noteId, at) {
      await db.run(SQL.markOnPhone, [at, noteId]);
    },
    listenForChanges(onChange, onGap) {
      return db.listen(NOTE_CHANGES_CHANNEL, onChange, onGap);
    },
  };
}
