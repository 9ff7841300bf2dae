/**
 * Owns the race catalogue: each race's schedule (time zone, local start, start instant) and its
 * course (whole track, the app's copy with its ETag, marker points), and its history (migration 15:
 * every edit and removal, with the race before). Read from the database on every call, so a race
 * added, edited or removed through any server or the CLI is seen by all at once; only a course's
 * parsed track is kept in memory, and only while the database still has its ETag.
 */
import { randomUUID } from 'node:crypto';
import { LIVE_HOURS, raceStartsAt } from '../../contract/raceClock.js';
import type { SqlDriver } from './driver.js';
import { setRaceDeadlines } from './job-store.js';
import { raceRowOf, toCataloguedRace, toRace, toRaceChange } from './rows.js';
import type {
  CardRace,
  ChangeAuthor,
  JobDeadline,
  NewRace,
  Race,
  RaceChange,
  RaceCourse,
  RaceEdit,
  RaceHoldings,
  RaceImage,
  RaceRow,
  Row,
  StoredCourse,
} from './types.js';

/** How an edit went: done (with how many waiting notes got new deadlines), or refused with nothing written. */
export type EditOutcome =
  | { outcome: 'edited'; race: Race; notesRescheduled: number }
  /** The race is no longer as it was read: edited or removed meanwhile. */
  | { outcome: 'changed' }
  /** The new units drop the kilometre markers, and this many notes are pinned to one. */
  | { outcome: 'km_notes'; notes: number };

export type RemoveOutcome = { outcome: 'removed'; race: RaceRow } | { outcome: 'held'; holdings: RaceHoldings } | { outcome: 'unknown' };

export interface RaceStore {
  /** The race with its schedule, units and markers (placed when it has a course); undefined when unknown. */
  get(id: string): Promise<Race | undefined>;
  /** Every race, the earliest start first. */
  list(): Promise<Race[]>;
  /** Adds a race (with its course, if given) in one statement: false, and nothing written, when the id is taken. */
  add(race: NewRace): Promise<boolean>;
  /**
   * Changes the race from `before` (as read) to `after` in one transaction: its fields, its start
   * instant, the deadlines and race start of its notes waiting for conversion (`deadlines`, by note
   * id, worked out from the new start by server/races/note-deadlines.ts), and a line of its history.
   * Nothing is written when the race is no longer `before`, or when `after` drops the kilometre
   * markers notes are pinned to; nor, throwing DeadlinesOutdated, when the start moves and a waiting
   * note has no deadline in `deadlines`. Holds off new notes meanwhile, so none is queued by the old start.
   */
  edit(before: Race, after: RaceEdit, author: ChangeAuthor, deadlines?: ReadonlyMap<string, JobDeadline>): Promise<EditOutcome>;
  /** Removes a race no runner entered and no link was made for, leaving a line of its history. */
  remove(id: string, author: ChangeAuthor): Promise<RemoveOutcome>;
  /** Who has a stake in the race. */
  holdings(id: string): Promise<RaceHoldings>;
  /** The catalogue's history, of one race or of all, oldest first. */
  history(id?: string): Promise<RaceChange[]>;
  /** Replaces or adds a race's course in one statement; false when there is no such race. */
  setCourse(id: string, course: StoredCourse): Promise<boolean>;
  /**
   * The whole track and the placed markers; undefined when the race is unknown or has no course.
   * `etag`: the course's ETag as the caller just read it with the race, so that this process's copy
   * is taken without asking again.
   */
  course(id: string, etag?: string): Promise<RaceCourse | undefined>;
  /** The course as the app downloads it (GeoJSON LineString text) and its strong ETag. */
  appCourse(id: string): Promise<{ json: string; etag: string } | undefined>;
  /** The home page's races: those not over at `now` (upcoming or live), the earliest start first, at most `limit`. */
  notOver(now: number, limit: number): Promise<CardRace[]>;
  /** The race's own picture; undefined when the race is unknown or has none. */
  image(id: string): Promise<RaceImage | undefined>;
  /**
   * Sets (or, with null, clears) the race's picture and writes a line of its history with the one it
   * had; the picture before, or undefined when the race is not there. The old file stays in the store.
   */
  setImage(id: string, image: RaceImage | null, author: ChangeAuthor): Promise<{ before: RaceImage | null } | undefined>;
}

/** The schedule columns of `races r`, for the stores that join a race to what they read (links, entries). */
export const RACE_COLUMNS = 'r.id, r.name, r.race_date, r.units, r.time_zone, r.local_start, r.starts_at';
const LISTED = `${RACE_COLUMNS}, r.course_markers`;

const GET_RACE = `SELECT ${LISTED} FROM races r WHERE r.id = ?`;
const LIST_RACES = `SELECT ${LISTED} FROM races r ORDER BY r.starts_at, r.id`;
const ADD_RACE =
  'INSERT INTO races (id, name, race_date, units, time_zone, local_start, starts_at, course_line, course_app, course_etag, course_meters, course_markers, image_key, image_type) ' +
  'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING';
const FIELDS = 'name = ?, race_date = ?, local_start = ?, time_zone = ?, units = ?, starts_at = ?';
const WAS = 'WHERE id = ? AND name = ? AND race_date = ? AND local_start = ? AND time_zone = ? AND units = ? AND starts_at = ?';
const EDIT = `UPDATE races SET ${FIELDS} ${WAS}`;
const EDIT_WITH_MARKERS = `UPDATE races SET ${FIELDS}, course_app = ?, course_etag = ?, course_markers = ? ${WAS} AND course_etag = ?`;
const KM_NOTES = "SELECT COUNT(*) AS n FROM notes n JOIN links l ON l.id = n.link_id WHERE l.race_id = ? AND n.marker LIKE 'km-%'";
// In the statement that deletes, so a link or entry made a moment before is never left without its race.
const REMOVE = `DELETE FROM races WHERE id = ? AND NOT EXISTS (SELECT 1 FROM entries WHERE race_id = ?) AND NOT EXISTS (SELECT 1 FROM links WHERE race_id = ?) RETURNING ${RACE_COLUMNS.replaceAll('r.', '')}`;
const HOLDINGS =
  'SELECT (SELECT COUNT(*) FROM entries WHERE race_id = ?) AS entries, (SELECT COUNT(*) FROM links WHERE race_id = ?) AS links, ' +
  '(SELECT COUNT(*) FROM links WHERE race_id = ? AND revoked_at IS NOT NULL) AS revoked';
const RECORD_CHANGE = 'INSERT INTO race_changes (id, race_id, changed_at, changed_by, action, before_json, after_json) VALUES (?, ?, ?, ?, ?, ?, ?)';
const HISTORY = 'SELECT * FROM race_changes';
const SET_COURSE = 'UPDATE races SET course_line = ?, course_app = ?, course_etag = ?, course_meters = ?, course_markers = ? WHERE id = ?';
const COURSE_ETAG = 'SELECT course_etag FROM races WHERE id = ?';
const COURSE = `SELECT ${RACE_COLUMNS}, r.course_line, r.course_etag, r.course_markers FROM races r WHERE r.id = ? AND r.course_etag IS NOT NULL`;
const APP_COURSE = 'SELECT course_app, course_etag FROM races WHERE id = ? AND course_etag IS NOT NULL';
// starts_at is ISO 8601 in UTC, all written by toISOString: its text order is time order, and races_by_start serves it.
const NOT_OVER = 'SELECT id, name, race_date, image_key, image_type FROM races WHERE starts_at > ? ORDER BY starts_at, id LIMIT ?';
const IMAGE = 'SELECT image_key, image_type FROM races WHERE id = ? AND image_key IS NOT NULL';
const IMAGE_OF = 'SELECT image_key, image_type FROM races WHERE id = ?';
const SET_IMAGE = 'UPDATE races SET image_key = ?, image_type = ? WHERE id = ?';
const LIVE_MS = LIVE_HOURS * 3600_000;

const imageOf = (row: Row): RaceImage | null =>
  row.image_key === null || row.image_key === undefined ? null : { key: String(row.image_key), type: String(row.image_type) };

/** A full track is up to a few MB of JSON: a handful parsed is plenty for the races of one weekend. */
const CACHED_COURSES = 8;

const courseColumns = (course: StoredCourse | undefined) =>
  course
    ? [JSON.stringify(course.line), course.app.json, course.app.etag, course.lengthMeters, JSON.stringify(course.markers)]
    : [null, null, null, null, null];

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
      const row = [
        race.id,
        race.name,
        race.date,
        race.units.join(','),
        race.timezone,
        race.start,
        startsAt,
        ...courseColumns(race.course),
        race.image?.key ?? null,
        race.image?.type ?? null,
      ];
      return (await sql.run(ADD_RACE, row)) > 0;
    },
    edit(before, after, author, deadlines = new Map()) {
      return sql.transaction(
        async (tx): Promise<EditOutcome> => {
          if (before.units.includes('km') && !after.units.includes('km')) {
            const [pinned] = await tx.all(KM_NOTES, [before.id]);
            if (Number(pinned?.n ?? 0) > 0) return { outcome: 'km_notes', notes: Number(pinned!.n) };
          }
          const startsAt = raceStartsAt(after.date, after.start, after.timezone);
          const set = [after.name, after.date, after.start, after.timezone, after.units.join(','), startsAt];
          const was = [before.id, before.name, before.date, before.start, before.timezone, before.units.join(','), before.startsAt];
          const { course } = after;
          const changed = course
            ? await tx.run(EDIT_WITH_MARKERS, [
                ...set,
                course.placed.app.json,
                course.placed.app.etag,
                JSON.stringify(course.placed.markers),
                ...was,
                course.fromEtag,
              ])
            : await tx.run(EDIT, [...set, ...was]);
          if (changed === 0) return { outcome: 'changed' };
          const notesRescheduled = startsAt === before.startsAt ? 0 : await setRaceDeadlines(tx, before.id, deadlines);
          const [row] = await tx.all(GET_RACE, [before.id]);
          const race = toCataloguedRace(row!);
          await tx.run(RECORD_CHANGE, [
            randomUUID(),
            race.id,
            author.at,
            author.by,
            'edited',
            JSON.stringify(raceRowOf(before)),
            JSON.stringify(raceRowOf(race)),
          ]);
          return { outcome: 'edited', race, notesRescheduled };
        },
        { holdsOffWritersOf: ['notes'] },
      );
    },
    remove(id, author) {
      return sql.transaction(async (tx): Promise<RemoveOutcome> => {
        const [row] = await tx.all(REMOVE, [id, id, id]);
        if (!row) {
          if (!(await tx.all(GET_RACE, [id]))[0]) return { outcome: 'unknown' };
          return { outcome: 'held', holdings: await holdingsOf(tx, id) };
        }
        const race = toRace(row);
        await tx.run(RECORD_CHANGE, [randomUUID(), id, author.at, author.by, 'removed', JSON.stringify(race), null]);
        return { outcome: 'removed', race };
      });
    },
    holdings: (id) => holdingsOf(sql, id),
    async history(id) {
      const rows =
        id === undefined ? await sql.all(`${HISTORY} ORDER BY changed_at, id`) : await sql.all(`${HISTORY} WHERE race_id = ? ORDER BY changed_at, id`, [id]);
      return rows.map(toRaceChange);
    },
    async setCourse(id, course) {
      return (await sql.run(SET_COURSE, [...courseColumns(course), id])) > 0;
    },
    async course(id, known) {
      const etag = known ?? (await sql.all(COURSE_ETAG, [id]))[0]?.course_etag;
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
    setImage(id, image, author) {
      return sql.transaction(async (tx) => {
        const [row] = await tx.all(IMAGE_OF, [id]);
        if (!row) return undefined;
        const before = imageOf(row);
        await tx.run(SET_IMAGE, [image?.key ?? null, image?.type ?? null, id]);
        await tx.run(RECORD_CHANGE, [randomUUID(), id, author.at, author.by, 'edited', JSON.stringify({ id, image: before }), JSON.stringify({ id, image })]);
        return { before };
      });
    },
    async image(id) {
      const [row] = await sql.all(IMAGE, [id]);
      return (row && imageOf(row)) ?? undefined;
    },
  };
}

async function holdingsOf(sql: SqlDriver, id: string): Promise<RaceHoldings> {
  const [row] = await sql.all(HOLDINGS, [id, id, id]);
  return { entries: Number(row?.entries ?? 0), links: Number(row?.links ?? 0), revokedLinks: Number(row?.revoked ?? 0) };
}

function courseOf(race: Race, line: unknown, etag: string): RaceCourse {
  return {
    line: JSON.parse(String(line)) as RaceCourse['line'],
    etag,
    markers: race.markers.filter((m): m is RaceCourse['markers'][number] => m.lat !== undefined && m.lon !== undefined),
  };
}
