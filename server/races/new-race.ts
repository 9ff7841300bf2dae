/** What the operator may name a new race with: its id, name and units, checked with the race's schedule. */
import { raceScheduleProblem } from '../../contract/raceClock.js';
import type { DistanceUnit } from '../../contract/races.js';

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

/** Names go on the home page's cards, the recorder's header and its sentences: one line, short enough for a card. */
export const MAX_RACE_NAME_LENGTH = 80;

/** A sentence saying what is wrong with a race's name (as typed; it is stored trimmed, in NFC), or null. */
export function raceNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed === '') return 'Give the race a name, e.g. "Chicago Marathon".';
  // Control characters (a newline, a bidi override) would break a line or reorder the words around the name.
  if (/[\p{Cc}\p{Cf}]/u.test(trimmed))
    return 'A race name is one line of plain text: remove the control characters (line breaks, tabs, direction marks) from it.';
  const length = Array.from(trimmed).length;
  if (length > MAX_RACE_NAME_LENGTH) return `A race name can be at most ${MAX_RACE_NAME_LENGTH} characters; this one has ${length}.`;
  return null;
}

/** The units a race's markers are in, from 'mi' or 'mi,km' (either order, spaces allowed), or a sentence saying what to give. */
export function unitsOf(text: string): DistanceUnit[] | string {
  const units = [...new Set(text.split(',').map((unit) => unit.trim()))].sort((a, b) => (a === 'mi' ? -1 : b === 'mi' ? 1 : 0));
  if (units.join(',') === 'mi' || units.join(',') === 'mi,km') return units as DistanceUnit[];
  return `Give --units as mi (mile markers only) or mi,km (kilometre markers as well, as outside the US); '${text.slice(0, 40)}' is neither.`;
}
