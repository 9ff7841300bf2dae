import { describe, expect, it } from 'vitest';
import { parseRange } from '../../../server/runner/audio.js';

describe('byte ranges for note audio', () => {
  it('should read start-end, open-ended and suffix ranges, clamped to the file', () => {
    expect(parseRange('bytes=0-1', 100)).toEqual([0, 1]);
    expect(parseRange('bytes=10-', 100)).toEqual([10, 99]);
    expect(parseRange('bytes=-10', 100)).toEqual([90, 99]);
    expect(parseRange('bytes=50-500', 100)).toEqual([50, 99]);
  });

  it('should call a range past the end unsatisfiable and ignore what it does not support', () => {
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=5-2', 100)).toBe('unsatisfiable');
    expect(parseRange(undefined, 100)).toBeUndefined();
    expect(parseRange('bytes=0-1,5-6', 100)).toBeUndefined();
    expect(parseRange('items=0-1', 100)).toBeUndefined();
  });
});
