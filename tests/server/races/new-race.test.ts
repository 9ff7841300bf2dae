import { describe, expect, it } from 'vitest';
import { MAX_RACE_ID_LENGTH, newRaceProblem, raceIdProblem } from '../../../server/races/new-race.js';
import { raceDateProblem, startTimeProblem, timeZoneProblem } from '../../../contract/raceClock.js';

describe('naming a new race', () => {
  it('should take an id of lower-case words and digits joined by single hyphens, up to 64 characters', () => {
    for (const id of ['chicago-2026', 'nyc-2026', 'a', '2026', 'x'.repeat(MAX_RACE_ID_LENGTH)]) expect(raceIdProblem(id), id).toBeNull();
  });

  it('should refuse any other id, and say what an id is', () => {
    for (const id of ['Chicago-2026', 'chicago 2026', 'chicago_2026', 'chicago--2026', '-chicago', 'chicago-', 'münchen-2026', '', '../etc']) {
      expect(raceIdProblem(id), id).toBe(`A race id is lower-case letters and digits, words joined by single hyphens, e.g. chicago-2026; '${id}' is not.`);
    }
    expect(raceIdProblem('x'.repeat(MAX_RACE_ID_LENGTH + 1))).toBe('A race id can be at most 64 characters; this one has 65.');
  });

  it('should give the first thing wrong with a new race: its id, then its date, start time and time zone', () => {
    const good = { id: 'chicago-2026', date: '2026-10-11', start: '07:30', timeZone: 'America/Chicago' };
    expect(newRaceProblem(good)).toBeNull();
    expect(newRaceProblem({ ...good, id: 'Chicago', date: '2026-02-30' })).toBe(raceIdProblem('Chicago'));
    expect(newRaceProblem({ ...good, date: '2026-02-30', start: '25:00' })).toBe(raceDateProblem('2026-02-30'));
    expect(newRaceProblem({ ...good, start: '25:00', timeZone: 'Mars/Olympus' })).toBe(startTimeProblem('25:00'));
    expect(newRaceProblem({ ...good, timeZone: 'Mars/Olympus' })).toBe(timeZoneProblem('Mars/Olympus'));
  });
});
