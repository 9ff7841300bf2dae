import { describe, expect, it } from 'vitest';
import type { SqlDriver, TransactionOptions } from '../../../server/db/driver.js';
import { createProgressStore } from '../../../server/db/progress-store.js';

describe('the progress store', () => {
  it('should write a placement without waiting for the disk, the one write that may', async () => {
    // What the store asks of the driver; that the drivers then skip the sync is in driver.test.ts.
    const asked: Array<TransactionOptions | undefined> = [];
    const driver: SqlDriver = {
      all: async () => [],
      run: async () => 1,
      batch: async () => [],
      transaction: async (work, options) => (asked.push(options), work(driver)),
    };
    const store = createProgressStore(driver);
    expect(await store.advance('entry', undefined, { distanceMeters: 120, at: 1 }, [{ markerId: 'mile-1', passedAt: 1 }])).toBe(true);
    expect(await store.advance('entry', { distanceMeters: 120, at: 1 }, { distanceMeters: 240, at: 2 }, [])).toBe(true);
    expect(asked).toEqual([{ durable: false }, { durable: false }]);
  });
});
