/**
 * Owns the heartbeat of a lease on a leased queue's row (server/db/leased-queue.ts): while the work
 * runs, the claim is renewed every heartbeatMs for another leaseMs, so the lease can be short (a dead
 * server's row is taken over soon after it stops beating) yet long work keeps it. A beat that finds
 * the claim gone (another server took the row over) aborts the signal: the caller stops and writes nothing.
 */
import type { FastifyBaseLogger } from 'fastify';

export class LeaseLostError extends Error {
  /** `noteId`: the leased row's key; `what`: what was leased, in the message's words. */
  constructor(
    readonly noteId: string,
    what = 'conversion',
  ) {
    super(`The ${what} lease on note ${noteId} was lost: another server has it now.`);
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

/** What a held lease renews and how its holder hears of it. */
export interface LeaseHolder {
  /** The leased row's key (a note's id), for the log and the LeaseLostError. */
  id: string;
  /** What is leased, in the log's words (`conversion`, `upload`). */
  what: string;
  /** Extends the claim to now + leaseMs; false when it is no longer ours. */
  renew(now: number, leaseMs: number): Promise<boolean>;
  log: FastifyBaseLogger;
  /** Told of each renewal (the loop's liveness for /readyz). */
  onBeat?: () => void;
}

export function holdLease(holder: LeaseHolder, timing: LeaseTiming): HeldLease {
  const controller = new AbortController();
  // The claim was made with this process's clock just now; renewals move it on.
  let heldUntil = Date.now() + timing.leaseMs;
  let released = false;
  const lose = () => {
    if (!controller.signal.aborted) controller.abort(new LeaseLostError(holder.id, holder.what));
  };

  async function beat(): Promise<void> {
    const now = Date.now();
    try {
      if (!(await holder.renew(now, timing.leaseMs))) return lose();
      heldUntil = now + timing.leaseMs;
      holder.onBeat?.();
    } catch (err) {
      // The database did not answer: keep working while the lease we have lasts, then stop,
      // since another server may take the row once it runs out.
      holder.log.warn({ err, noteId: holder.id }, `could not renew a ${holder.what} lease`);
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
