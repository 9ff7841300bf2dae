import { describe, expect, it } from 'vitest';
import { expectedTimes, minutesOld, suggestedMarker, tooNear } from '../../../src/recorder/estimates.js';
import { SEND_LEAD_MS } from '../../../contract/delivery.js';

const NOW = Date.parse('2026-10-11T15:41:00Z');
const MARKERS = ['mi-18', 'mi-19', 'mi-20', 'mi-21'].map((id) => ({ id }));
const minutesFromNow = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();
const estimates = (made: number, at: Record<string, number>) => ({
  madeAt: minutesFromNow(made),
  markers: Object.entries(at).map(([id, minutes]) => ({ id, at: minutesFromNow(minutes) })),
});

describe('the times the runner is expected at the markers ahead', () => {
  it('should read each marker’s time, and have none without estimates', () => {
    const times = expectedTimes(estimates(0, { 'mi-19': 3, 'mi-20': 11 }));
    expect([...times]).toEqual([
      ['mi-19', NOW + 3 * 60_000],
      ['mi-20', NOW + 11 * 60_000],
    ]);
    expect(expectedTimes(undefined).size).toBe(0);
  });

  it('should leave out a time it cannot read rather than show one', () => {
    expect([...expectedTimes({ madeAt: minutesFromNow(0), markers: [{ id: 'mi-19', at: 'soon' }] })]).toEqual([]);
  });
});

describe('the marker a note sent now can reach in time', () => {
  it('should suggest the first marker the runner is expected at no sooner than SEND_LEAD_MS from now', () => {
    const times = expectedTimes(estimates(0, { 'mi-19': 3, 'mi-20': 11, 'mi-21': 19 }));
    expect(suggestedMarker(MARKERS, times, NOW)).toBe('mi-20');
    // Exactly the lead away is in time; a millisecond less is not.
    const atTheLead = new Map([
      ['mi-19', NOW + SEND_LEAD_MS],
      ['mi-20', NOW + SEND_LEAD_MS + 60_000],
    ]);
    expect(suggestedMarker(MARKERS, atTheLead, NOW)).toBe('mi-19');
    expect(suggestedMarker(MARKERS, atTheLead, NOW + 1)).toBe('mi-20');
  });

  it('should follow the course order, not the order the times come in', () => {
    const times = expectedTimes(estimates(0, { 'mi-21': 19, 'mi-20': 11 }));
    expect(suggestedMarker(MARKERS, times, NOW)).toBe('mi-20');
  });

  it('should suggest nothing without estimates, or when every marker left is too near', () => {
    expect(suggestedMarker(MARKERS, new Map(), NOW)).toBeUndefined();
    expect(suggestedMarker(MARKERS, expectedTimes(estimates(0, { 'mi-21': 4 })), NOW)).toBeUndefined();
  });

  it('should call a marker too near when the runner is expected there sooner than a note can arrive', () => {
    expect(tooNear(NOW + SEND_LEAD_MS - 1, NOW)).toBe(true);
    expect(tooNear(NOW - 60_000, NOW)).toBe(true);
    expect(tooNear(NOW + SEND_LEAD_MS, NOW)).toBe(false);
  });
});

describe('how old the times are', () => {
  it('should count whole minutes since the estimate was made, never below zero', () => {
    expect(minutesOld(estimates(-12, {}), NOW)).toBe(12);
    expect(minutesOld(estimates(-12.9, {}), NOW)).toBe(12);
    expect(minutesOld(estimates(2, {}), NOW)).toBe(0);
  });
});
