/**
 * Owns the heartbeat of one conversion's lease: while ffmpeg runs, the claim is renewed every
 * heartbeatMs for another leaseMs, so the lease can be short (a dead server's job is taken over
 * soon after it stops beating) yet a long conversion keeps it. A beat that finds the claim gone
 * (another server took the job over) aborts the signal: the caller stops ffmpeg and writes nothing.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ClaimedJob, Repository } from '../db/repository.js';

export class LeaseLostError extends Error {
  constructor(readonly noteId: string) {
    super(`The conversion lease on note ${noteId} was lost: another server has the job now.`);
    this.name = 'LeaseLostError';
  }
}

export interface HeldLease {
  /** Aborted, with a LeaseLostError, once the claim is no longer ours. */
  signal: AbortSignal;
  /** Renews now and throws LeaseLostError unless the claim is still ours: call before storing a result. */
  confirm(): Promise<void>;
  /** Stops beating (the job is finished, failed or lost). */
  release(): void;
}

export interface LeaseTiming {
  leaseMs: number;
  heartbeatMs: number;
}

/** `onBeat` is told of each renewal (the worker's liveness for /readyz). */
export function holdLease(repo: Repository, job: ClaimedJob, timing: LeaseTiming, log: FastifyBaseLogger, onBeat: () => void): HeldLease {
  const controller = new AbortController();
  // The claim was made with this process's clock just now; renewals move it on.
  let heldUntil = Date.now() + timing.leaseMs;
  let released = false;
  const lose = () => {
    if (!controller.signal.aborted) controller.abort(new LeaseLostError(job.noteId));
  };

  async function beat(): Promise<void> {
    const now = Date.now();
    try {
      if (!(await repo.jobs.renew(job, now, timing.leaseMs))) return lose();
      heldUntil = now + timing.leaseMs;
      onBeat();
    } catch (err) {
      // The database did not answer: keep converting while the lease we have lasts, then stop,
      // since another server may take the job once it runs out.
      log.warn({ err, noteId: job.noteId }, 'could not renew a conversion lease');
      if (Date.now() >= heldUntil) lose();
    }
  }

  let timer: NodeJS.Timeout | undefined;
  // One beat at a time: the next is planned when the last has answered, never piled up on a slow database.
  const plan = () => {
    timer = setTimeout(
      () =>
        void beat().then(() => {
          if (!released && !controller.signal.aborted) plan();
        }),
      timing.heartbeatMs,
    );
  };
  plan();

  return {
    signal: controller.signal,
    async confirm() {
      await beat();
      controller.signal.throwIfAborted();
    },
    release() {
      released = true;
      clearTimeout(timer);
    },
  };
}
