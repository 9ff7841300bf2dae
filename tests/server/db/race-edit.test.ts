/**
 * Moving a race in the catalogue at the level of the store: an edit is written only over
 * the race as it was read, and on PostgreSQL a note queued while the start moves is queued by the
 * new start, never left with the old one (on SQLite every write transaction runs alone).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHONE_LEAD_MS } from '../../../contract/delivery.js';
import { markersFor } from '../../../contract/markers.js';
import { raceStartsAt } from '../../../contract/raceClock.js';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import { insertNote } from '../../../server/db/note-store.js';
import { createRepository, type Race, type Repository } from '../../../server/db/repository.js';
import { linkIdOf } from '../../../server/links.js';
import { plannedPace } from '../../../server/races/eta.js';
import { deadlineOfNote, editRace, queueNote } from '../../../server/races/note-deadlines.js';
import { DeadlinesOutdated } from '../../../server/db/job-store.js';
import { BACKENDS, createBackend, type BackendKind, type TestBackend } from '../support/backends.js';
import { UPCOMING } from '../support/races.js';
import { makeLink } from '../support/uploads.js';

const author = { at: '2099-10-11T11:00:00.000Z', by: 'tests' };
/** Chicago 2099 at 08:15 instead of 07:30. */
const delayed = (race: Race) => ({ ...race, start: '08:15' });
const MILE_20 = markersFor(['mi']).find((m) => m.id === 'mi-20')!.distanceMeters;
/** A runner nobody has placed: the gun, then a typical marathon's pace, less the time to reach the phone. */
const coarseDeadline = (startsAt: string) => Math.round(Date.parse(startsAt) + plannedPace(null) * MILE_20 * 1000 - PHONE_LEAD_MS);

let backend: TestBackend;
let db: Database;
let repo: Repository;
/** One database a backend, with Chicago 2099 at 07:30. */
function onA(kind: BackendKind) {
  beforeAll(async () => {
    backend = await createBackend(kind);
    db = openDatabase(backend.config);
    repo = createRepository(db);
    await repo.migrate();
    await repo.races.add({ ...UPCOMING.chicago, units: ['mi'] });
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });
}

const note = (token: string) => ({
  id: randomUUID(),
  linkId: linkIdOf(token),
  marker: 'mi-20',
  from: 'Sam',
  contentType: 'audio/webm',
  bytes: 1,
  sha256: '0'.repeat(64),
  originalKey: `originals/${randomUUID()}`,
  receivedAt: new Date().toISOString(),
});

describe.each(BACKENDS)('moving a race in the catalogue on %s', (kind) => {
  onA(kind);

  it('should write nothing over a race edited or removed since it was read', async () => {
    const read = (await repo.races.get(UPCOMING.chicago.id))!;
    expect(await repo.races.edit(read, { ...read, name: 'Chicago Marathon 2099' }, author)).toMatchObject({ outcome: 'edited' });
    expect(await repo.races.edit(read, delayed(read), author)).toEqual({ outcome: 'changed' });
    expect((await repo.races.get(read.id))!).toMatchObject({ name: 'Chicago Marathon 2099', start: '07:30' });
    expect((await repo.races.history(read.id)).map((c) => c.action)).toEqual(['edited']);
  });

  // On SQLite every write transaction runs alone: a note's and an edit's cannot interleave.
  if (kind === 'postgres')
    it('should wait for a note of the race being queued as it moves, then move that note’s deadline too', async () => {
      const token = await makeLink(repo, UPCOMING.chicago.id);
      const before = (await repo.races.get(UPCOMING.chicago.id))!;
      // A note's transaction that has read the race's start (the old one) and is about to commit.
      const arriving = note(token);
      const queued = { ...arriving, deadline: await deadlineOfNote(repo, arriving) };
      let inserted!: () => void;
      let commit!: () => void;
      const insertedNow = new Promise<void>((resolve) => (inserted = resolve));
      const committing = new Promise<void>((resolve) => (commit = resolve));
      const noteTx = db.transaction(async (tx) => {
        await insertNote(tx, queued);
        inserted();
        await committing;
      });
      await insertedNow;

      const editing = editRace(repo, before, delayed(before), author);
      const watcher = new pg.Client({ connectionString: backend.env.DATABASE_URL });
      await watcher.connect();
      let watching = true;
      const waitingForNotes = async () => {
        while (watching) {
          const { rows } = await watcher.query("SELECT 1 FROM pg_locks WHERE relation = 'notes'::regclass AND NOT granted");
          if (rows.length > 0) return 'waiting';
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return 'stopped';
      };
      const waited = waitingForNotes();
      try {
        // The edit waits for the note's transaction rather than moving the race under it.
        expect(await Promise.race([editing.then(() => 'edited'), waited])).toBe('waiting');
      } finally {
        watching = false;
        await waited;
        await watcher.end();
        commit();
        await noteTx;
      }
      const edited = await editing;
      expect(edited).toMatchObject({ outcome: 'edited', notesRescheduled: 1 });
      expect(await repo.jobs.deadline(queued.id)).toBe(coarseDeadline((await repo.races.get(before.id))!.startsAt));
      expect(coarseDeadline((await repo.races.get(before.id))!.startsAt) - coarseDeadline(before.startsAt)).toBe(45 * 60_000);
    });

  it('should refuse a note whose deadline was worked out before its race moved, and queue it by the new start when worked out again', async () => {
    const token = await makeLink(repo, UPCOMING.chicago.id);
    const before = (await repo.races.get(UPCOMING.chicago.id))!;
    const arriving = note(token);
    const stale = { ...arriving, deadline: await deadlineOfNote(repo, arriving) };
    expect(await editRace(repo, before, { ...before, start: '09:00' }, author)).toMatchObject({ outcome: 'edited' });
    await expect(repo.notes.insert(stale)).rejects.toThrow(DeadlinesOutdated);
    expect(await repo.notes.find(arriving.id)).toBeUndefined();
    expect(await repo.jobs.deadline(arriving.id)).toBeUndefined();
    expect(await queueNote(repo, arriving, (queued) => repo.notes.insert(queued))).toBe(true);
    const moved = (await repo.races.get(before.id))!.startsAt;
    expect(moved).toBe(raceStartsAt(before.date, '09:00', before.timezone));
    expect(await repo.jobs.deadline(arriving.id)).toBe(coarseDeadline(moved));
  });
});
