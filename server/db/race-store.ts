/** Owns the races a link or an entry is for (seeded by the migrations). */
import type { SqlDriver } from './driver.js';
import { toRace } from './rows.js';
import type { RaceRow } from './types.js';

export interface RaceStore {
  get(id: string): Promise<RaceRow | undefined>;
}

const GET_RACE = 'SELECT id, name, race_date, units FROM races WHERE id = ?';

export function createRaceStore(sql: SqlDriver): RaceStore {
  return {
    async get(id) {
      const [row] = await sql.all(GET_RACE, [id]);
      return row && toRace(row);
    },
  };
}
