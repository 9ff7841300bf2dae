/**
 * Owns a runner's shared progress: whether the entry shares it, the finish time the runner expects,
 * its last distance along the course and the markers it passed; and what the conversion deadlines of
 * its notes are worked out from (scheduleOfLink, scheduleOfEntry).
 */
import type { SqlDriver } from './driver.js';
import { RACE_COLUMNS } from './race-store.js';
import { toRace } from './rows.js';
import type { RaceRow, Row, RunnerSchedule, StoredPassage, StoredPlacement } from './types.js';

export interface EntryProgress {
  sharing: boolean;
  /** Undefined before the first accepted position. */
  placed?: StoredPlacement;
  /** The marker passed last, or null before the first. */
  lastPassage: StoredPassage | null;
}

/** What a link's holder's estimates are made from: the progress, every passage and the runner's expected finish. */
export interface SharedProgress extends EntryProgress {
  /** The finish time (seconds) the runner's app gave, or null. */
  expectedFinishSeconds: number | null;
  /** Every marker passed, in the order passed. */
  passages: StoredPassage[];
}

/** What a position batch starts from: the entry's race, its course's ETag (null: no course yet) and its progress. */
export interface BatchStart {
  race: RaceRow;
  courseEtag: string | null;
  progress: EntryProgress;
}

export interface ProgressStore {
  setSharing(entryId: string, on: boolean): Promise<void>;
  /** Sets (null: clears) the finish time the runner expects, in seconds. */
  setExpectedFinish(entryId: string, seconds: number | null): Promise<void>;
  /** The entry's progress (sharing or not: for its own runner). */
  ofEntry(entryId: string): Promise<EntryProgress>;
  /** The account's own entry as a position batch needs it, in one statement; undefined for another's or none. */
  batchStart(accountId: string, entryId: string): Promise<BatchStart | undefined>;
  /** The progress of the entry a link belongs to, only while its runner shares it; undefined otherwise. */
  sharedThroughLink(linkId: string): Promise<SharedProgress | undefined>;
  /**
   * Moves the entry from `from` (undefined: never placed) to `to` and records the passages, in one
   * transaction; false, with nothing changed, when another request moved it meanwhile.
   */
  advance(entryId: string, from: StoredPlacement | undefined, to: StoredPlacement, passages: readonly StoredPassage[]): Promise<boolean>;
  /** The schedule of the entry's runner; undefined for no such entry. */
  scheduleOfEntry(entryId: string): Promise<RunnerSchedule | undefined>;
  /** The schedule of the runner a link records for (a link made outside the app: its race's start alone); undefined for no such link. */
  scheduleOfLink(linkId: string): Promise<RunnerSchedule | undefined>;
}

/** Sharing, placement and the last passage of the entry `e`, as columns of one row. */
const PROGRESS_COLUMNS =
  'e.share_progress, p.distance_meters, p.placed_at, ' +
  '(SELECT m.marker_id FROM marker_passages m WHERE m.entry_id = e.id ORDER BY m.passed_at DESC, m.marker_id DESC LIMIT 1) AS last_marker, ' +
  '(SELECT m.passed_at FROM marker_passages m WHERE m.entry_id = e.id ORDER BY m.passed_at DESC, m.marker_id DESC LIMIT 1) AS last_passed_at';
const PROGRESS_FROM = 'FROM entries e LEFT JOIN entry_progress p ON p.entry_id = e.id';

const SQL = {
  setSharing: 'UPDATE entries SET share_progress = ? WHERE id = ?',
  setExpectedFinish: 'UPDATE entries SET expected_finish_seconds = ? WHERE id = ?',
  // Each statement is a round trip (and on PostgreSQL a transaction of its own): the progress in one.
  entryProgress: `SELECT ${PROGRESS_COLUMNS} ${PROGRESS_FROM} WHERE e.id = ?`,
  batchStart: `SELECT ${RACE_COLUMNS}, r.course_etag, ${PROGRESS_COLUMNS} ${PROGRESS_FROM} JOIN races r ON r.id = e.race_id WHERE e.account_id = ? AND e.id = ?`,
  entryOfLink: 'SELECT e.id, e.expected_finish_seconds FROM links l JOIN entries e ON e.runner_id = l.runner_id WHERE l.id = ? AND e.share_progress = 1',
  placed: 'SELECT distance_meters, placed_at FROM entry_progress WHERE entry_id = ?',
  passages: 'SELECT marker_id, passed_at FROM marker_passages WHERE entry_id = ? ORDER BY passed_at, marker_id',
  firstPlacement: 'INSERT INTO entry_progress (entry_id, distance_meters, placed_at) VALUES (?, ?, ?) ON CONFLICT (entry_id) DO NOTHING',
  // Compare-and-set on the time of the placement read: two batches at once cannot both move it.
  movePlacement: 'UPDATE entry_progress SET distance_meters = ?, placed_at = ? WHERE entry_id = ? AND placed_at = ?',
  passage: 'INSERT INTO marker_passages (entry_id, marker_id, passed_at) VALUES (?, ?, ?) ON CONFLICT (entry_id, marker_id) DO NOTHING',
  // A link made outside the app has no entry: its race's start alone, at a typical pace.
  scheduleOfLink:
    'SELECT r.starts_at, e.id AS entry_id, e.share_progress, e.expected_finish_seconds FROM links l JOIN races r ON r.id = l.race_id ' +
    'LEFT JOIN entries e ON e.runner_id = l.runner_id WHERE l.id = ?',
  scheduleOfEntry:
    'SELECT r.starts_at, e.id AS entry_id, e.share_progress, e.expected_finish_seconds FROM entries e JOIN races r ON r.id = e.race_id WHERE e.id = ?',
} as const;

const finishOf = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const present = (value: unknown) => value !== null && value !== undefined;

/** A row of PROGRESS_COLUMNS (none: no such entry, which shares nothing). */
const progressOf = (row: Row | undefined): EntryProgress => ({
  sharing: Number(row?.share_progress ?? 0) === 1,
  ...(row && present(row.placed_at) && { placed: { distanceMeters: Number(row.distance_meters), at: Number(row.placed_at) } }),
  lastPassage: row && present(row.last_marker) ? { markerId: String(row.last_marker), passedAt: Number(row.last_passed_at) } : null,
});

async function placementOf(sql: SqlDriver, entryId: string): Promise<Pick<SharedProgress, 'placed' | 'passages'>> {
  const [placed] = await sql.all(SQL.placed, [entryId]);
  const passages = (await sql.all(SQL.passages, [entryId])).map((p) => ({ markerId: String(p.marker_id), passedAt: Number(p.passed_at) }));
  return { ...(placed && { placed: { distanceMeters: Number(placed.distance_meters), at: Number(placed.placed_at) } }), passages };
}

async function scheduleOf(sql: SqlDriver, query: string, key: string): Promise<RunnerSchedule | undefined> {
  const [row] = await sql.all(query, [key]);
  if (!row) return undefined;
  const schedule: RunnerSchedule = { startsAt: Date.parse(String(row.starts_at)), expectedFinishSeconds: finishOf(row.expected_finish_seconds), passages: [] };
  // Progress the runner does not share places nothing, not even their own notes' deadlines.
  if (row.entry_id === null || row.entry_id === undefined || Number(row.share_progress) !== 1) return schedule;
  const { placed, passages } = await placementOf(sql, String(row.entry_id));
  return placed ? { ...schedule, placed, passages } : schedule;
}

export function createProgressStore(sql: SqlDriver): ProgressStore {
  async function ofEntry(entryId: string): Promise<EntryProgress> {
    const [row] = await sql.all(SQL.entryProgress, [entryId]);
    return progressOf(row);
  }

  return {
    async setSharing(entryId, on) {
      await sql.run(SQL.setSharing, [on ? 1 : 0, entryId]);
    },
    async setExpectedFinish(entryId, seconds) {
      await sql.run(SQL.setExpectedFinish, [seconds, entryId]);
    },
    ofEntry,
    async batchStart(accountId, entryId) {
      const [row] = await sql.all(SQL.batchStart, [accountId, entryId]);
      return row && { race: toRace(row), courseEtag: present(row.course_etag) ? String(row.course_etag) : null, progress: progressOf(row) };
    },
    async sharedThroughLink(linkId) {
      const [entry] = await sql.all(SQL.entryOfLink, [linkId]);
      if (!entry) return undefined;
      const { placed, passages } = await placementOf(sql, String(entry.id));
      return {
        sharing: true,
        expectedFinishSeconds: finishOf(entry.expected_finish_seconds),
        ...(placed && { placed }),
        lastPassage: passages.at(-1) ?? null,
        passages,
      };
    },
    async advance(entryId, from, to, passages) {
      // Not synced before the answer: race morning's 33 batches a second put their fsyncs in front of
      // the notes'. A placement lost with the machine's power comes back with the phone's next batch,
      // placed from the one before it, whose passages are interpolated again.
      return sql.transaction(
        async (tx) => {
          const moved = from
            ? await tx.run(SQL.movePlacement, [to.distanceMeters, to.at, entryId, from.at])
            : await tx.run(SQL.firstPlacement, [entryId, to.distanceMeters, to.at]);
          if (moved === 0) return false;
          for (const p of passages) await tx.run(SQL.passage, [entryId, p.markerId, p.passedAt]);
          return true;
        },
        { durable: false },
      );
    },
    scheduleOfEntry: (entryId) => scheduleOf(sql, SQL.scheduleOfEntry, entryId),
    scheduleOfLink: (linkId) => scheduleOf(sql, SQL.scheduleOfLink, linkId),
  };
}
