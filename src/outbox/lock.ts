/** Owns "one uploader at a time": a Web Lock, or a lease in IndexedDB where Web Locks are missing. */
import { outboxDb } from './db.js';

export const LOCK_NAME = 'milenotes-outbox';
/** Long enough for one note upload; renewed before each note so a dead holder frees it soon. */
export const LEASE_MS = 2 * 60 * 1000;

export interface LockOptions {
  /** Defaults to navigator.locks; null forces the lease (tests, old Safari). */
  locks?: Pick<LockManager, 'request'> | null;
  owner?: string;
  now?: () => number;
}

export type LockResult<T> = { ran: true; value: T } | { ran: false };

/** Runs `job` only if no other uploader (page or worker, any tab) is running; never waits. */
export async function withUploaderLock<T>(job: (renew: () => Promise<boolean>) => Promise<T>, options: LockOptions = {}): Promise<LockResult<T>> {
  const locks = options.locks !== undefined ? options.locks : (globalThis.navigator?.locks ?? null);
  if (locks) {
    return locks.request(LOCK_NAME, { ifAvailable: true }, async (lock) =>
      lock ? { ran: true as const, value: await job(async () => true) } : { ran: false as const },
    );
  }
  const owner = options.owner ?? crypto.randomUUID();
  const now = options.now ?? Date.now;
  if (!(await takeLease(owner, now()))) return { ran: false };
  try {
    return { ran: true, value: await job(() => takeLease(owner, now())) };
  } finally {
    await releaseLease(owner);
  }
}

/** Takes or renews the lease; false if someone else holds an unexpired one. */
async function takeLease(owner: string, now: number): Promise<boolean> {
  const tx = (await outboxDb()).transaction('lease', 'readwrite');
  const current = await tx.store.get(LOCK_NAME);
  if (current && current.owner !== owner && current.expiresAt > now) {
    await tx.done;
    return false;
  }
  await tx.store.put({ name: LOCK_NAME, owner, expiresAt: now + LEASE_MS });
  await tx.done;
  return true;
}

async function releaseLease(owner: string): Promise<void> {
  const tx = (await outboxDb()).transaction('lease', 'readwrite');
  const current = await tx.store.get(LOCK_NAME);
  if (current?.owner === owner) await tx.store.delete(LOCK_NAME);
  await tx.done;
}
