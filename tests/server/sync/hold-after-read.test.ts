import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { startNoteChanges } from '../../../server/sync/note-changes.js';

const quiet = { warn: () => undefined } as unknown as FastifyBaseLogger;

/** A hub on a stand-in listener: `signal` is a committed change of a runners row, `gap` a reconnect. */
async function hub() {
  let signal!: (runnerId: string) => void;
  let gap!: () => void;
  const changes = await startNoteChanges(
    {
      listenForChanges: async (onChange, onGap) => {
        signal = onChange;
        gap = onGap;
        return async () => undefined;
      },
    },
    { maxHeld: 10, maxHeldPerAccount: 4 },
    quiet,
  );
  return { changes, signal: (id: string) => signal(id), gap: () => gap() };
}

/** 'open' while the hold still waits. */
const state = (ended: Promise<string>) => Promise.race([ended, new Promise((r) => setImmediate(() => r('open')))]);

describe('a hold taken after its request read the entry’s latest change', () => {
  it('should end at once for a change of its entry signalled since that read, and wait for none of another', async () => {
    const { changes, signal } = await hub();
    const readAt = performance.now();
    signal('runner-a');
    const mine = changes.hold('runner-a', 'account-a', Date.now() + 60_000, readAt);
    const other = changes.hold('runner-b', 'account-b', Date.now() + 60_000, readAt);
    expect(await state(mine.ended)).toBe('changed');
    expect(await state(other.ended)).toBe('open');
    other.release();
    await changes.close();
  });

  it('should wait when the change came before the read, which saw it', async () => {
    const { changes, signal } = await hub();
    signal('runner-a');
    const readAt = performance.now() + 1;
    const hold = changes.hold('runner-a', 'account-a', Date.now() + 60_000, readAt);
    expect(await state(hold.ended)).toBe('open');
    hold.release();
    await changes.close();
  });

  it('should end at once after the listener reconnected since the read, since signals may have been missed', async () => {
    const { changes, gap } = await hub();
    const readAt = performance.now();
    gap();
    expect(await state(changes.hold('runner-a', 'account-a', Date.now() + 60_000, readAt).ended)).toBe('changed');
    await changes.close();
  });
});
