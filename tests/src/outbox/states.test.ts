import { beforeEach, describe, expect, it } from 'vitest';
import { NOTE_STATES, type NoteState } from '../../../src/outbox/notes.js';
import { earliestDue, getNote, isPending, replayOutbox, updateNote } from '../../../src/outbox/index.js';
import { freshDb, queuedNote, scriptedTransport } from './helpers.js';

beforeEach(freshDb);

const base = { locks: null, random: () => 0.5 };

describe("a note's state", () => {
  it('should call pending exactly the notes still to reach the server: waiting and sending', () => {
    expect(NOTE_STATES.filter((state) => isPending({ state }))).toEqual(['waiting', 'sending']);
  });

  for (const state of NOTE_STATES) {
    it(`should be read the same by the predicate, the replay and its report for a ${state} note`, async () => {
      const note = await queuedNote();
      const stored = (await updateNote(note.id, (n) => ({ ...n, state, nextAttemptAt: 5_000 })))!;
      const pending = isPending(stored);
      expect(earliestDue([stored])).toBe(pending ? 5_000 : undefined);
      // A 503 leaves a tried note pending, so the report's count shows what the replay thought.
      const { transport, calls } = scriptedTransport([503]);
      const report = await replayOutbox(transport, { ...base, now: () => 10_000 });
      expect(calls).toHaveLength(pending ? 1 : 0);
      expect(report.waiting).toBe(pending ? 1 : 0);
      expect(report.nextAttemptAt === undefined).toBe(!pending);
      expect((await getNote(note.id))!.state).toBe(pending ? 'waiting' : state);
    });
  }

  it('should find when the earliest pending note is due, ignoring notes that are done or need the person', () => {
    const at = (state: NoteState, nextAttemptAt: number) => ({ state, nextAttemptAt });
    expect(earliestDue([at('delivered', 1), at('failed', 2), at('waiting', 30), at('sending', 20)])).toBe(20);
    expect(earliestDue([at('delivered', 1), at('failed', 2)])).toBeUndefined();
    expect(earliestDue([])).toBeUndefined();
  });
});
