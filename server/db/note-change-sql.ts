/**
 * The statements that record one change to a note (migration 8), for the stores that make the
 * change (notes, jobs) to run in the change's own transaction: the entry's counter moves on, the
 * note takes its number, and a signal goes out on NOTE_CHANGES_CHANNEL naming the runners row.
 * PostgreSQL delivers a NOTIFY at commit and never for a rolled-back change; the SQLite driver
 * answers pg_notify with an in-process event (server/db/sqlite-driver.ts).
 */
import type { Statement } from './driver.js';

/** The channel the signal goes out on; its payload is the runners row's id. */
export const NOTE_CHANGES_CHANNEL = 'note_changes';

const RUNNER_OF_NOTE = 'SELECT l.runner_id FROM notes n JOIN links l ON l.id = n.link_id WHERE n.id = ?';

/** Moves the counter of the note's entry on (locking its row until commit, so changes commit in number order). */
export const bumpRunnerOfNote = (noteId: string): Statement => [`UPDATE runners SET change_seq = change_seq + 1 WHERE id = (${RUNNER_OF_NOTE})`, [noteId]];

export const signalRunnerOfNote = (noteId: string): Statement => [
  `SELECT pg_notify('${NOTE_CHANGES_CHANNEL}', l.runner_id) AS sent FROM notes n JOIN links l ON l.id = n.link_id WHERE n.id = ?`,
  [noteId],
];

/** After the note's own write in the same transaction: the note now carries its entry's latest number. */
export const noteChanged = (noteId: string): Statement[] => [
  bumpRunnerOfNote(noteId),
  ['UPDATE notes SET change_seq = (SELECT r.change_seq FROM links l JOIN runners r ON r.id = l.runner_id WHERE l.id = notes.link_id) WHERE id = ?', [noteId]],
  signalRunnerOfNote(noteId),
];
