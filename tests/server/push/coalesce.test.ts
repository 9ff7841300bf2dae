/**
 * One marker alerts pass per entry at a time: asks while a pass runs for the same entry
 * are not run beside it, nor lost: they make one more pass after it, with the latest time asked.
 * Other entries' passes run at once. A failed pass fails its askers and never blocks the next.
 */
import { describe, expect, it } from 'vitest';
import { coalescedPasses } from '../../../server/push/coalesce.js';

/** A pass that waits to be let go, recording what it was asked and how many ran at once. */
function heldPasses() {
  const started: Array<{ key: string; now: number }> = [];
  const waiting: Array<{ release: () => void; fail: (err: Error) => void }> = [];
  let running = 0;
  let most = 0;
  const pass = (key: string, now: number) =>
    new Promise<void>((resolve, reject) => {
      started.push({ key, now });
      running++;
      most = Math.max(most, running);
      const done = () => void running--;
      waiting.push({ release: () => (done(), resolve()), fail: (err) => (done(), reject(err)) });
    });
  /** Waits until `n` passes have started (each release lets the loop start the next on a later tick). */
  const untilStarted = (n: number) => expect.poll(() => started.length).toBe(n);
  return { pass, started, waiting, untilStarted, most: () => most };
}

describe('one alerts pass per entry at a time', () => {
  it('should run asks made during a pass once after it, with the latest time, and resolve them then', async () => {
    const held = heldPasses();
    const passes = coalescedPasses(held.pass);
    const first = passes.request('entry-1', 100);
    await held.untilStarted(1);
    let laterDone = false;
    const later = [passes.request('entry-1', 200), passes.request('entry-1', 300), passes.request('entry-1', 250)];
    void Promise.all(later).then(() => (laterDone = true));
    expect(held.started).toHaveLength(1);

    held.waiting[0]!.release();
    await held.untilStarted(2);
    expect(held.started[1]).toEqual({ key: 'entry-1', now: 300 });
    // The asks made during the first pass wait for the pass that took them.
    expect(laterDone).toBe(false);
    held.waiting[1]!.release();
    await Promise.all([first, ...later]);
    expect(held.started).toHaveLength(2);
    expect(held.most()).toBe(1);
    expect(passes.running()).toBe(0);

    // Nothing running: the next ask starts a pass of its own.
    const next = passes.request('entry-1', 400);
    await held.untilStarted(3);
    held.waiting[2]!.release();
    await next;
  });

  it("should run another entry's pass beside it", async () => {
    const held = heldPasses();
    const passes = coalescedPasses(held.pass);
    const one = passes.request('entry-1', 1);
    const two = passes.request('entry-2', 1);
    await held.untilStarted(2);
    expect(held.started.map((s) => s.key)).toEqual(['entry-1', 'entry-2']);
    for (const w of held.waiting) w.release();
    await Promise.all([one, two]);
  });

  it('should fail the askers of a failed pass, still run the asks made meanwhile, and take the next', async () => {
    const held = heldPasses();
    const passes = coalescedPasses(held.pass);
    const first = passes.request('entry-1', 1);
    await held.untilStarted(1);
    const meanwhile = passes.request('entry-1', 2);
    held.waiting[0]!.fail(new Error('database away'));
    await held.untilStarted(2);
    held.waiting[1]!.release();
    await Promise.all([first, meanwhile]);

    const failing = passes.request('entry-1', 3);
    await held.untilStarted(3);
    held.waiting[2]!.fail(new Error('database away'));
    await expect(failing).rejects.toThrow('database away');
    expect(passes.running()).toBe(0);
    const after = passes.request('entry-1', 4);
    await held.untilStarted(4);
    held.waiting[3]!.release();
    await after;
  });
});
