/** Owns the races a link or an entry is for (seeded by the migrations). */
import type { Position } from 'geojson';
import { raceStartsAt } from '../../src/shared/raceClock.js';
import { markersFor } from '../../src/shared/markers.js';
import { courseFrom } from '../races/course.js';
import { SEED_RACES } from '../races/seed.js';
import type { SqlDriver } from './driver.js';
import { createRaceStub, type RaceStub } from './race-stub.js';
import { toRace } from './rows.js';
import type { RaceRow } from './types.js';

/** A race with its clock: the IANA zone it is run in and its start as an ISO instant. */
export interface CatalogueRace extends RaceRow {
  timezone: string;
  startsAt: string;
}

/** The shape w18i's catalogue answers (WAVE2.md): the full track and each marker's point on it. */
export interface RaceCourse {
  line: Array<[number, number]>;
  etag: string;
  markers: Array<{ id: string; label: string; distanceMeters: number; lat: number; lon: number }>;
}

export interface RaceStore {
  get(id: string): Promise<CatalogueRace | undefined>;
  course(id: string): Promise<RaceCourse | undefined>;
  /** STUB (w19p) until the catalogue lands: tests set a race's clock and course here. */
  stub: RaceStub;
}

const GET_RACE = 'SELECT id, name, race_date, units FROM races WHERE id = ?';

export function createRaceStore(sql: SqlDriver): RaceStore {
  const stub = createRaceStub(sql);
  return {
    async get(id) {
      const [row] = await sql.all(GET_RACE, [id]);
      if (!row) return undefined;
      const race = toRace(row);
      const stubbed = await stub.get(id);
      if (stubbed) return { ...race, timezone: stubbed.timezone, startsAt: stubbed.startsAt };
      const seed = SEED_RACES.find((r) => r.id === id);
      const timezone = seed?.timeZone ?? 'UTC';
      return { ...race, timezone, startsAt: raceStartsAt(race.date, seed?.start ?? '07:00', timezone) };
    },
    async course(id) {
      const [row] = await sql.all(GET_RACE, [id]);
      const stubbed = await stub.get(id);
      if (!row || !stubbed?.line) return undefined;
      const placed = courseFrom({ type: 'LineString', coordinates: stubbed.line as Position[] }, markersFor(toRace(row).units));
      return {
        line: stubbed.line as Array<[number, number]>,
        etag: stubbed.etag!,
        markers: placed.markers.map(({ id, label, distanceMeters, lat, lon }) => ({ id, label, distanceMeters, lat, lon })),
      };
    },
    stub,
  };
}
