/**
 * A race as every answer gives it (contract/raceApi.ts RaceSchema), its `when` on the server's
 * clock at `now`: the one projection of a stored race for the routes. An answer's schema sends the
 * fields it names and no other (the catalogue all of them, an entry its id, name and date).
 */
import { raceWhen } from '../../contract/raceClock.js';
import type { RaceInfo } from '../../contract/raceApi.js';
import type { Race, RaceRow } from '../db/types.js';

/** A race's own fields, without its markers or course. */
export type PublicRaceRow = Omit<RaceInfo, 'hasCourse' | 'markers'>;

export function publicRace(race: Race, now: number): RaceInfo;
export function publicRace(race: RaceRow, now: number): PublicRaceRow;
export function publicRace(race: RaceRow | Race, now: number): PublicRaceRow | RaceInfo {
  const { id, name, date, timezone, startsAt } = race;
  const own: PublicRaceRow = { id, name, date, timezone, startsAt, when: raceWhen(startsAt, now), units: [...race.units] };
  return 'markers' in race ? { ...own, hasCourse: race.hasCourse, markers: race.markers } : own;
}
