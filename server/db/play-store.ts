/**
 * Owns heard receipts (`note_plays`): the first time the runner's app played a note, and where. The
 * first play queues its sender's pushes in its own transaction, through the queue's store.
 */
import type { SqlDriver } from './driver.js';
import { queueHeardPushes } from './push-queue-store.js';
import { toEntryNote } from './rows.js';
import type { EntryNote, Play, PushTimes } from './types.js';

export interface PlayStore {
  /** The note with its play, if it was heard. */
  noteWithPlay(noteId: string): Promise<EntryNote | undefined>;
  /**
   * The first play is the one the sender hears about; later replays keep it. With `heardPushes`
   * (push is on), the first play queues the sender's pushes in the same transaction, so a play
   * recorded twice queues them once.
   */
  record(noteId: string, play: Play, heardPushes?: PushTimes): Promise<Play>;
}

/** A note's columns with its play's, for `FROM notes n ${PLAY_JOIN}`: read by rows.ts's toEntryNote. */
export const NOTE_WITH_PLAY_COLUMNS = 'n.*, p.played_at, p.marker AS played_marker';
export const PLAY_JOIN = 'LEFT JOIN note_plays p ON p.note_id = n.id';

const SQL = {
  noteWithPlay: `SELECT ${NOTE_WITH_PLAY_COLUMNS} FROM notes n ${PLAY_JOIN} WHERE n.id = ?`,
  insert: 'INSERT INTO note_plays (note_id, played_at, marker) VALUES (?, ?, ?) ON CONFLICT (note_id) DO NOTHING',
} as const;

export function createPlayStore(sql: SqlDriver): PlayStore {
  const noteWithPlay = async (noteId: string) => {
    const [row] = await sql.all(SQL.noteWithPlay, [noteId]);
    return row && toEntryNote(row);
  };
  return {
    noteWithPlay,
    async record(noteId, play, heardPushes) {
      await sql.transaction(async (tx) => {
        if ((await tx.run(SQL.insert, [noteId, play.playedAt, play.marker])) === 0) return;
        if (heardPushes) await queueHeardPushes(tx, noteId, play.marker, heardPushes);
      });
      return (await noteWithPlay(noteId))!.play!;
    },
  };
}
