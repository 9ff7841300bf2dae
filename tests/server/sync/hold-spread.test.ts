import { describe, expect, it } from 'vitest';
import { HOLD_SPREAD, spreadHold } from '../../../server/sync/note-changes.js';

describe('a held request’s time', () => {
  it('should be the wait asked for at most and its last fifth at least', () => {
    expect(HOLD_SPREAD).toBe(0.2);
    expect(spreadHold(25_000, () => 0)).toBe(25_000);
    expect(spreadHold(25_000, () => 0.5)).toBe(22_500);
    expect(spreadHold(25_000, () => 0.999_999)).toBe(20_000);
    expect(spreadHold(0, () => 0.7)).toBe(0);
  });

  it('should be drawn anew for each request, so holds asked for together end apart', () => {
    const drawn = new Set(Array.from({ length: 50 }, () => spreadHold(25_000)));
    expect(drawn.size).toBeGreaterThan(40);
    for (const ms of drawn) expect(ms).toBeGreaterThanOrEqual(20_000);
  });
});
