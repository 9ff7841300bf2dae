/** What the operator may name a new race with: its id, checked with the race's schedule. */
import { raceScheduleProblem } from '../../src/shared/raceClock.js';

/** Ids go into URLs and file names (public/races/<id>.svg); the runner app's API takes up to 64 characters. */
export const MAX_RACE_ID_LENGTH = 64;

/** A sentence saying what is wrong with a new race's id, or null. Whether it is taken is the catalogue's to say. */
export function raceIdProblem(id: string): string | null {
  if (id.length > MAX_RACE_ID_LENGTH) return `A race id can be at most ${MAX_RACE_ID_LENGTH} characters; this one has ${id.length}.`;
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id)) {
    return `A race id is lower-case letters and digits, words joined by single hyphens, e.g. chicago-2026; '${id}' is not.`;
  }
  return null;
}

export interface NewRace {
  id: string;
  date: string;
  start: string;
  timeZone: string;
}

/** The first thing wrong with a new race, as a sentence that says what to fix, or null. */
export function newRaceProblem({ id, date, start, timeZone }: NewRace): string | null {
  return raceIdProblem(id) ?? raceScheduleProblem(date, start, timeZone);
}
