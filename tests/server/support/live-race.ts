/**
 * A race that is live now (or moved to any start), with a known course: a straight line 42.2 km
 * north from Chicago, set through the race catalogue as an operator would (add, edit, course).
 */
import type { Repository } from '../../../server/db/repository.js';
import { localSchedule } from '../../../contract/raceClock.js';
import { editRace } from '../../../server/races/note-deadlines.js';
import { storedCourse } from '../../../server/races/stored-course.js';
import { gpxText } from '../../../stand-ins/courses.js';
import { STRAIGHT } from '../../../stand-ins/straightCourse.js';
import { UPCOMING } from './races.js';

export { CHICAGO, positionAt, STRAIGHT } from '../../../stand-ins/straightCourse.js';

/**
 * Starts `raceId` (added if the catalogue lacks it) `minutesAgo` minutes ago, to the minute, on the
 * straight course (or leaves it without one); returns its start in epoch ms.
 */
export async function startRace(repo: Repository, raceId: string = UPCOMING.chicago.id, minutesAgo = 60, withCourse = true): Promise<number> {
  const startsAt = Math.floor((Date.now() - minutesAgo * 60_000) / 60_000) * 60_000;
  const schedule = { ...localSchedule(startsAt, 'America/Chicago'), timezone: 'America/Chicago' };
  if (!(await repo.races.get(raceId))) await repo.races.add({ id: raceId, name: 'Chicago Marathon', units: ['mi'], ...schedule });
  const race = (await repo.races.get(raceId))!;
  const moved = await editRace(repo, race, { ...race, ...schedule }, { at: new Date().toISOString(), by: 'tests' });
  if (moved.outcome !== 'edited') throw new Error(`could not move ${raceId}: ${moved.outcome}`);
  if (withCourse) await repo.races.setCourse(raceId, storedCourse(gpxText({ tracks: [[STRAIGHT.track]] }), ['mi']));
  return startsAt;
}
