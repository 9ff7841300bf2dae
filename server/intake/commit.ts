/**
 * Committing a note, whichever way its bytes came: the stored bytes checked against the digest the
 * sender declared, then the row and its conversion job inserted exactly once, in the transaction
 * that checks and counts a whole note's limits (./quota.ts). Two requests racing with one
 * note end as one note: the loser drops its copy and answers as a retry would.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { NoteReceipt } from '../../contract/api.js';
import type { NewNote, NoteRow, Repository } from '../db/repository.js';
import { ApiProblem } from '../http/problem.js';
import { refusal } from '../http/refusals.js';
import type { UploadQuota } from './quota.js';
import { queueNote } from '../races/note-deadlines.js';
import type { CheckedNote } from './checks.js';

export interface CommitDeps {
  repo: Pick<Repository, 'notes' | 'progress'>;
  /** Stores the note, checking and counting a whole note's limits in the same transaction. */
  quota: Pick<UploadQuota, 'take'>;
  log: FastifyBaseLogger;
  /** Called after a new note is committed, to wake the conversion worker. */
  onAccepted: () => void;
  /**
   * The server's clock (server/clock.ts), which stamps when the note arrived: its deadline is worked
   * out from that beside the runner's passages, which are on the same clock. Default: the real one.
   * Not `now`: the resumable uploads' service takes these deps too, and its `now` (leases, expiry)
   * stays on the real clock whatever races run on.
   */
  raceNow?: () => number;
}

export const receiptOf = (n: NewNote): NoteReceipt => ({
  id: n.id,
  marker: n.marker,
  from: n.from,
  contentType: n.contentType,
  bytes: n.bytes,
  sha256: n.sha256,
  receivedAt: n.receivedAt,
});

/** The same id with the same bytes through the same link is a retry: answer as the first time. Anything else is a conflict. */
export function answerForExisting(existing: NoteRow, linkId: string, sha256: string): NoteReceipt {
  if (existing.linkId !== linkId || existing.sha256 !== sha256) throw refusal.note_conflict();
  return receiptOf(existing);
}

/** A note's bytes, whole in the blob store under `key`, waiting to become a note. */
export interface ArrivedNote {
  checked: Omit<CheckedNote, 'existing'>;
  stored: { key: string; bytes: number; sha256: string };
  /** Removes what was stored for this note: its bytes were refused, or another request stored the note first. */
  discard(): Promise<void>;
  /** Tidies what the bytes came in once the note is committed (a resumable upload's rows and other parts). */
  committed?(): Promise<void>;
  /** Headers the refusal carries (a resumable upload's Upload-Complete). */
  refusalHeaders?: Record<string, string>;
  /** What the log line adds about how the note came (its container, its parts). */
  logFields?: Record<string, unknown>;
  /** A whole note is counted as it is stored: its sender's address, and the runner its refusal names. Absent for a resumable upload, counted at its creation. */
  limits?: { address: string; runnerName: string };
}

/** Resolves to the note's receipt, or the first one's when another request stored it first. */
export async function commitNote(deps: CommitDeps, arrived: ArrivedNote): Promise<NoteReceipt> {
  const { checked, stored } = arrived;
  if (stored.sha256 !== checked.sha256) {
    await arrived.discard();
    throw refusal.digest_mismatch(arrived.refusalHeaders);
  }
  const note: NewNote = {
    id: checked.noteId,
    linkId: checked.linkId,
    marker: checked.marker,
    from: checked.from,
    contentType: checked.contentType,
    bytes: stored.bytes,
    sha256: stored.sha256,
    originalKey: stored.key,
    receivedAt: new Date((deps.raceNow ?? Date.now)()).toISOString(),
    deviceId: checked.deviceId,
  };
  let inserted: boolean;
  try {
    inserted = await queueNote(deps.repo, note, (queued) => deps.quota.take(queued, arrived.limits?.runnerName ?? '', arrived.limits?.address));
  } catch (err) {
    // Refused by a limit: the bytes go. Any other failure keeps an upload's parts for its retry.
    if (err instanceof ApiProblem) await arrived.discard();
    throw err;
  }
  if (!inserted) {
    await arrived.discard();
    const winner = await deps.repo.notes.find(note.id);
    // Neither inserted nor there: the runner removed a note of this id.
    if (!winner) throw refusal.note_removed();
    return answerForExisting(winner, note.linkId, note.sha256);
  }
  await arrived.committed?.();
  deps.log.info({ noteId: note.id, bytes: note.bytes, ...arrived.logFields }, 'note received');
  deps.onAccepted();
  return receiptOf(note);
}
