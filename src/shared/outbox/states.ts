/** Owns what a note's state means to whoever asks (replay, the worker, the page): which notes are pending, and when the next is due. */
import type { OutboxNote } from '../notes.js';

/**
 * Still to reach the server: saved and waiting its turn, or with an uploader right now (or left
 * there by one that died). A delivered note is done; a failed one waits for the person, not an uploader.
 */
export const isPending = (note: Pick<OutboxNote, 'state'>): boolean => note.state === 'waiting' || note.state === 'sending';

/** When the earliest pending note may be tried again (backoff, Retry-After); undefined when none is pending. */
export function earliestDue(notes: readonly Pick<OutboxNote, 'state' | 'nextAttemptAt'>[]): number | undefined {
  const due = notes.filter(isPending).map((n) => n.nextAttemptAt);
  return due.length ? Math.min(...due) : undefined;
}
