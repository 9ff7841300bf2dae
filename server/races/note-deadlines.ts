/**
 * Keeps the conversion deadlines of a runner's waiting notes current (issue 31): when the runner's
 * progress moves past a marker, or their expected finish or sharing changes, each waiting note's
 * deadline is worked out again from the schedule as it now stands (./deadline.ts).
 */
import type { RunnerSchedule } from '../db/progress-store.js';
import type { Repository } from '../db/repository.js';
import { noteDeadline } from './deadline.js';

/** Recomputes the deadlines of the entry's waiting notes; resolves to the schedule used (undefined: no such entry). */
export async function rescheduleNotes(repo: Repository, entryId: string): Promise<RunnerSchedule | undefined> {
  const schedule = await repo.progress.scheduleOfEntry(entryId);
  if (schedule) await repo.jobs.reschedule(entryId, (marker, receivedAt) => noteDeadline(schedule, marker, receivedAt));
  return schedule;
}
