/** Owns heard receipts (`note_plays`): the first time the runner's app played a note, and where. */
import type { SqlDriver, Statement } from './driver.js';
import { toEntryNote } from './rows.js';
import type { EntryNote, Play } from './types.js';

export interface PlayStore {
  /** The note with its play, if it was heard. */
  noteWithPlay(noteId: string): Promise<EntryNote | undefined>;
  /**
   * The first play is the one the sender hears about; later replays keep it. `onFirst` runs in the
   * same transaction only when this is the first play (the sender's pushes, server/push).
   */
  record(noteId: string, play: Play, onFirst?: readonly Statement[]): Promise<Play>;
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
    async record(noteId, play, onFirst = []) {
      await sql.transaction(async (tx) => {
        if ((await tx.run(SQL.insert, [noteId, play.playedAt, play.marker])) === 0) return;
        for (const [statement, params] of onFirst) await tx.run(statement, params);
      });
      return (await noteWithPlay(noteId))!.play!;
    },
  };
}
