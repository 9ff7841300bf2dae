/**
 * One held sync request from its ask to its answer: the entry's note changes after the app's
 * cursor, held on this process's hub (./note-changes.ts) while there is nothing to tell. The route
 * (server/routes/runner/entry-notes.ts) turns what it asks into this and what it throws into refusals.
 */
import type { NoteChanges, NoteStore } from '../db/note-store.js';
import type { EntryNote } from '../db/types.js';
import type { Hold, NoteChangeHub } from './note-changes.js';

/** The cursor names a change the entry has not reached: not a cursor this server gave for it. */
export class CursorAhead extends Error {}

/** A note the app can download and play: converted, with its audio stored. */
export const playable = (n: Pick<EntryNote, 'status'>) => n.status === 'converted';

export interface HeldAsk {
  runnerId: string;
  accountId: string;
  /** The change number the app has seen (its decoded cursor). */
  since: number;
  /** How long to hold while there is nothing; 0 answers at once. */
  holdMs: number;
  /** Hold until a note is playable or removed, not merely received. */
  untilPlayable: boolean;
  /** Fires when the app's connection closes: a hold for it ends ('gone'). */
  left: AbortSignal;
  /**
   * The entry's latest change number as the caller read it, and when (performance.now()): the
   * first hold starts from it instead of reading it again, and ends at once for a change since.
   */
  known?: { seq: number; readAt: number };
}

export interface HeldAnswer {
  changes: NoteChanges;
  /** The answer comes after a hold that a change or the time ended (not a stop), so what was read before it may be old. */
  held: boolean;
  /** When a change woke the hold that brought this answer (performance.now()); undefined when none did. */
  wokenAt?: number;
}

/**
 * Everything since `ask.since`, held up to `ask.holdMs` while there is nothing (or, `untilPlayable`,
 * nothing playable or removed); on a stop or a timeout, what is there. Throws TooManyHeld at the
 * process's cap and CursorAhead for a cursor past the entry's changes.
 */
export async function changesAfter(hub: NoteChangeHub, notes: Pick<NoteStore, 'changesSince'>, ask: HeldAsk): Promise<HeldAnswer> {
  const { runnerId, since, holdMs, untilPlayable, known } = ask;
  const until = Date.now() + holdMs;
  let wokenAt: number | undefined;
  // The caller's number, when it shows nothing new: no need to read it again under the first hold.
  let nothingYet = known !== undefined && known.seq === since;
  for (;;) {
    // Held before reading (or told of a change since the caller's read), so a change committed between the read and the hold still wakes it.
    const hold: Hold | undefined =
      holdMs > 0 && Date.now() < until ? hub.hold(runnerId, ask.accountId, until, nothingYet ? known?.readAt : undefined) : undefined;
    const gone = () => hold?.release('gone');
    ask.left.addEventListener('abort', gone, { once: true });
    try {
      const changes: NoteChanges = nothingYet && hold ? { seq: since, notes: [], removed: [] } : await notes.changesSince(runnerId, since);
      nothingYet = false;
      if (changes.seq < since) throw new CursorAhead();
      const told = untilPlayable ? changes.notes.some(playable) : changes.notes.length > 0;
      if (told || changes.removed.length > 0) return { changes, held: wokenAt !== undefined, ...(wokenAt !== undefined && { wokenAt }) };
      if (!hold) return { changes, held: false };
      const end = await hold.ended;
      if (end !== 'changed') return { changes: end === 'gone' ? changes : await notes.changesSince(runnerId, since), held: end === 'timeout' };
      wokenAt = performance.now();
    } finally {
      hold?.release();
      ask.left.removeEventListener('abort', gone);
    }
  }
}
