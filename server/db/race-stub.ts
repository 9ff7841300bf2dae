/**
 * STUB (w19p, issue 19), to be deleted when w18i's race catalogue (issue 18, migration 6) lands:
 * owns a stand-in for each race's start instant, zone and course, so progress can be built and
 * tested before the catalogue holds them. Its table is made on first use, outside the migrations,
 * so that removing this file leaves nothing in the schema's history. Only tests write to it.
 */
import { createHash } from 'node:crypto';
import type { Position } from 'geojson';
import type { SqlDriver } from './driver.js';

export interface StubRace {
  id: string;
  timezone: string;
  startsAt: string;
  /** The full track, [lon, lat] as GeoJSON, or none. */
  line?: Position[];
}

export interface RaceStub {
  /** Tests only: sets a race's start, zone and course. */
  set(race: StubRace): Promise<void>;
  get(id: string): Promise<(StubRace & { etag?: string }) | undefined>;
}

const CREATE = 'CREATE TABLE IF NOT EXISTS stub_race_catalogue (id TEXT PRIMARY KEY, time_zone TEXT NOT NULL, starts_at TEXT NOT NULL, line_json TEXT)';
const SET =
  'INSERT INTO stub_race_catalogue (id, time_zone, starts_at, line_json) VALUES (?, ?, ?, ?) ' +
  'ON CONFLICT (id) DO UPDATE SET time_zone = excluded.time_zone, starts_at = excluded.starts_at, line_json = excluded.line_json';
const GET = 'SELECT time_zone, starts_at, line_json FROM stub_race_catalogue WHERE id = ?';

export function createRaceStub(sql: SqlDriver): RaceStub {
  let made: Promise<unknown> | undefined;
  const ready = () => (made ??= sql.run(CREATE));
  return {
    async set(race) {
      await ready();
      await sql.run(SET, [race.id, race.timezone, race.startsAt, race.line ? JSON.stringify(race.line) : null]);
    },
    async get(id) {
      await ready();
      const [row] = await sql.all(GET, [id]);
      if (!row) return undefined;
      const json = row.line_json === null ? undefined : String(row.line_json);
      return {
        id, timezone: String(row.time_zone), startsAt: String(row.starts_at),
        ...(json && { line: JSON.parse(json) as Position[], etag: `"${createHash('sha256').update(json).digest('base64url')}"` }),
      };
    },
  };
}
