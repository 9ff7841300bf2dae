/**
 * Owns how conversion takes a storage fault (../storage/faults.ts: a full disk, the database or
 * blob store unreachable): the attempt is not the note's doing, so it is handed back uncounted and
 * tried again later, and the slot rests a while (every job would meet the fault now). An attempt
 * that cannot be handed back (the database is gone too, or the lease may be another server's by
 * now) is remembered here, in this process, and not counted when the job comes back to it.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ClaimedJob, Repository } from '../db/repository.js';
import type { StorageFaultKind } from '../storage/faults.js';
import type { HeldLease } from '../background/lease.js';

/** How long a slot rests after a storage fault before it claims again. */
export const DEFAULT_STORAGE_FAULT_PAUSE_MS = 15_000;

export interface FaultDeferral {
  /** The job's attempts that count toward giving it up. */
  counted(job: ClaimedJob): number;
  /** The job ended (converted or failed): nothing of it to remember. */
  settled(noteId: string): void;
  /** Hands the attempt back uncounted (or remembers it); `claimedAt` is when this process claimed the job. */
  defer(job: ClaimedJob, lease: HeldLease, claimedAt: number, kind: StorageFaultKind, err: unknown): Promise<void>;
}

export function createFaultDeferral(deps: {
  repo: Pick<Repository, 'jobs'>;
  log: FastifyBaseLogger;
  leaseMs: number;
  heartbeatMs: number;
  onFault?: (kind: StorageFaultKind) => void;
}): FaultDeferral {
  const uncounted = new Map<string, number>();
  return {
    counted: (job) => job.attempts - (uncounted.get(job.noteId) ?? 0),
    settled: (noteId) => void uncounted.delete(noteId),
    async defer(job, lease, claimedAt, kind, err) {
      deps.log.warn({ err, noteId: job.noteId, kind }, 'conversion met a storage fault; it is tried again later and this attempt does not count');
      deps.onFault?.(kind);
      // Handing back is safe only while the claim is surely ours: after the lease, another server may hold it.
      const ours = !lease.signal.aborted && Date.now() < claimedAt + deps.leaseMs - deps.heartbeatMs;
      if (
        ours &&
        (await deps.repo.jobs.handBack(job).then(
          () => true,
          () => false,
        ))
      )
        return;
      if (uncounted.size >= 10_000) uncounted.clear();
      uncounted.set(job.noteId, (uncounted.get(job.noteId) ?? 0) + 1);
    },
  };
}
