/**
 * The one place a note's conversion deadline is worked out and handed to the stores: a
 * new note's, from its runner's schedule (queueNote); the waiting notes' again when the runner's
 * progress moves past a marker, or their expected finish or sharing changes (rescheduleNotes); and
 * when a race's start moves (editRace). The rule itself is ./deadline.ts; the stores take what it
 * gives as data and check, in their own transaction, that the start it was worked out from still
 * holds (DeadlinesOutdated: worked out again here, and tried again).
 */
import { raceStartsAt } from '../../contract/raceClock.js';
import { DeadlinesOutdated } from '../db/job-store.js';
import type { EditOutcome } from '../db/race-store.js';
import type { ChangeAuthor, JobDeadline, NewNote, QueuedNote, Race, RaceEdit, Repository, RunnerSchedule } from '../db/repository.js';
import { noteDeadline } from './deadline.js';
import type { RunnerMovedListener } from './runner-moved.js';

/**
 * How often a store may find the deadlines it was given outdated before the caller is told: each
 * time a race's start moved, or notes were queued, between working them out and writing them.
 */
const ATTEMPTS = 10;

/** Runs `write` until the deadlines it is given are current; `plan` works them out (again) for the notes it names. */
async function untilCurrent<T>(write: () => Promise<T>, plan: (outdated: readonly string[]) => Promise<void>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (!(err instanceof DeadlinesOutdated) || attempt >= ATTEMPTS) throw err;
      await plan(err.noteIds);
    }
  }
}

const deadlineBy = (schedule: RunnerSchedule, marker: string, receivedAt: number): JobDeadline => ({
  dueAt: Math.round(noteDeadline(schedule, marker, receivedAt)),
  raceStartsAt: Math.round(schedule.startsAt),
});

/** A new note's deadline, from its runner's schedule as it stands; a link gone has none: due at once. */
export async function deadlineOfNote(repo: Pick<Repository, 'progress'>, note: Pick<NewNote, 'linkId' | 'marker' | 'receivedAt'>): Promise<JobDeadline> {
  const received = Date.parse(note.receivedAt);
  const schedule = await repo.progress.scheduleOfLink(note.linkId);
  return schedule ? deadlineBy(schedule, note.marker, received) : { dueAt: received, raceStartsAt: received };
}

/**
 * Stores a new note with its deadline through `store` (notes.insert, or the quota's take), working
 * the deadline out again while the race's start moves under it; resolves to what `store` does.
 */
export async function queueNote<T>(repo: Pick<Repository, 'progress'>, note: NewNote, store: (queued: QueuedNote) => Promise<T>): Promise<T> {
  let queued: QueuedNote = { ...note, deadline: await deadlineOfNote(repo, note) };
  return untilCurrent(
    () => store(queued),
    async () => {
      queued = { ...note, deadline: await deadlineOfNote(repo, note) };
    },
  );
}

/** Works out again the deadlines of the entry's waiting notes; resolves to the schedule used (undefined: no such entry). */
export async function rescheduleNotes(repo: Repository, entryId: string): Promise<RunnerSchedule | undefined> {
  const schedule = await repo.progress.scheduleOfEntry(entryId);
  if (!schedule) return undefined;
  const changes = (await repo.jobs.waitingOfEntry(entryId))
    .map((job) => ({ noteId: job.noteId, dueAt: deadlineBy(schedule, job.marker, job.receivedAt).dueAt, was: job.dueAt }))
    .filter((c) => c.dueAt !== c.was);
  await repo.jobs.setDue(changes);
  return schedule;
}

/**
 * The runner moved (./runner-moved.ts): a passage (or the first placement) is what moves the
 * estimate, so the waiting notes' deadlines follow it, before the batch is answered. Not on every
 * batch: race morning's 33 a second would each rewrite the same deadlines by seconds.
 */
export const deadlinesFollowRunner =
  (repo: Repository): RunnerMovedListener =>
  async ({ entryId, passedMarker }) => {
    if (passedMarker) await rescheduleNotes(repo, entryId);
  };

/**
 * Edits the race (repo.races.edit) with the deadlines of its waiting notes worked out from the new
 * start, each from its link's schedule: a runner placed on the course keeps the deadlines their
 * progress gives; the others' move with the start. A note queued meanwhile gets its own and the
 * edit is tried again; the edit holds off new notes while it writes, so none is left with the old start.
 */
export async function editRace(repo: Repository, before: Race, after: RaceEdit, author: ChangeAuthor): Promise<EditOutcome> {
  // As the store tells a moved start: by the instant as written.
  const moved = raceStartsAt(after.date, after.start, after.timezone);
  const startsAt = Date.parse(moved);
  const planned = new Map<string, JobDeadline>();
  const plan = async () => {
    if (moved === before.startsAt) return;
    const schedules = new Map<string, RunnerSchedule | undefined>();
    for (const job of await repo.jobs.waitingOfRace(before.id)) {
      if (planned.has(job.noteId)) continue;
      if (!schedules.has(job.linkId)) schedules.set(job.linkId, await repo.progress.scheduleOfLink(job.linkId));
      const schedule = schedules.get(job.linkId);
      // No schedule for the link (none is ever missing while the race holds it): the job stays as it is.
      planned.set(
        job.noteId,
        schedule ? deadlineBy({ ...schedule, startsAt }, job.marker, job.receivedAt) : { dueAt: job.dueAt, raceStartsAt: job.raceStartsAt },
      );
    }
  };
  await plan();
  return untilCurrent(() => repo.races.edit(before, after, author, planned), plan);
}
