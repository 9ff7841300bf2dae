/**
 * The nine races of the spec as the catalogue starts with them, seeded by every migrate (./migrate.ts):
 * ids, names, dates and units from contract/races.ts (the home page's carousel, fixed by the
 * spec), and each city's time zone and the race's usual local start. No courses: organizers
 * rarely publish a GPX, so the operator adds one with set-course when they have it.
 */
import { RACES, type DistanceUnit } from '../../contract/races.js';

export interface SeedRace {
  id: string;
  name: string;
  /** Race day, local to the race (YYYY-MM-DD). */
  date: string;
  /** The city's IANA time zone. */
  timeZone: string;
  /** Local start time (HH:MM, 24-hour), the first wave's. */
  start: string;
  units: readonly DistanceUnit[];
}

const LOCAL_START: Record<string, Pick<SeedRace, 'timeZone' | 'start'>> = {
  'sydney-2025': { timeZone: 'Australia/Sydney', start: '06:00' },
  'berlin-2025': { timeZone: 'Europe/Berlin', start: '09:15' },
  'long-beach-2025': { timeZone: 'America/Los_Angeles', start: '06:30' },
  'chicago-2025': { timeZone: 'America/Chicago', start: '07:30' },
  'marine-corps-2025': { timeZone: 'America/New_York', start: '07:55' },
  'raleigh-2025': { timeZone: 'America/New_York', start: '07:00' },
  'nyc-2025': { timeZone: 'America/New_York', start: '09:10' },
  'every-womans-2025': { timeZone: 'America/New_York', start: '06:30' },
  'philadelphia-2025': { timeZone: 'America/New_York', start: '07:00' },
};

export const SEED_RACES: readonly SeedRace[] = RACES.map((race) => {
  const local = LOCAL_START[race.id];
  if (!local) throw new Error(`No time zone and start time for the race ${race.id}: add them to server/db/seed-races.ts.`);
  return { id: race.id, name: race.name, date: race.date, units: race.units, ...local };
});
