/**
 * A race that is live now, with a known course: a straight line 42.2 km north from Chicago.
 * STUB (w19p): seeds the stand-in catalogue of server/db/race-stub.ts; when the race catalogue
 * (issue 18) lands, only this helper changes to set the race's start and course through it.
 */
import type { Position } from 'geojson';
import type { Repository } from '../../../server/db/repository.js';
import { courseOf, legFrom } from '../races/courses.js';

export const CHICAGO: Position = [-87.6244, 41.8827];
export const STRAIGHT = courseOf([legFrom(CHICAGO, 0, 42_195)]);

/** Starts `raceId` `minutesAgo` minutes ago on the straight course (or none); returns its start in epoch ms. */
export async function startRace(repo: Repository, raceId = 'chicago-2025', minutesAgo = 60, withCourse = true): Promise<number> {
  const startsAt = Math.floor(Date.now() / 1000) * 1000 - minutesAgo * 60_000;
  await repo.races.stub.set({
    id: raceId, timezone: 'America/Chicago', startsAt: new Date(startsAt).toISOString(), ...(withCourse && { line: STRAIGHT.track }),
  });
  return startsAt;
}

/** A position `meters` along the straight course at `at` (epoch ms), as the app sends it. */
export const positionAt = (meters: number, at: number, accuracy = 8, eastMeters = 0) => {
  const on = STRAIGHT.at(meters);
  const [lon, lat] = eastMeters ? legFrom(on, 90, eastMeters).at(eastMeters) : on;
  return { at: new Date(at).toISOString(), lat: lat!, lon: lon!, accuracy };
};
