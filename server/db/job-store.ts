/**
 * Owns the conversion queue (the `jobs` table, leased so several servers never convert one note
 * at once) and each note's conversion outcome (converted file, its digest and size, and duration,
 * or the reason it failed). Each claim gets a random owner id, so a server's claim stops matching
 * the moment another server takes the job over (or it is handed back).
 */
import { randomUUID } from 'node:crypto';
import type { SqlDriver, Statement } from './driver.js';
import { noteChanged } from './note-change-sql.js';
import type { ClaimedJob } from './types.js';

/** The converted file as stored: what the audio routes need for ETags and ranges. */
export interface ConvertedAudio {
  key: string;
  /** Lower-case hex SHA-256 and size of the file; null for notes converted before they were kept. */
  sha256: string | null;
  bytes: number | null;
}

export interface JobStore {
  /** Takes the oldest job whose lease has run out, leasing it until now + leaseMs. */
  claim(now: number, leaseMs: number): Promise<ClaimedJob | undefined>;
  /** Extends a claim to now + leaseMs; false when it is no longer ours (taken over, finished or deleted). */
  renew(job: ClaimedJob, now: number, leaseMs: number): Promise<boolean>;
  /**
   * False when the note was deleted meanwhile (its converted file is then the caller's to remove)
   * or, given `lease`, when that claim is no longer ours (nothing is written).
   */
  markConverted(noteId: string, convertedKey: string, durationMs: number, file?: { sha256: string; bytes: number }, lease?: ClaimedJob): Promise<boolean>;
  markFailed(noteId: string, reason: string): Promise<void>;
  /** A converted note's file, or undefined while it is not converted. */
  convertedAudio(noteId: string): Promise<ConvertedAudio | undefined>;
}

/** A new note's job; the note store adds it in the note's own transaction. */
export const enqueueJob = (noteId: string, createdAt: string): Statement => [
  'INSERT INTO jobs (note_id, attempts, locked_until, created_at) VALUES (?, 0, 0, ?)',
  [noteId, createdAt],
];

// The inner SELECT picks a candidate; the outer WHERE re-checks the lease, so when two
// servers race for one job only one UPDATE matches (PostgreSQL re-evaluates it on the locked row).
const CLAIM_JOB =
  'UPDATE jobs SET locked_until = ?, attempts = attempts + 1, lease_owner = ? ' +
  'WHERE note_id = (SELECT note_id FROM jobs WHERE locked_until < ? ORDER BY created_at, note_id LIMIT 1) ' +
  'AND locked_until < ? RETURNING note_id, attempts';
// A lease that ran out but was not taken by anyone is still ours; one handed back (locked_until 0) is not.
const RENEW_JOB = 'UPDATE jobs SET locked_until = ? WHERE note_id = ? AND lease_owner = ? AND locked_until > 0';
const MARK_CONVERTED =
  "UPDATE notes SET status = 'converted', converted_key = ?, duration_ms = ?, converted_sha256 = ?, converted_bytes = ?, failure_reason = NULL WHERE id = ?";
const HOLDING = ' AND EXISTS (SELECT 1 FROM jobs WHERE note_id = ? AND lease_owner = ? AND locked_until > 0)';
const MARK_FAILED = "UPDATE notes SET status = 'failed', failure_reason = ? WHERE id = ?";
const DELETE_JOB = 'DELETE FROM jobs WHERE note_id = ?';
const CONVERTED_AUDIO = "SELECT converted_key, converted_sha256, converted_bytes FROM notes WHERE id = ? AND status = 'converted' AND converted_key IS NOT NULL";

export function createJobStore(sql: SqlDriver): JobStore {
  return {
    async claim(now, leaseMs) {
      const owner = randomUUID();
      const [row] = await sql.all(CLAIM_JOB, [now + leaseMs, owner, now, now]);
      return row && { noteId: String(row.note_id), attempts: Number(row.attempts), owner };
    },
    async renew(job, now, leaseMs) {
      return (await sql.run(RENEW_JOB, [now + leaseMs, job.noteId, job.owner])) > 0;
    },
    async markConverted(noteId, convertedKey, durationMs, file, lease) {
      const params = [convertedKey, durationMs, file?.sha256 ?? null, file?.bytes ?? null, noteId];
      // With `lease`, both statements match only while the claim is ours: a lost claim writes nothing.
      const mark: Statement[] = lease ? [
        [`${MARK_CONVERTED}${HOLDING} RETURNING id`, [...params, lease.noteId, lease.owner]],
        [`${DELETE_JOB} AND lease_owner = ?`, [noteId, lease.owner]],
      ] : [
        [`${MARK_CONVERTED} RETURNING id`, params],
        [DELETE_JOB, [noteId]],
      ];
      // The runner's app hears of it (server/sync): a note became playable. (A lost lease wrote
      // nothing; the change it records then only wakes held requests to read the same list again.)
      const [updated] = await sql.batch([...mark, ...noteChanged(noteId)]);
      return updated!.length > 0;
    },
    async markFailed(noteId, reason) {
      await sql.batch([
        [MARK_FAILED, [reason, noteId]],
        [DELETE_JOB, [noteId]],
        ...noteChanged(noteId),
      ]);
    },
    async convertedAudio(noteId) {
      const [row] = await sql.all(CONVERTED_AUDIO, [noteId]);
      if (!row) return undefined;
      const bytes = row.converted_bytes === null || row.converted_bytes === undefined ? null : Number(row.converted_bytes);
      return { key: String(row.converted_key), sha256: row.converted_sha256 === null || row.converted_sha256 === undefined ? null : String(row.converted_sha256), bytes };
    },
  };
}
