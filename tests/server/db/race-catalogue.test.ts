import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/driver.js';
import { openDatabase } from '../../../server/db/index.js';
import { applyMigrations, MIGRATIONS } from '../../../server/db/migrate.js';
import { RACE_CATALOGUE_TABLES } from '../../../server/db/migrations/6-race-catalogue.js';
import { createRepository, type Repository } from '../../../server/db/repository.js';
import { storedCourse } from '../../../server/races/stored-course.js';
import { MARATHON_METERS } from '../../../contract/markers.js';
import { RACES } from '../../../contract/races.js';
import { BACKENDS, createBackend, type TestBackend } from '../support/backends.js';
import { courseOf, gpxText, legFrom } from '../../../stand-ins/courses.js';

const course = () => storedCourse(gpxText({ tracks: [[courseOf([legFrom([-87.6244, 41.8827], 0, MARATHON_METERS)]).track]] }), ['mi']);

describe.each(BACKENDS)('the race catalogue in the database on %s', (kind) => {
  let backend: TestBackend;
  let db: Database;
  let repo: Repository;
  const open = async () => {
    backend = await createBackend(kind);
    db = openDatabase(backend.config);
    repo = createRepository(db);
  };
  afterEach(async () => {
    await db.close();
    await backend.cleanup();
  });

  it('should give the races of a database from before the catalogue their zones and starts, keeping their links', async () => {
    await open();
    // The schema and seed as they were before the catalogue.
    await db.exclusive((tx) => applyMigrations(tx, MIGRATIONS.slice(0, MIGRATIONS.indexOf(RACE_CATALOGUE_TABLES))));
    for (const race of RACES)
      await db.run('INSERT INTO races (id, name, race_date, units) VALUES (?, ?, ?, ?)', [race.id, race.name, race.date, race.units.join(',')]);
    await db.run("INSERT INTO runners (id, display_name, created_at) VALUES ('r1', 'Alex', '2025-10-01T00:00:00Z')");
    await db.run("INSERT INTO links (id, runner_id, race_id, created_at) VALUES ('l1', 'r1', 'sydney-2025', '2025-10-01T00:00:00Z')");

    await repo.migrate();
    expect(await repo.races.get('chicago-2025')).toMatchObject({
      timezone: 'America/Chicago',
      start: '07:30',
      startsAt: '2025-10-12T12:30:00.000Z',
      hasCourse: false,
    });
    expect((await repo.races.list()).filter((r) => !r.timezone || !r.startsAt)).toEqual([]);
    expect((await repo.links.find('l1'))!.race).toEqual({
      id: 'sydney-2025',
      name: 'Sydney Marathon',
      date: '2025-08-31',
      units: ['mi', 'km'],
      timezone: 'Australia/Sydney',
      start: '06:00',
      startsAt: '2025-08-30T20:00:00.000Z',
    });
  });

  it('should keep what the operator set on a seeded race through every later start', async () => {
    await open();
    await repo.migrate();
    const set = course();
    expect(await repo.races.setCourse('chicago-2025', set)).toBe(true);
    await repo.migrate();
    expect((await repo.races.get('chicago-2025'))!.hasCourse).toBe(true);
    expect((await repo.races.course('chicago-2025'))!.etag).toBe(set.app.etag);
    expect((await repo.races.list()).filter((r) => RACES.some((s) => s.id === r.id))).toHaveLength(9);
  });

  it('should refuse a race whose id is taken and leave the race there as it was', async () => {
    await open();
    await repo.migrate();
    const taken = {
      id: 'chicago-2025',
      name: 'Impostor',
      date: '2030-01-01',
      start: '10:00',
      timezone: 'Europe/Paris',
      units: ['mi' as const],
      course: course(),
    };
    expect(await repo.races.add(taken)).toBe(false);
    expect(await repo.races.get('chicago-2025')).toMatchObject({ name: 'Chicago Marathon', date: '2025-10-12', timezone: 'America/Chicago', hasCourse: false });
    expect(await repo.races.course('chicago-2025')).toBeUndefined();
    expect(await repo.races.setCourse('boston-1897', course())).toBe(false);
  });
});
