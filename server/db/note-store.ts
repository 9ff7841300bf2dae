/** Owns the notes friends send: each row is inserted with its conversion job, or not at all. */
import type { SqlDriver } from './driver.js';
import { enqueueJob } from './job-store.js';
import { toNote } from './rows.js';
import type { NewNote, NoteRow } from './types.js';

export interface NoteStore {
  find(id: string): Promise<NoteRow | undefined>;
  /** Inserts the note and its conversion job in one transaction. False if the id was taken. */
  insert(note: NewNote): Promise<boolean>;
  /** The notes that came through one link, oldest first. */
  ofLink(linkId: string): Promise<NoteRow[]>;
}

const FIND_NOTE = 'SELECT * FROM notes WHERE id = ?';
const INSERT_NOTE =
  'INSERT INTO notes (id, link_id, marker, sender, content_type, bytes, sha256, original_key, received_at, status) ' +
  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'received') ON CONFLICT (id) DO NOTHING";
const LIST_NOTES = 'SELECT * FROM notes WHERE link_id = ? ORDER BY received_at, id';

export function createNoteStore(sql: SqlDriver): NoteStore {
  return {
    async find(id) {
      const [row] = await sql.all(FIND_NOTE, [id]);
      return row && toNote(row);
    },
    insert(n) {
      return sql.transaction(async (tx) => {
        const inserted = await tx.run(INSERT_NOTE, [n.id, n.linkId, n.marker, n.from, n.contentType, n.bytes, n.sha256, n.originalKey, n.receivedAt]);
        if (inserted === 0) return false;
        await tx.run(...enqueueJob(n.id, n.receivedAt));
        return true;
      });
    },
    async ofLink(linkId) {
      return (await sql.all(LIST_NOTES, [linkId])).map(toNote);
    },
  };
}
