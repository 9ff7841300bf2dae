/**
 * The race clock, for the server and the page: when a race starts (its local date and start time
 * in its city's IANA time zone, as an instant in UTC) and where it stands at a given moment.
 * Time zones come from Intl (the engine's ICU data), so summer time follows the city's own rules.
 */

export type RaceWhen = 'upcoming' | 'live' | 'past';

/** A race is live from its start for 8 hours (course time limits run about 6 to 8.5), past after. */
export const LIVE_HOURS = 8;
const LIVE_MS = LIVE_HOURS * 3600_000;

/** Where the race stands at `now`: live from `startsAt` (inclusive) until 8 hours later (exclusive). */
export function raceWhen(startsAt: string, now: Date | number = Date.now()): RaceWhen {
  const elapsed = +now - Date.parse(startsAt);
  return elapsed < 0 ? 'upcoming' : elapsed < LIVE_MS ? 'live' : 'past';
}

/**
 * How a local start time met the clocks on its day: `exact`; `overlap` when it happens twice (the
 * night summer time ends), and the first is taken, when the clocks still show summer time; `gap`
 * when it never happens (the night summer time starts), and the clocks' jump is added, so 02:30
 * on a night that skips from 02:00 to 03:00 starts at 03:30. These are the rules of RFC 5545 and
 * of Temporal's 'compatible' disambiguation.
 */
export type LocalTimeFit = 'exact' | 'overlap' | 'gap';

const DAY_MS = 86_400_000;

/** The start of a race as an instant: ISO 8601 in UTC, e.g. '2026-10-11T12:30:00.000Z'. Inputs must be valid (see raceScheduleProblem). */
export function raceStartsAt(date: string, start: string, timeZone: string): string {
  return resolveStart(date, start, timeZone).startsAt;
}

/** raceStartsAt, and how the local start met the clocks that day (a caller may warn of an overlap). */
export function resolveStart(date: string, start: string, timeZone: string): { startsAt: string; fit: LocalTimeFit } {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = start.split(':').map(Number) as [number, number];
  // The wall-clock time written as if it were UTC; the instant is that minus the zone's offset then.
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const before = offsetAt(timeZone, wall - DAY_MS);
  const after = offsetAt(timeZone, wall + DAY_MS);
  const fits = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((instant) => wallClock(timeZone, instant) === wall)
    .sort((a, b) => a - b);
  if (fits.length > 0) return { startsAt: new Date(fits[0]!).toISOString(), fit: fits.length > 1 ? 'overlap' : 'exact' };
  return { startsAt: new Date(wall - before).toISOString(), fit: 'gap' };
}

/** One formatter a zone (building one costs far more than using it), keyed case-blind as Intl reads names: a few hundred at most. */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's wall clock at an instant, written as if it were UTC (milliseconds). */
function wallClock(timeZone: string, instant: number): number {
  let format = formatters.get(timeZone.toLowerCase());
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone.toLowerCase(), format);
  }
  const part = Object.fromEntries(format.formatToParts(instant).map(({ type, value }) => [type, Number(value)]));
  return Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
}

/** An instant as an operator types a race's schedule: the zone's local date and HH:MM (raceStartsAt's inverse, to the minute). */
export function localSchedule(instant: number, timeZone: string): { date: string; start: string } {
  const wall = new Date(wallClock(timeZone, instant)).toISOString();
  return { date: wall.slice(0, 10), start: wall.slice(11, 16) };
}

/** How far the zone's clocks are ahead of UTC at an instant, in milliseconds (negative west of Greenwich). */
function offsetAt(timeZone: string, instant: number): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallClock(timeZone, whole) - whole;
}

const MAX_TIME_ZONE_LENGTH = 64;

/** A sentence saying what is wrong with a race's date ('YYYY-MM-DD', a real day), or null. */
export function raceDateProblem(date: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return `Give the race date as YYYY-MM-DD, e.g. 2026-10-11; '${date.slice(0, 40)}' is not in that form.`;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  if (year < 2000 || year > 2100) return `The race date ${date} is not between the years 2000 and 2100: check the year.`;
  if (month < 1 || month > 12) return `${date} is not a day on the calendar: months go from 01 to 12.`;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return `${date} is not a day on the calendar: that month has ${daysInMonth} days.`;
  return null;
}

/** A sentence saying what is wrong with a local start time ('HH:MM', 24-hour clock), or null. */
export function startTimeProblem(start: string): string | null {
  const match = /^(\d{2}):(\d{2})$/.exec(start);
  if (!match) return `Give the start time as HH:MM on a 24-hour clock, e.g. 07:30 or 13:05; '${start.slice(0, 40)}' is not in that form.`;
  if (Number(match[1]) > 23 || Number(match[2]) > 59) return `${start} is not a time of day: hours go from 00 to 23 and minutes from 00 to 59.`;
  return null;
}

/**
 * A sentence saying what is wrong with a race's time zone, or null. It must be a zone Intl knows,
 * named Area/City: an abbreviation (EST, CET) or a fixed offset (Etc/GMT+5) keeps one offset all
 * year, and a race in summer would start an hour off.
 */
export function timeZoneProblem(timeZone: string): string | null {
  const unknown = `Unknown time zone '${timeZone.slice(0, MAX_TIME_ZONE_LENGTH)}'. Give the race city's IANA time zone, e.g. America/Chicago, Europe/Berlin or Australia/Sydney.`;
  if (timeZone.length > MAX_TIME_ZONE_LENGTH) return unknown;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    return unknown;
  }
  if (!timeZone.includes('/') || /^etc\//i.test(timeZone)) {
    return `'${timeZone}' keeps the same offset all year. Give the race city's IANA time zone (Area/City, e.g. America/New_York), which follows its summer time.`;
  }
  return null;
}

/** The zone's name as IANA writes it ('america/chicago' gives 'America/Chicago'); other aliases are kept as given. */
export function canonicalTimeZone(timeZone: string): string {
  // Node 20's ICU renames some zones to older names (Asia/Kolkata to Asia/Calcutta); only the case is taken from it.
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  return resolved.toLowerCase() === timeZone.toLowerCase() ? resolved : timeZone;
}

/**
 * A sentence saying what is wrong with a race's date, start time and time zone together, or null:
 * each on its own, then a start time the clocks skip that day (a start the clocks pass twice is
 * taken, at its first passing: see LocalTimeFit).
 */
export function raceScheduleProblem(date: string, start: string, timeZone: string): string | null {
  const problem = raceDateProblem(date) ?? startTimeProblem(start) ?? timeZoneProblem(timeZone);
  if (problem) return problem;
  if (resolveStart(date, start, timeZone).fit === 'gap') {
    return `${start} does not exist on ${date} in ${timeZone}: the clocks skip it that night. Give the start time the city's clocks will show.`;
  }
  return null;
}
