import { describe, expect, it } from 'vitest';
import { newRaceProblem } from '../../../server/races/new-race.js';
import { SEED_RACES } from '../../../server/db/seed-races.js';
import { raceStartsAt, resolveStart } from '../../../contract/raceClock.js';
import { RACES } from '../../../contract/races.js';

describe('the races the catalogue starts with', () => {
  it('should be the nine races of the spec, with the ids, names, dates and units of the home page', () => {
    expect(SEED_RACES.map(({ id, name, date, units }) => ({ id, name, date, units }))).toEqual(
      RACES.map(({ id, name, date, units }) => ({ id, name, date, units })),
    );
    expect(SEED_RACES).toHaveLength(9);
  });

  it('should give each race a time zone and start time that Node knows and that pass the checks for a new race', () => {
    for (const race of SEED_RACES) {
      expect(newRaceProblem(race), race.id).toBeNull();
      expect(resolveStart(race.date, race.start, race.timeZone).fit, race.id).toBe('exact');
    }
  });

  it('should start each race at its local time in UTC: Sydney the evening before, Berlin in summer time, NYC after the clocks go back', () => {
    expect(Object.fromEntries(SEED_RACES.map((r) => [r.id, raceStartsAt(r.date, r.start, r.timeZone)]))).toEqual({
      'sydney-2025': '2025-08-30T20:00:00.000Z',
      'berlin-2025': '2025-09-21T07:15:00.000Z',
      'long-beach-2025': '2025-10-05T13:30:00.000Z',
      'chicago-2025': '2025-10-12T12:30:00.000Z',
      'marine-corps-2025': '2025-10-26T11:55:00.000Z',
      'raleigh-2025': '2025-11-02T12:00:00.000Z',
      'nyc-2025': '2025-11-02T14:10:00.000Z',
      'every-womans-2025': '2025-11-16T11:30:00.000Z',
      'philadelphia-2025': '2025-11-23T12:00:00.000Z',
    });
  });
});
