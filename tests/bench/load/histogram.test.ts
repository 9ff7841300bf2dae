import { describe, expect, it } from 'vitest';
import { quantileBetween, type Buckets } from '../../../bench/load/histogram.js';

const buckets = (...counts: number[]): Buckets => [0.01, 0.1, 1, Infinity].map((le, i) => ({ le, count: counts[i]! }));

describe('a quantile read from two readings of a server histogram', () => {
  it('should count only what was observed between them, linear within the bucket', () => {
    // Before: 10 fast ones. Between: 10 more in (0.01, 0.1] and 10 in (0.1, 1].
    const before = buckets(10, 10, 10, 10);
    const after = buckets(10, 20, 30, 30);
    expect(quantileBetween(before, after, 0.5)).toEqual({ value: 0.1, count: 20 });
    expect(quantileBetween(before, after, 0.95).value).toBeCloseTo(0.1 + 0.9 * 0.9, 6);
  });

  it('should answer NaN with no observation, and the last finite bound past it', () => {
    expect(quantileBetween(buckets(1, 1, 1, 1), buckets(1, 1, 1, 1), 0.95)).toEqual({ value: NaN, count: 0 });
    expect(quantileBetween(buckets(0, 0, 0, 0), buckets(0, 0, 0, 4), 0.5).value).toBe(1);
  });
});
