/**
 * Owns the race catalogue: each race's schedule (time zone, local start, start instant) and its
 * course (whole track, the app's copy with its ETag, marker points). Read from the database on
 * every call, so a race added or a course set through any server is seen by all at once; only a
 * course's parsed track is kept in memory, and only while the database still has its ETag.
 */
import { LIVE_HOURS, raceStartsAt } from '../../src/shared/raceClock.js';
import type { SqlDriver } from './driver.js';
import { toCataloguedRace } from './rows.js';
import type { CardRace, NewRace, Race, RaceCourse, RaceImage, Row, StoredCourse } from './types.js';

export interface RaceStore {
  /** The race with its schedule, units and markers (placed when it has a course); undefined when unknown. */
  get(id: string): Promise<Race | undefined>;
  /** Every race, the earliest start first. */
  list(): Promise<Race[]>;
  /** Adds a race (with its course, if given) in one statement: false, and nothing written, when the id is taken. */
  add(race: NewRace): Promise<boolean>;
  /** Moves a race to another day, start or zone (a start delayed by weather); false when there is no such race. */
  reschedule(id: string, schedule: { date: string; start: string; timezone: string }): Promise<boolean>;
  /** Replaces or adds a race's course in one statement; false when there is no such race. */
  setCourse(id: string, course: StoredCourse): Promise<boolean>;
  /** The whole track and the placed markers; undefined when the race is unknown or has no course. */
  course(id: string): Promise<RaceCourse | undefined>;
  /** The course as the app downloads it (GeoJSON LineString text) and its strong ETag. */
  appCourse(id: string): Promise<{ json: string; etag: string } | undefined>;
  /** The home page's races: those not over at `now` (upcoming or live), the earliest start first, at most `limit`. */
  notOver(now: number, limit: number): Promise<CardRace[]>;
  /** The race's own picture; undefined when the race is unknown or has none. */
  image(id: string): Promise<RaceImage | undefined>;
}

/** The schedule columns of `races r`, for the stores that join a race to what they read (links, entries). */
export const RACE_COLUMNS = 'r.id, r.name, r.race_date, r.units, r.time_zone, r.local_start, r.starts_at';
const LISTED = `${RACE_COLUMNS}, r.course_markers`;

const GET_RACE = `SELECT ${LISTED} FROM races r WHERE r.id = ?`;
const LIST_RACES = `SELECT ${LISTED} FROM races r ORDER BY r.starts_at, r.id`;
const ADD_RACE =
  'INSERT INTO races (id, name, race_date, units, time_zone, local_start, starts_at, course_line, course_app, course_etag, course_meters, course_markers, image_key, image_type) ' +
  'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING';
const RESCHEDULE = 'UPDATE races SET race_date = ?, local_start = ?, time_zone = ?, starts_at = ? WHERE id = ?';
const SET_COURSE = 'UPDATE races SET course_line = ?, course_app = ?, course_etag = ?, course_meters = ?, course_markers = ? WHERE id = ?';
const COURSE_ETAG = 'SELECT course_etag FROM races WHERE id = ?';
const COURSE = `SELECT ${RACE_COLUMNS}, r.course_line, r.course_etag, r.course_markers FROM races r WHERE r.id = ? AND r.course_etag IS NOT NULL`;
const APP_COURSE = 'SELECT course_app, course_etag FROM races WHERE id = ? AND course_etag IS NOT NULL';
// starts_at is ISO 8601 in UTC, all written by toISOString: its text order is time order, and races_by_start serves it.
const NOT_OVER = 'SELECT id, name, race_date, image_key, image_type FROM races WHERE starts_at > ? ORDER BY starts_at, id LIMIT ?';
const IMAGE = 'SELECT image_key, image_type FROM races WHERE id = ? AND image_key IS NOT NULL';
const LIVE_MS = LIVE_HOURS * 3600_000;

const imageOf = (row: Row): RaceImage | null =>
  row.image_key === null || row.image_key === undefined ? null : { key: String(row.image_key), type: String(row.image_type) };

/** A full track is up to a few MB of JSON: a handful parsed is plenty for the races of one weekend. */
const CACHED_COURSES = 8;

const courseColumns = (course: StoredCourse | undefined) =>
  course ? [JSON.stringify(course.line), course.app.json, course.app.etag, course.lengthMeters, JSON.stringify(course.markers)] : [null, null, null, null, null];

export function createRaceStore(sql: SqlDriver): RaceStore {
  // Keyed by race id; an entry counts only while the database's ETag for the race is the same.
  const courses = new Map<string, RaceCourse>();

  return {
    async get(id) {
      const [row] = await sql.all(GET_RACE, [id]);
      return row && toCataloguedRace(row);
    },
    async list() {
      return (await sql.all(LIST_RACES)).map(toCataloguedRace);
    },
    async add(race) {
      const startsAt = raceStartsAt(race.date, race.start, race.timezone);
      const row = [race.id, race.name, race.date, race.units.join(','), race.timezone, race.start, startsAt, ...courseColumns(race.course), race.image?.key ?? null, race.image?.type ?? null];
      return (await sql.run(ADD_RACE, row)) > 0;
    },
    async reschedule(id, { date, start, timezone }) {
      return (await sql.run(RESCHEDULE, [date, start, timezone, raceStartsAt(date, start, timezone), id])) > 0;
    },
    async setCourse(id, course) {
      return (await sql.run(SET_COURSE, [...courseColumns(course), id])) > 0;
    },
    async course(id) {
      const [tag] = await sql.all(COURSE_ETAG, [id]);
      const etag = tag?.course_etag;
      if (etag === null || etag === undefined) return undefined;
      const cached = courses.get(id);
      if (cached?.etag === etag) return cached;
      const [row] = await sql.all(COURSE, [id]);
      if (!row) return undefined;
      const course = courseOf(toCataloguedRace(row), row.course_line, String(row.course_etag));
      courses.delete(id);
      courses.set(id, course);
      if (courses.size > CACHED_COURSES) courses.delete(courses.keys().next().value!);
      return course;
    },
    async appCourse(id) {
      const [row] = await sql.all(APP_COURSE, [id]);
      return row && { json: String(row.course_app), etag: String(row.course_etag) };
    },
    async notOver(now, limit) {
      // A race is over LIVE_HOURS after its start (raceClock.raceWhen): it stays on the page while friends may still send notes.
      const rows = await sql.all(NOT_OVER, [new Date(now - LIVE_MS).toISOString(), limit]);
      return rows.map((row) => ({ id: String(row.id), name: String(row.name), date: String(row.race_date), image: imageOf(row) }));
    },
    async image(id) {
      const [row] = await sql.all(IMAGE, [id]);
      return (row && imageOf(row)) ?? undefined;
    },
  };
}

function courseOf(race: Race, line: unknown, etag: string): RaceCourse {
  return {
    line: JSON.parse(String(line)) as RaceCourse['line'],
    etag,
    markers: race.markers.filter((m): m is RaceCourse['markers'][number] => m.lat !== undefined && m.lon !== undefined),
  };
}
