/**
 * Owns the conversion queue (the `jobs` table, leased so several servers never convert one note
 * at once) and each note's conversion outcome (converted file and duration, or the reason it failed).
 */
import type { SqlDriver, Statement } from './driver.js';
import { noteChanged } from './note-change-sql.js';
import type { ClaimedJob } from './types.js';

export interface JobStore {
  /** Takes the oldest job whose lease has run out, leasing it until now + leaseMs. */
  claim(now: number, leaseMs: number): Promise<ClaimedJob | undefined>;
  /** False when the note was deleted meanwhile: its converted file is then the caller's to remove. */
  markConverted(noteId: string, convertedKey: string, durationMs: number): Promise<boolean>;
  markFailed(noteId: string, reason: string): Promise<void>;
}

/** A new note's job; the note store adds it in the note's own transaction. */
export const enqueueJob = (noteId: string, createdAt: string): Statement => [
  'INSERT INTO jobs (note_id, attempts, locked_until, created_at) VALUES (?, 0, 0, ?)',
  [noteId, createdAt],
];

// The inner SELECT picks a candidate; the outer WHERE re-checks the lease, so when two
// servers race for one job only one UPDATE matches (PostgreSQL re-evaluates it on the locked row).
const CLAIM_JOB =
  'UPDATE jobs SET locked_until = ?, attempts = attempts + 1 ' +
  'WHERE note_id = (SELECT note_id FROM jobs WHERE locked_until < ? ORDER BY created_at, note_id LIMIT 1) ' +
  'AND locked_until < ? RETURNING note_id, attempts';
const MARK_CONVERTED =
  "UPDATE notes SET status = 'converted', converted_key = ?, duration_ms = ?, failure_reason = NULL WHERE id = ? RETURNING id";
const MARK_FAILED = "UPDATE notes SET status = 'failed', failure_reason = ? WHERE id = ?";
const DELETE_JOB = 'DELETE FROM jobs WHERE note_id = ?';

export function createJobStore(sql: SqlDriver): JobStore {
  return {
    async claim(now, leaseMs) {
      const [row] = await sql.all(CLAIM_JOB, [now + leaseMs, now, now]);
      return row && { noteId: String(row.note_id), attempts: Number(row.attempts) };
    },
    async markConverted(noteId, convertedKey, durationMs) {
      const [updated] = await sql.batch([
        [MARK_CONVERTED, [convertedKey, durationMs, noteId]],
        [DELETE_JOB, [noteId]],
        // The runner's app hears of it (server/sync): a note became playable.
        ...noteChanged(noteId),
      ]);
      return updated!.length > 0;
    },
    async markFailed(noteId, reason) {
      await sql.batch([
        [MARK_FAILED, [reason, noteId]],
        [DELETE_JOB, [noteId]],
        ...noteChanged(noteId),
      ]);
    },
  };
}
