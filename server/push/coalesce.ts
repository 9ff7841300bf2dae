/**
 * Owns "one pass per key at a time" in this process: a pass asked for while one runs for the same
 * key is not started beside it, nor lost; the asks that came meanwhile make one more pass after it,
 * with the latest `now` asked. Every ask resolves when a pass that started after it has finished.
 * Used for the marker alerts' pass per entry (./alerts.ts): a runner's batches every few seconds
 * never pile passes on the database, and the last batch's estimate is always the one followed.
 */
export interface CoalescedPasses {
  request(key: string, now: number): Promise<void>;
  /** Keys with a pass running now (for tests). */
  running(): number;
}

interface Pass {
  again: boolean;
  now: number;
  done: Promise<void>;
}

export function coalescedPasses(pass: (key: string, now: number) => Promise<void>): CoalescedPasses {
  const passes = new Map<string, Pass>();

  async function loop(key: string, state: Pass): Promise<void> {
    for (;;) {
      state.again = false;
      let failure: { err: unknown } | undefined;
      try {
        await pass(key, state.now);
      } catch (err) {
        failure = { err };
      }
      // Checked and removed in one step: an ask arriving after this starts a pass of its own.
      if (!state.again) {
        passes.delete(key);
        if (failure) throw failure.err;
        return;
      }
    }
  }

  return {
    request(key, now) {
      const current = passes.get(key);
      if (current) {
        current.again = true;
        current.now = Math.max(current.now, now);
        // Resolves after the pass that takes this ask (the loop's last), not the one running now.
        return current.done;
      }
      const state: Pass = { again: false, now, done: Promise.resolve() };
      passes.set(key, state);
      state.done = loop(key, state);
      return state.done;
    },
    running: () => passes.size,
  };
}
