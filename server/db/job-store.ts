/**
 * Owns the conversion queue (the `jobs` table, leased so several servers never convert one note
 * at once, claimed by deadline or by arrival: CONVERT_ORDER) and each note's conversion outcome (converted file, its digest and size, and duration,
 * or the reason it failed). Each claim gets a random owner id, so a server's claim stops matching
 * the moment another server takes the job over (or it is handed back).
 */
import { LIVE_HOURS } from '../../contract/raceClock.js';
import type { ConvertOrder } from '../config/index.js';
import type { SqlDriver, Statement } from './driver.js';
import { leasedQueue } from './leased-queue.js';
import { noteChanged } from './note-change-sql.js';
import type { ClaimedJob, JobDeadline, Row, WaitingJob } from './types.js';

/** The converted file as stored: what the audio routes need for ETags and ranges. */
export interface ConvertedAudio {
  key: string;
  /** Lower-case hex SHA-256 and size of the file; null for notes converted before they were kept. */
  sha256: string | null;
  bytes: number | null;
}

export interface JobStore {
  /**
   * Takes the next job (CONVERT_ORDER: by deadline, or the oldest) whose lease has run out, leasing it
   * until now + leaseMs. Leases are real time; which races are live and which deadlines are past are
   * judged at `raceNow`, the server's clock (server/clock.ts: the real one too, except in the demo).
   */
  claim(now: number, leaseMs: number, raceNow?: number): Promise<ClaimedJob | undefined>;
  /** The jobs of the entry's notes still waiting for conversion (through any of its links). */
  waitingOfEntry(entryId: string): Promise<WaitingJob[]>;
  /** The jobs of the race's notes still waiting for conversion (through any of its links), each link's together. */
  waitingOfRace(raceId: string): Promise<WaitingJob[]>;
  /**
   * Sets each job's deadline (epoch ms), as worked out by server/races/note-deadlines.ts: the runner
   * moved, or their expected finish changed. A job converted or removed meanwhile is simply not there.
   */
  setDue(changes: ReadonlyArray<{ noteId: string; dueAt: number }>): Promise<void>;
  /** A waiting job's deadline (epoch ms), undefined when the note has none waiting. */
  deadline(noteId: string): Promise<number | undefined>;
  /** What an operator alerts on: the waiting notes of live races and of the others, and how long past its deadline the most overdue live one is (s, 0 if none). */
  deadlineStats(now: number): Promise<QueueDeadlines>;
  /** Extends a claim to now + leaseMs; false when it is no longer ours (taken over, finished or deleted). */
  renew(job: ClaimedJob, now: number, leaseMs: number): Promise<boolean>;
  /**
   * Hands a claim back at once, the attempt uncounted (a server stopping mid-conversion, a storage
   * fault), so another server takes it without waiting out the lease; nothing when it is no longer ours.
   */
  handBack(job: ClaimedJob): Promise<void>;
  /**
   * False when the note was deleted meanwhile (its converted file is then the caller's to remove)
   * or, given `lease`, when that claim is no longer ours (nothing is written).
   */
  markConverted(noteId: string, convertedKey: string, durationMs: number, file?: { sha256: string; bytes: number }, lease?: ClaimedJob): Promise<boolean>;
  markFailed(noteId: string, reason: string): Promise<void>;
  /** A converted note's file, or undefined while it is not converted. */
  convertedAudio(noteId: string): Promise<ConvertedAudio | undefined>;
}

export interface QueueDeadlines {
  /** Waiting notes (converting ones too) of races live now. */
  live: number;
  /** Of races not yet live, past, or queued before deadlines were kept. */
  later: number;
  /** How far past its deadline the most overdue waiting note of a live race is, seconds; 0 if none is. */
  overdueSeconds: number;
}

/**
 * The deadlines a store was given no longer fit what its transaction reads: a race's start moved
 * since a note's deadline was worked out, or a note was queued since a race's new deadlines were.
 * Thrown inside the transaction, so nothing is written; server/races/note-deadlines.ts works the
 * deadlines out again and retries.
 */
export class DeadlinesOutdated extends Error {
  /** The notes whose deadline is missing or was worked out from another start. */
  readonly noteIds: readonly string[];
  constructor(noteIds: readonly string[]) {
    super(`the conversion deadlines of ${noteIds.length} note(s) were worked out from a race start that has moved`);
    this.name = 'DeadlinesOutdated';
    this.noteIds = noteIds;
  }
}

/** A new note's job; the note store adds it in the note's own transaction. */
export const enqueueJob = (noteId: string, createdAt: string, deadline: JobDeadline): Statement => [
  'INSERT INTO jobs (note_id, attempts, locked_until, created_at, due_at, race_starts_at) VALUES (?, 0, 0, ?, ?, ?)',
  [noteId, createdAt, Math.round(deadline.dueAt), Math.round(deadline.raceStartsAt)],
];

/** The waiting jobs of a race's notes, through any of its links, each link's together. */
const RACE_JOBS =
  'SELECT j.note_id, j.due_at, j.race_starts_at, n.marker, n.received_at, n.link_id FROM jobs j JOIN notes n ON n.id = j.note_id ' +
  'JOIN links l ON l.id = n.link_id WHERE l.race_id = ? ORDER BY n.link_id';
/** The waiting jobs of an entry's notes, through any of its links. */
const ENTRY_JOBS =
  'SELECT j.note_id, j.due_at, j.race_starts_at, n.marker, n.received_at, n.link_id FROM entries e JOIN links l ON l.runner_id = e.runner_id ' +
  'JOIN notes n ON n.link_id = l.id JOIN jobs j ON j.note_id = n.id WHERE e.id = ?';
const SET_DUE = 'UPDATE jobs SET due_at = ? WHERE note_id = ?';
/** Jobs whose deadline is set in one statement: a race morning's thousands in a few round trips. */
const DEADLINES_PER_STATEMENT = 500;
/** `rows` jobs' new deadline and race start, as (note id, due, start) rows (VALUES names them column1..3 in both databases). */
const setDeadlines = (rows: number) =>
  `UPDATE jobs SET due_at = v.column2, race_starts_at = v.column3 FROM (VALUES ${Array(rows).fill('(?, CAST(? AS BIGINT), CAST(? AS BIGINT))').join(', ')}) AS v ` +
  'WHERE jobs.note_id = v.column1';

const toWaitingJob = (row: Row): WaitingJob => ({
  noteId: String(row.note_id),
  linkId: String(row.link_id),
  marker: String(row.marker),
  receivedAt: Date.parse(String(row.received_at)),
  dueAt: Number(row.due_at),
  raceStartsAt: Number(row.race_starts_at),
});

/**
 * Sets the deadline and race start of every waiting job of the race's notes to those `planned` for
 * it (by note id, worked out by server/races/note-deadlines.ts from the start moved in `tx`, this
 * transaction, which holds off new notes). A waiting job with none planned (a note queued after the
 * plan was made) throws DeadlinesOutdated, rolling the transaction back. Resolves to how many jobs changed.
 */
export async function setRaceDeadlines(tx: SqlDriver, raceId: string, planned: ReadonlyMap<string, JobDeadline>): Promise<number> {
  const changes: unknown[][] = [];
  const unplanned: string[] = [];
  for (const job of (await tx.all(RACE_JOBS, [raceId])).map(toWaitingJob)) {
    const deadline = planned.get(job.noteId);
    if (!deadline) {
      unplanned.push(job.noteId);
      continue;
    }
    const due = Math.round(deadline.dueAt);
    const startsAt = Math.round(deadline.raceStartsAt);
    if (due !== job.dueAt || startsAt !== job.raceStartsAt) changes.push([job.noteId, due, startsAt]);
  }
  if (unplanned.length > 0) throw new DeadlinesOutdated(unplanned);
  let changed = 0;
  for (let i = 0; i < changes.length; i += DEADLINES_PER_STATEMENT) {
    const chunk = changes.slice(i, i + DEADLINES_PER_STATEMENT);
    changed += await tx.run(setDeadlines(chunk.length), chunk.flat());
  }
  return changed;
}

const LIVE_MS = LIVE_HOURS * 3600_000;
/**
 * A note more than this past its deadline (its marker passed, or about to be) goes behind every note
 * of its class that can still be on time: it is late anyway, and letting it go first would make those
 * late too, and so on through the whole queue under overload. For this long it keeps its place at the
 * front, so a note for a marker just passed (the app plays it at once) is still heard soon.
 */
export const LATE_GRACE_MS = 5 * 60_000;

/**
 * The claim by deadline, in one ORDER BY: notes of races live now (0), then of races to come (1),
 * then of past races and jobs queued before deadlines were kept (2); within each, notes that can
 * still be on time before those more than LATE_GRACE_MS late; then earliest deadline, then oldest.
 * Parameters, on the server's clock: now (upcoming above), now - LIVE_MS (live above), now - LATE_GRACE_MS.
 */
const BY_DEADLINE =
  'ORDER BY CASE WHEN race_starts_at > ? THEN 1 WHEN race_starts_at > ? THEN 0 ELSE 2 END, ' +
  'CASE WHEN due_at < ? THEN 1 ELSE 0 END, due_at, created_at, note_id';
const BY_ARRIVAL = 'ORDER BY created_at, note_id';

/** The conversion queue's lease (./leased-queue.ts): one server converts a note at a time. */
const QUEUE = leasedQueue({ table: 'jobs', id: 'note_id', until: 'locked_until', owner: 'lease_owner', attempts: 'attempts' });
const CLAIM_JOB = { returning: 'note_id, attempts' };
const LIVE_JOB = 'race_starts_at <= ? AND race_starts_at > ?';
const DEADLINE_STATS = `SELECT COUNT(*) AS n, SUM(CASE WHEN ${LIVE_JOB} THEN 1 ELSE 0 END) AS live, MIN(CASE WHEN ${LIVE_JOB} THEN due_at END) AS due FROM jobs`;
const MARK_CONVERTED =
  "UPDATE notes SET status = 'converted', converted_key = ?, duration_ms = ?, converted_sha256 = ?, converted_bytes = ?, failure_reason = NULL WHERE id = ?";
const MARK_FAILED = "UPDATE notes SET status = 'failed', failure_reason = ? WHERE id = ?";
const DELETE_JOB = 'DELETE FROM jobs WHERE note_id = ?';
const CONVERTED_AUDIO =
  "SELECT converted_key, converted_sha256, converted_bytes FROM notes WHERE id = ? AND status = 'converted' AND converted_key IS NOT NULL";

export function createJobStore(sql: SqlDriver, order: ConvertOrder = 'deadline'): JobStore {
  return {
    async claim(now, leaseMs, raceNow = now) {
      const claim =
        order === 'deadline'
          ? QUEUE.claim({ ...CLAIM_JOB, order: BY_DEADLINE }, { now, leaseMs }, [], [raceNow, raceNow - LIVE_MS, raceNow - LATE_GRACE_MS])
          : QUEUE.claim({ ...CLAIM_JOB, order: BY_ARRIVAL }, { now, leaseMs });
      const [row] = await sql.all(claim.sql, claim.params);
      return row && { noteId: String(row.note_id), attempts: Number(row.attempts), owner: claim.owner };
    },
    async waitingOfEntry(entryId) {
      return (await sql.all(ENTRY_JOBS, [entryId])).map(toWaitingJob);
    },
    async waitingOfRace(raceId) {
      return (await sql.all(RACE_JOBS, [raceId])).map(toWaitingJob);
    },
    async setDue(changes) {
      // Each job on its own: one converted or removed meanwhile is simply not there to update.
      if (changes.length > 0) await sql.batch(changes.map((c): Statement => [SET_DUE, [Math.round(c.dueAt), c.noteId]]));
    },
    async deadline(noteId) {
      const [row] = await sql.all('SELECT due_at FROM jobs WHERE note_id = ?', [noteId]);
      return row && Number(row.due_at);
    },
    async deadlineStats(now) {
      const [row] = await sql.all(DEADLINE_STATS, [now, now - LIVE_MS, now, now - LIVE_MS]);
      const live = Number(row?.live ?? 0);
      const due = row?.due === null || row?.due === undefined ? undefined : Number(row.due);
      return { live, later: Number(row?.n ?? 0) - live, overdueSeconds: due === undefined ? 0 : Math.max(0, (now - due) / 1000) };
    },
    async renew(job, now, leaseMs) {
      return (await sql.run(QUEUE.renew, [now + leaseMs, job.noteId, job.owner])) > 0;
    },
    async handBack(job) {
      // The attempt did not fail, so it does not count against the note's tries.
      await sql.run(QUEUE.handBack('attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END'), [job.noteId, job.owner]);
    },
    async markConverted(noteId, convertedKey, durationMs, file, lease) {
      const params = [convertedKey, durationMs, file?.sha256 ?? null, file?.bytes ?? null, noteId];
      // With `lease`, both statements match only while the claim is ours: a lost claim writes nothing.
      const mark: Statement[] = lease
        ? [
            [`${MARK_CONVERTED} AND ${QUEUE.held} RETURNING id`, [...params, lease.noteId, lease.owner]],
            [QUEUE.finish, [noteId, lease.owner]],
          ]
        : [
            [`${MARK_CONVERTED} RETURNING id`, params],
            [DELETE_JOB, [noteId]],
          ];
      // The runner's app hears of it (server/sync): a note became playable. (A lost lease wrote
      // nothing; the change it records then only wakes held requests to read the same list again.)
      const [updated] = await sql.batch([...mark, ...noteChanged(noteId)]);
      return updated!.length > 0;
    },
    async markFailed(noteId, reason) {
      await sql.batch([[MARK_FAILED, [reason, noteId]], [DELETE_JOB, [noteId]], ...noteChanged(noteId)]);
    },
    async convertedAudio(noteId) {
      const [row] = await sql.all(CONVERTED_AUDIO, [noteId]);
      if (!row) return undefined;
      const bytes = row.converted_bytes === null || row.converted_bytes === undefined ? null : Number(row.converted_bytes);
      return {
        key: String(row.converted_key),
        sha256: row.converted_sha256 === null || row.converted_sha256 === undefined ? null : String(row.converted_sha256),
        bytes,
      };
    },
  };
}
