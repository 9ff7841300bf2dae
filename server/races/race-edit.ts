/**
 * What edit-race may change of a race, and when it may move it, pure: each option checked
 * as add-race checks it, and the rules for moving a race in time judged at `now`, from the caller.
 */
import {
  canonicalTimeZone,
  localSchedule,
  raceDateProblem,
  raceScheduleProblem,
  raceStartsAt,
  raceWhen,
  startTimeProblem,
  timeZoneProblem,
} from '../../contract/raceClock.js';
import type { RaceFields, RaceHoldings, RaceRow } from '../db/types.js';
import { raceNameProblem, unitsOf } from './new-race.js';

/**
 * Each option edit-race takes: the field it sets from the text given, or a sentence saying what to
 * fix. A new one (a race's picture, say) is one more line here.
 */
const OPTIONS = {
  date: (text: string) => raceDateProblem(text) ?? { date: text },
  start: (text: string) => startTimeProblem(text) ?? { start: text },
  timezone: (text: string) => timeZoneProblem(text) ?? { timezone: canonicalTimeZone(text) },
  name: (text: string) => raceNameProblem(text) ?? { name: text.trim().normalize('NFC') },
  units: (text: string) => {
    const units = unitsOf(text);
    return typeof units === 'string' ? units : { units };
  },
} satisfies Record<string, (text: string) => Partial<RaceFields> | string>;

export type EditOption = keyof typeof OPTIONS;
export const EDIT_OPTIONS = Object.keys(OPTIONS) as EditOption[];

/** A race's fields and the start they make. */
export type EditedRace = RaceFields & { startsAt: string };

/** The race with the options given (the rest as it is), or the first sentence saying what to fix. */
export function editedRace(race: RaceRow, options: Partial<Record<EditOption, string>>): EditedRace | string {
  let fields: RaceFields = { name: race.name, date: race.date, start: race.start, timezone: race.timezone, units: race.units };
  for (const option of EDIT_OPTIONS) {
    const text = options[option];
    if (text === undefined) continue;
    const field = OPTIONS[option](text);
    if (typeof field === 'string') return field;
    fields = { ...fields, ...field };
  }
  // A start the clocks skip that day, with the date and zone it now has.
  const problem = raceScheduleProblem(fields.date, fields.start, fields.timezone);
  if (problem) return problem;
  return { ...fields, startsAt: raceStartsAt(fields.date, fields.start, fields.timezone) };
}

/** The fields that differ between the race and its edit, in the order the options are listed. */
export function changedFields(race: RaceRow, edited: EditedRace): Array<keyof RaceFields> {
  const fields: Array<keyof RaceFields> = ['date', 'start', 'timezone', 'name', 'units'];
  return fields.filter((f) => String(race[f]) !== String(edited[f]));
}

/**
 * A sentence saying why the race may not move from `race` to `edited` at `now`, or null.
 *
 * A race not yet over (upcoming, or live: a delay is often announced after the planned gun) may move
 * to any later time, or to an earlier start that keeps it live (the gun went earlier than written),
 * but not to a date before today in its zone, nor to a start that would put it over: that is a
 * mistyped year or day, and would close the race to the app and tell its friends it is over.
 * A race that is over may be corrected (its keepsake shows the day) while it stays over; moved back
 * to come or to live, only if nobody entered it or holds a link for it (added with the wrong year):
 * a race run once keeps its notes as the runners' keepsakes, and next year's is a race of its own.
 */
export function moveProblem(race: RaceRow, edited: EditedRace, now: number, holdings: RaceHoldings): string | null {
  if (edited.startsAt === race.startsAt) return null;
  const was = raceWhen(race.startsAt, now);
  const will = raceWhen(edited.startsAt, now);
  if (was !== 'past') {
    const today = localSchedule(now, edited.timezone).date;
    if (edited.date < today) {
      return `${edited.date} is in the past (it is ${today} in ${edited.timezone}), and the ${race.name} has not been run yet: check the day and the year. Nothing was changed.`;
    }
    if (will === 'past') {
      return `A start at ${edited.start} on ${edited.date} (${edited.timezone}) would put the ${race.name} over at once (a race is live for 8 hours from its start). Nothing was changed.`;
    }
    return null;
  }
  if (will !== 'past' && holdings.links + holdings.entries > 0) {
    return (
      `The ${race.name} is over (it started ${race.date} at ${race.start}, ${race.timezone}) and runners hold ${holdings.links} link${holdings.links === 1 ? '' : 's'} for it: ` +
      'a race that was run keeps its notes as their keepsakes and cannot be run again. Add the next edition as a race of its own (add-race). Nothing was changed.'
    );
  }
  return null;
}
