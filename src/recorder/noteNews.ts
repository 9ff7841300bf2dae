/**
 * Owns the delivered note's news kept on this phone (OutboxNote.news): what the server last said
 * of it, so the recorder can show "Can't be played" or "Heard at Mile 13" offline instead of a
 * bare "Safe with us". Written through the outbox's updateNote, which owns the note records.
 */
import type { NoteNews, OutboxNote } from '../outbox/notes.js';
import { updateNote } from '../outbox/index.js';

/** Keeps the news on the delivered note's record; a note deleted or not delivered meanwhile is left as it is. */
export function keepNews(id: string, news: NoteNews): Promise<OutboxNote | undefined> {
  return updateNote(id, (note) => (note.state === 'delivered' ? { ...note, news } : undefined));
}
