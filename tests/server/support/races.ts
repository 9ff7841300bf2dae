/** Races that have not run yet, for tests that enter a race (a race that is over cannot be entered). */
import type { NewRace, Repository } from '../../../server/db/repository.js';

export const UPCOMING = {
  chicago: { id: 'chicago-2099', name: 'Chicago Marathon', date: '2099-10-11', start: '07:30', timezone: 'America/Chicago', units: ['mi'] },
  berlin: { id: 'berlin-2099', name: 'Berlin Marathon', date: '2099-09-27', start: '09:15', timezone: 'Europe/Berlin', units: ['mi', 'km'] },
  nyc: { id: 'nyc-2099', name: 'NYC Marathon', date: '2099-11-01', start: '09:10', timezone: 'America/New_York', units: ['mi'] },
} as const satisfies Record<string, NewRace>;

/** Adds the upcoming races to the catalogue (once per database). */
export async function addUpcomingRaces(repo: Repository): Promise<void> {
  for (const race of Object.values(UPCOMING)) await repo.races.add({ ...race, units: [...race.units] });
}
