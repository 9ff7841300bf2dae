import { beforeEach, describe, expect, it } from 'vitest';
import { LEASE_MS, getNote, replayOutbox, withUploaderLock } from '../../../src/outbox/index.js';
import type { UploadResponse } from '../../../src/outbox/index.js';
import { freshDb, queuedNote } from './helpers.js';

beforeEach(freshDb);

/** A minimal Web Locks stand-in with the ifAvailable semantics the outbox relies on. */
function fakeLocks() {
  const held = new Set<string>();
  return {
    request: (async (name: string, _opts: LockOptions, callback: (lock: Lock | null) => Promise<unknown>) => {
      if (held.has(name)) return callback(null);
      held.add(name);
      try {
        return await callback({ name, mode: 'exclusive' } as Lock);
      } finally {
        held.delete(name);
      }
    }) as LockManager['request'],
  };
}

function slowTransport() {
  let uploads = 0;
  const transport = async (): Promise<UploadResponse> => {
    uploads++;
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { status: 201, body: '{}', retryAfter: null };
  };
  return { transport, uploads: () => uploads };
}

describe('one uploader at a time', () => {
  for (const [name, locks] of [
    ['Web Locks', fakeLocks],
    ['the IndexedDB lease', () => null],
  ] as const) {
    it(`uploads each note once when two replays race (${name})`, async () => {
      const notes = [await queuedNote(), await queuedNote(), await queuedNote()];
      const shared = locks();
      const { transport, uploads } = slowTransport();
      const [a, b] = await Promise.all([replayOutbox(transport, { locks: shared }), replayOutbox(transport, { locks: shared })]);
      expect([a.ran, b.ran].sort()).toEqual([false, true]);
      expect(uploads()).toBe(3);
      for (const note of notes) expect((await getNote(note.id))!.state).toBe('delivered');
    });
  }

  it('lets a second uploader in once the first is done', async () => {
    await withUploaderLock(async () => 1, { locks: null });
    expect(await withUploaderLock(async () => 2, { locks: null })).toEqual({ ran: true, value: 2 });
  });

  it('takes over a lease whose holder died without releasing it', async () => {
    let now = 0;
    void withUploaderLock(() => new Promise(() => {}), { locks: null, owner: 'dead', now: () => now });
    await expect.poll(() => withUploaderLock(async () => 'x', { locks: null, owner: 'b', now: () => now })).toEqual({ ran: false });
    now = LEASE_MS + 1;
    expect(await withUploaderLock(async () => 'x', { locks: null, owner: 'b', now: () => now })).toEqual({ ran: true, value: 'x' });
  });
});
