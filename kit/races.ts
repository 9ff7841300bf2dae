/** A race that has not run yet, added through the admin CLI: runners can only enter races that are not over. */
import type { RunningServer } from './server.js';

export const UPCOMING_RACE = 'chicago-2099';

/** Adds UPCOMING_RACE to the server's catalogue and returns its id; several files of one worker (one server) may ask. */
export async function addUpcomingRace(server: RunningServer): Promise<string> {
  await server
    .admin('add-race', '--id', UPCOMING_RACE, '--name', 'Chicago Marathon', '--date', '2099-10-11', '--timezone', 'America/Chicago', '--start', '07:30')
    .catch((error: Error) => {
      if (!error.message.includes(`A race with the id '${UPCOMING_RACE}' already exists (Chicago Marathon, 2099-10-11)`)) throw error;
    });
  return UPCOMING_RACE;
}
